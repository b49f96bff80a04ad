"""Stage `probes`: the probes of one branch, drawn from its gold table."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.probes import Probe, probes_to_table, select_probes
from memshift.stages.gold import load_points
from memshift.world.stored import load


def run(world_dir: Path, branch: str) -> list[Probe]:
    world = load(world_dir, with_events=False)
    probes = select_probes(load_points(world_dir, branch, world), seed=world.seed, branch=branch)
    write_table(
        probes_to_table(probes, world=world.seed, branch=branch),
        schemas.PROBES,
        layout.probes(world_dir, branch),
    )
    return probes
