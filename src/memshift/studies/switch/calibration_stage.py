"""Stage `calibrate_writer`: one writer's pre-fork store of a calibration world, and the run's
reader's answers to the fork probes from it; how often two writers are both right or both wrong
on an item type is measured from these (switch-score), on worlds the switches never use."""

from __future__ import annotations

import sys
from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.memory.detection import prefork_writes
from memshift.memory.reading import answer
from memshift.memory.write_tables import writes_to_table
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.stages.specs import CalibrationJob
from memshift.studies.switch.rederive import BEFORE, asked_of, fork_questions, prefork_served
from memshift.vocabulary import HOLDMEM, UNSHIFTED
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path, out: Path, writer: Profile, reader: Profile, cache_dir: Path | None
) -> int:
    world = load(world_dir, with_events=False)
    log = CallLog()
    context = CallContext(writer.name, world.seed, UNSHIFTED, HOLDMEM)
    writes = prefork_writes(
        world,
        load_public_events(world_dir, UNSHIFTED),
        ModelClient(writer, cache_dir=cache_dir, log=log),
        context,
    )
    write_table(writes_to_table(writes), schemas.WRITES, layout.prefork(out))
    fork = fork_questions(read_table(layout.probes(world_dir, UNSHIFTED), schemas.PROBES), world)
    answers = answer(
        asked_of(fork, prefork_served(writes, world), BEFORE, reader),
        ModelClient(reader, cache_dir=cache_dir, log=log),
        world=world.seed,
        branch=UNSHIFTED,
        system=writer.name,
        run=reader.name,
    )
    write_table(answers, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
    log.write(layout.table(out, layout.CALLS))
    return answers.num_rows


def run_job(job: CalibrationJob) -> None:
    """One writer's calibration on every calibration world (`CalibrationJob`)."""
    writer, reader = job.access.named(job.writer), job.access.profile("reader")
    for seed in job.seeds:
        out = layout.calibration_dir(job.runs, job.writer, seed)
        n = run(layout.world_in(job.worlds, seed), out, writer, reader, job.access.cache)
        print(f"w{seed} calibration of {job.writer}: {n} answers", file=sys.stderr)
