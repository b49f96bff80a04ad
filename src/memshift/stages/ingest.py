"""Stage `ingest`: a HoldMem detection policy over one branch: its writes, its maintenance
(invalidated or not, why, keys before and after, re-derived), what each checkpoint serves and,
for the `audit` policy, every proposed transition with the gate's decision (empty otherwise).
One process runs several policies over a branch read once (`run_detections`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.gold.tables import Dependencies, dependencies
from memshift.memory.detection import run_detection
from memshift.memory.holdmem import HoldMemDetector
from memshift.memory.write_tables import (
    audits_to_table,
    maintenance_to_table,
    served_to_table,
    table_to_writes,
    writes_to_table,
)
from memshift.memory.writes import WriteRecord
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.sample import ProbeSample, sample_world
from memshift.stages.specs import IngestJob
from memshift.vocabulary import detection_system, in_order
from memshift.world.generate import World
from memshift.world.records import PublicEvent
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    detection: str,
    profile: Profile,
    cache_dir: Path | None,
    auditor: Profile | None = None,
) -> HoldMemDetector:
    return run_detections(
        world_dir, run_world_dir, branch, [detection], profile, cache_dir, auditor
    )[0]


def run_detections(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    detections: Sequence[str],
    profile: Profile,
    cache_dir: Path | None,
    auditor: Profile | None = None,
    calls: CallLog | None = None,
    sample: ProbeSample | None = None,
) -> list[HoldMemDetector]:
    """`run` for each detection on one branch, in order: the world, the branch's events and the
    pre-fork store are read once for all of them (each detection adopts its own copy of the
    pre-fork writes). The model calls go to `calls` where a job keeps one log, else to each
    detection's own. A sampled study's detections maintain its drawn items only."""
    world = sample_world(load(world_dir, with_events=False), sample)
    prefork = read_table(layout.prefork(run_world_dir), schemas.WRITES)
    events = load_public_events(world_dir, branch)
    gold_deps = (
        dependencies(read_table(layout.gold(world_dir, branch), schemas.GOLD))
        if "oracle" in detections
        else None
    )
    return [
        _detect(world, events, table_to_writes(prefork), run_world_dir, branch, detection,
                gold_deps if detection == "oracle" else None, profile, cache_dir, auditor, calls)
        for detection in detections
    ]  # fmt: skip


def _detect(
    world: World,
    events: Sequence[PublicEvent],
    prefork: Sequence[WriteRecord],
    run_world_dir: Path,
    branch: str,
    detection: str,
    gold_deps: Dependencies | None,
    profile: Profile,
    cache_dir: Path | None,
    auditor: Profile | None,
    calls: CallLog | None,
) -> HoldMemDetector:
    """One detection policy over the branch's events, its tables written."""
    log = calls if calls is not None else CallLog()
    client = ModelClient(profile, cache_dir=cache_dir, log=log)
    auditing = (
        ModelClient(auditor, cache_dir=cache_dir, log=log)
        if auditor is not None and auditor != profile
        else client
    )
    system = detection_system(detection)
    context = CallContext(profile.name, world.seed, branch, system)
    detector = run_detection(
        world, events, detection, client, prefork, context, gold_deps, auditing
    )
    out = layout.detection_dir(run_world_dir, branch, system)
    write_table(writes_to_table(detector.writes), schemas.WRITES, layout.table(out, layout.WRITES))
    write_table(
        maintenance_to_table(detector.maintenance),
        schemas.MAINTENANCE,
        layout.table(out, layout.MAINTENANCE),
    )
    write_table(served_to_table(detector.served), schemas.SERVED, layout.table(out, layout.SERVED))
    write_table(audits_to_table(detector.audits), schemas.AUDITS, layout.table(out, layout.AUDITS))
    if calls is None:
        log.write(layout.table(out, layout.DETECTION_CALLS))
    return detector


def run_job(job: IngestJob) -> None:
    """Every detection of a study's world on each of its branches (`IngestJob`), the model calls
    in the job's one log, written once every branch is done."""
    writer = job.access.profile("writer")
    auditor = job.access.profile("auditor") if "auditor" in job.access.roles else writer
    detections = list(dict.fromkeys(job.detections))
    calls = CallLog()
    for branch in in_order(job.branches):
        detectors = run_detections(
            job.world, job.run, branch, detections, writer, job.access.cache, auditor, calls,
            job.sample,
        )  # fmt: skip
        for detection, d in zip(detections, detectors, strict=True):
            invalidated = sum(m.invalidated for m in d.maintenance)
            print(
                f"{job.world.name} {branch} {detection}: {len(d.writes)} writes, "
                f"{invalidated} invalidations",
                file=sys.stderr,
            )
    calls.write(job.calls)
