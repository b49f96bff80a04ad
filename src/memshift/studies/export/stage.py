"""Stage `export`: a HoldMem cell's store at the fork as a Portable Memory bundle, in one arm
(with or without the derivation extension), validated by the format's reference package."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.layout import Study
from memshift.memory.write_tables import table_to_writes
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile, study_profile
from memshift.stages.specs import ExportJob
from memshift.studies.export.portable import export_bundle, served_at_fork
from memshift.vocabulary import MOVABLE, REPAIRS, UNSHIFTED, cell_parts
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


def _exportable(cell: str) -> tuple[str, str] | None:
    """A cell's (repair, detection) if its store can be exported, else None."""
    parts = cell_parts(cell)
    return parts if parts is not None and parts[0] in REPAIRS and parts[1] in MOVABLE else None


def of_study(
    study: Mapping[str, Any], paths: Study, named: Path, seed: int, cell: str, arm: str, out: Path
) -> tuple[int, Any]:
    """A cell's bundle from the run of a checked study (the file `named`, its folders `paths`):
    the world must be the study's, the cell one of its exportable HoldMem cells, and the world
    must have run. (The job's code leaves out the study's settings, so it takes its folders.)"""
    if seed not in study["seed_list"]:
        raise MemshiftError(f"--world {seed}: the study {named} has no such world")
    cells = study["system_plan"]["cells"]
    parts = _exportable(cell)
    if cell not in cells or parts is None:
        movable = [c for c in cells if _exportable(c)]
        raise MemshiftError(
            f"--cell {cell!r}: not an exportable HoldMem cell of the study {named}; "
            f"choose one of {', '.join(movable) or '(none)'}"
        )
    run_world = paths.run_world(seed)
    if not run_world.is_dir():
        raise MemshiftError(
            f"world {seed} of the study {named} has not run ({run_world} is missing): run "
            f"snakemake --configfile {named} first"
        )
    repair, detection = parts
    writer = study_profile(study["role_profiles"]["writer"], Path(study["models"]))
    return run(paths.world(seed), run_world, detection, repair, arm, writer, out)
