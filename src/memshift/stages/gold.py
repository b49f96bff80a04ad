"""Stage `gold`: gold of every item at every checkpoint of one branch, classified and checked."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.gold.branch import BranchGold, branch_gold
from memshift.gold.compute import GoldPoint, outcomes
from memshift.gold.tables import gold_to_table, points_from_table
from memshift.vocabulary import UNSHIFTED
from memshift.world.generate import World
from memshift.world.stored import load, load_events


def load_points(world_dir: Path, branch: str, world: World) -> list[GoldPoint]:
    return points_from_table(read_table(layout.gold(world_dir, branch), schemas.GOLD), world.items)


def run(world_dir: Path, branch: str) -> BranchGold:
    world = load(world_dir, with_events=False)
    reference = None if branch == UNSHIFTED else outcomes(load_points(world_dir, UNSHIFTED, world))
    gold = branch_gold(world, load_events(world_dir, branch), branch, reference)
    write_table(
        gold_to_table(gold.points, world=world.seed, branch=branch),
        schemas.GOLD,
        layout.gold(world_dir, branch),
    )
    return gold
