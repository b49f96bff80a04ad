"""Gold of one branch: evaluate every item at every checkpoint, classify, check fidelity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memshift.gold.compute import GoldPoint, classify, gold_grid
from memshift.gold.fidelity import FidelityReport, check_fidelity, require_fidelity
from memshift.world.generate import World
from memshift.world.records import Event


@dataclass(frozen=True)
class BranchGold:
    points: list[GoldPoint]
    fidelity: FidelityReport


def branch_gold(
    world: World,
    events: list[Event],
    branch: str,
    reference: Mapping[tuple[str, int], tuple[str, object]] | None,
) -> BranchGold:
    """`reference` is the unshifted branch's outcomes (None for the unshifted branch itself).
    Raises FidelityError if any gold fact is missing from the text of its dependencies."""
    checkpoints = list(world.timeline.checkpoints)
    states, grid = gold_grid(world.items, events, checkpoints)
    points = classify(world.items, events, checkpoints, grid, reference)
    report = check_fidelity(points, states, world=world.seed, branch=branch)
    require_fidelity(report)
    return BranchGold(points, report)
