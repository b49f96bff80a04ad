"""Stage `audit_repair`: apply repair arms (D) to detection policies' writes, one HoldMem cell
after another in one process: a branch's live records at each checkpoint are built once for all
its cells, and a detection's writes read once for all of its cells."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.memory.programs import ProgramRunner
from memshift.memory.repair import branch_states, run_repair
from memshift.memory.store_tables import store_to_table
from memshift.memory.write_tables import table_to_served, table_to_writes
from memshift.memory.writes import WriteRecord
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.sample import ProbeSample, sample_world
from memshift.stages.specs import AuditRepairJob
from memshift.vocabulary import PROGRAM_WORDING, cell_parts, cell_system, detection_system, in_order
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    detection: str,
    repair: str,
    profile: Profile,
    cache_dir: Path | None,
) -> int:
    """One cell (detection, repair) on one branch; returns the number of served items."""
    return run_cells(world_dir, run_world_dir, branch, [(detection, repair)], profile, cache_dir)[0]


def run_cells(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    cells: Sequence[tuple[str, str]],
    profile: Profile,
    cache_dir: Path | None,
    calls: CallLog | None = None,
    sample: ProbeSample | None = None,
) -> list[int]:
    """Each (detection, repair) cell on one branch, in order; returns each cell's number of
    served items. The programs' calls go to `calls` where a job keeps one log, else to each
    cell's own. A sampled study's cells repair its drawn items only."""
    world = sample_world(load(world_dir, with_events=False), sample)
    states = branch_states(world, load_public_events(world_dir, branch))
    detected: dict[str, tuple[list[WriteRecord], dict[int, dict[str, list[str]]]]] = {}
    counts = []
    for detection, repair in cells:
        if detection not in detected:
            source = layout.detection_dir(run_world_dir, branch, detection_system(detection))
            detected[detection] = (
                table_to_writes(read_table(layout.table(source, layout.WRITES), schemas.WRITES)),
                table_to_served(read_table(layout.table(source, layout.SERVED), schemas.SERVED)),
            )
        writes, served = detected[detection]
        system = cell_system(detection, repair)
        log = calls if calls is not None else CallLog()
        programs = None
        if repair in PROGRAM_WORDING:
            client = ModelClient(profile, cache_dir=cache_dir, log=log)
            programs = ProgramRunner(
                world.items,
                client,
                CallContext(profile.name, world.seed, branch, system),
                PROGRAM_WORDING[repair],
            )
        store = run_repair(world, states, writes, served, repair, programs)
        out = layout.cell_store(run_world_dir, branch, system)
        write_table(store_to_table(store), schemas.STORE, out)
        if calls is None:
            log.write(layout.table(out.parent, layout.PROGRAM_CALLS))
        counts.append(sum(len(v) for slots in store.values() for v in slots.values()))
    return counts


def run_job(job: AuditRepairJob) -> None:
    """Every HoldMem cell of a study's world on each of its branches (`AuditRepairJob`), the
    programs' calls in the job's one log, written once every branch is done."""
    program = job.access.profile("program")
    cells = []
    for name in job.cells:
        repair, detection = cell_parts(name)  # type: ignore[misc]
        cells.append((detection, repair))
    calls = CallLog()
    for branch in in_order(job.branches):
        counts = run_cells(
            job.world, job.run, branch, cells, program, job.access.cache, calls, job.sample
        )
        for (detection, repair), n in zip(cells, counts, strict=True):
            print(f"{job.world.name} {branch} D={repair} {detection}: {n} served items",
                  file=sys.stderr)  # fmt: skip
    calls.write(job.calls)
