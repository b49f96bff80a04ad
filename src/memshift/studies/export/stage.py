"""Stage `export`: a HoldMem cell's store at the fork as a Portable Memory bundle, in one arm
(with or without the derivation extension), validated by the format's reference package."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.memory.write_tables import table_to_writes
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.stages.specs import ExportJob
from memshift.studies.export.portable import export_bundle, served_at_fork
from memshift.vocabulary import UNSHIFTED
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path,
    run_world_dir: Path,
    detection: str,
    repair: str,
    arm: str,
    writer: Profile,
    out: Path,
) -> tuple[int, Any]:
    """(episodes, manifest); `writer` wrote the run's pre-fork store (its id is in the keys)."""
    world = load(world_dir, with_events=False)
    prefork = table_to_writes(read_table(layout.prefork(run_world_dir), schemas.WRITES))
    served = served_at_fork(
        world,
        load_public_events(world_dir, UNSHIFTED),
        prefork,
        detection,
        repair,
        ModelClient(writer),
    )
    return len(served), export_bundle(served, arm == "ext", out, world.timeline.fork)


def run_job(job: ExportJob) -> None:
    """A cell's bundle at the fork (`ExportJob`)."""
    episodes, manifest = run(
        job.world, job.run, job.detection, job.repair, job.arm, job.access.profile("writer"),
        job.out,
    )  # fmt: skip
    print(f"{job.world.name}: {episodes} episodes -> {job.out} (digest {manifest.bundle_digest})",
          file=sys.stderr)  # fmt: skip
