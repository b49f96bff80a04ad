"""Stage `probe` for a native system (`systems.native`): a real memory library follows each
branch in a scratch directory of its own, the shared reader answers from the context it
retrieves, and the library calls that failed are logged beside the answers. Its own module so
that only native jobs hold the native code in their fingerprint."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.memory.programs import ProgramRunner
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.native.settings import NativeSettings, build
from memshift.stages.probe import BranchReads, answer_and_log


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
) -> int:
    """`profiles`: the library's own LLM and the writer's programs (for Mem0's program view).
    A rerun starts from nothing: the libraries' stores skip documents they have seen."""
    reads = BranchReads.read(world_dir, branch)
    world = reads.world
    own, program = profiles
    programs = None
    if settings.program_view:
        programs = ProgramRunner(
            world.items,
            ModelClient(program, cache_dir=cache_dir),
            CallContext(program.name, world.seed, branch, system),
        )
    with tempfile.TemporaryDirectory(prefix=f"memshift-{system}-") as scratch:
        memory = build(settings, own, Path(scratch), programs)
        try:
            n = answer_and_log(
                memory, reads, run_world_dir, branch, system, reader, cache_dir, every_item_time
            )
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
    if failures:
        print(f"{system} {branch}: {len(failures)} library calls failed", file=sys.stderr)
    return n
