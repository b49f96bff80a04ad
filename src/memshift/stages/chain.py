"""Every data stage of one world in order, through files: what the Snakemake rules run, in one
process (used by the benchmark and the golden-world test)."""

from __future__ import annotations

from pathlib import Path

from memshift.stages import branches, gold, manifest, probes, world
from memshift.vocabulary import BRANCHES


def build_world(seed: int, world_dir: Path, names: tuple[str, ...] = BRANCHES) -> None:
    world.run(seed, world_dir)
    for branch in names:
        branches.run(world_dir, branch)
        gold.run(world_dir, branch)
        probes.run(world_dir, branch)
    manifest.run(world_dir, names)
