"""Stage `probes`: the probes of one branch, drawn from its gold table."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_json, write_table
from memshift.probes.build import Probe, probes_to_table, select_probes
from memshift.stages.gold import load_points
from memshift.vocabulary import HELD_BRANCHES
from memshift.world.stored import load


def run(world_dir: Path, branch: str) -> list[Probe]:
    world = load(world_dir, with_events=False)
    held = touched_items(world_dir, branch) if branch in HELD_BRANCHES else ()
    probes = select_probes(
        load_points(world_dir, branch, world), seed=world.seed, branch=branch, held=held
    )
    write_table(
        probes_to_table(probes, world=world.seed, branch=branch),
        schemas.PROBES,
        layout.probes(world_dir, branch),
    )
    return probes


def touched_items(world_dir: Path, branch: str) -> tuple[str, ...]:
    """The items a branch's shift touched, as the branches stage recorded them."""
    return tuple(read_json(layout.shift(world_dir, branch))["touched_items"])
