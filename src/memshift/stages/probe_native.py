"""Stage `probe` for a native system (`systems.native`): a real memory library follows each
branch in a scratch directory of its own, the shared reader answers from the context it
retrieves, and the library calls that failed are logged beside the answers: their messages in
native-failures, every library call (role `library`) in the job's call log beside the reader's,
where the report counts them (`native/library_calls.py`), and so is every model call the library
sent its server, with its tokens, through the meter the library is given as its server (role
`library-model`, `native/meter.py`). Its own module so that only native jobs hold the native
code in their fingerprint."""

from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.memory.programs import ProgramRunner
from memshift.memory.reading import events_fed
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.progress import Progress, native_progress
from memshift.models.requests import CallContext
from memshift.native.library_calls import library_rows, library_table, metered_rows
from memshift.native.meter import Meter
from memshift.native.settings import NativeSettings, build
from memshift.probes.sample import ProbeSample
from memshift.stages.probe import BranchReads, answer_and_log
from memshift.stages.specs import NativeProbeJob
from memshift.vocabulary import in_order


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    reader: Profile,
    cache_dir: Path | None,
    settings: NativeSettings,
    profiles: tuple[Profile, Profile],
    every_item_time: bool = False,
    sample: ProbeSample | None = None,
) -> int:
    """`profiles`: the library's own LLM and the writer's programs (for Mem0's program view).
    A rerun starts from nothing: the libraries' stores skip documents they have seen."""
    reads = BranchReads.read(world_dir, branch, sample)
    world = reads.world
    own, program = profiles
    # the job's one call log: the reader's calls, the program view's, then the library's
    log = CallLog()
    programs = None
    if settings.program_view:
        programs = ProgramRunner(
            world.items,
            ModelClient(program, cache_dir=cache_dir, log=log),
            CallContext(program.name, world.seed, branch, system),
        )
    embedder_upstream = settings.embedder_base_url or own.base_url or ""
    fed_in_all = events_fed(reads.events, world.timeline.checkpoints)
    progress, tally = native_progress(f"{system} {branch} (w{world.seed})", fed_in_all)
    on_call = None if tally is None else tally.counted
    with (
        tempfile.TemporaryDirectory(prefix=f"memshift-{system}-") as scratch,
        Meter(own.base_url or "", embedder_upstream, on_call=on_call) as meter,
    ):
        # the library calls its server through the meter, which counts its calls and tokens
        metered = replace(settings, embedder_base_url=meter.url("embed"))
        memory = build(metered, replace(own, base_url=meter.url("chat")), Path(scratch), programs)
        try:
            n = answer_and_log(
                memory,
                reads,
                run_world_dir,
                branch,
                system,
                reader,
                cache_dir,
                every_item_time,
                log,
                ingested=lambda events: fed(progress, meter, events),
            )
            progress.finish()
        finally:
            close = getattr(memory, "close", None)
            if callable(close):
                close()
    failures = list(getattr(memory, "failures", []))
    out = layout.system_dir(run_world_dir, branch, system)
    failed = pa.table(
        {"call": list(range(len(failures))), "message": failures}, schema=schemas.NATIVE_FAILURES
    )
    write_table(failed, schemas.NATIVE_FAILURES, layout.table(out, layout.NATIVE_FAILURES))
    where = {"run": own.name, "world": world.seed, "branch": branch, "system": system,
             "library": settings.library, "model": own.model or ""}  # fmt: skip
    library = library_rows(memory.cost().calls, failures, **where)
    library += metered_rows(meter.calls, embedder_model=settings.embedder_model, **where)
    calls = pa.concat_tables([log.to_table(), library_table(library)])
    write_table(calls, schemas.CALLS, layout.table(out, layout.READER_CALLS))
    if failures:
        print(f"{system} {branch}: {len(failures)} library calls failed", file=sys.stderr)
    return n


def fed(progress: Progress, meter: Meter, events: int) -> None:
    """`events` more fed to the library, and the tokens its model has spent since the last."""
    tokens_in, tokens_out = meter.tokens()
    progress.advance(tokens_in - progress.tokens_in, tokens_out - progress.tokens_out, events)


def run_job(job: NativeProbeJob) -> None:
    """A native system on a world's branches (`NativeProbeJob`), one branch after another."""
    settings = NativeSettings.from_json(job.settings, job.where("settings"))
    reader = job.access.profile("reader")
    profiles = (job.access.named(settings.profile), job.access.profile("program"))
    for branch in in_order(job.branches):
        n = run(
            job.world, job.run, branch, job.system, reader, job.access.cache, settings, profiles,
            job.every_item_time, job.sample,
        )  # fmt: skip
        print(f"{job.world.name} {branch} {job.system}: {n} answers", file=sys.stderr)
