"""Stage `import_run`: the second implementation imports a cell's Portable Memory bundle and
follows one branch of the world; every probe of the branch is answered by the shared reader.

Writes into the imported memory's system directory: answers, the reader's and the writer's call
logs, and its invalidation log (what it reported invalidating, through the interface's optional
method like any system), from which the report takes its m, r and a.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memshift import layout
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.stages.probe import BranchReads, answer_and_log
from memshift.stages.specs import ImportRunJob
from memshift.studies.export.imported import PortableHoldMem
from memshift.vocabulary import in_order


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    writer: Profile,
    reader: Profile,
    cache_dir: Path | None,
    every_item_time: bool = False,
) -> PortableHoldMem:
    reads = BranchReads.read(world_dir, branch)
    world = reads.world
    writes = CallLog()
    memory = PortableHoldMem(
        world.items,
        ModelClient(writer, cache_dir=cache_dir, log=writes),
        CallContext(writer.name, world.seed, branch, system),
    )
    memory.import_(layout.bundle_dir(run_world_dir, system))
    answer_and_log(memory, reads, run_world_dir, branch, system, reader, cache_dir, every_item_time)
    writes.write(
        layout.table(layout.system_dir(run_world_dir, branch, system), layout.DETECTION_CALLS)
    )
    return memory


def run_job(job: ImportRunJob) -> None:
    """An imported memory on a world's branches (`ImportRunJob`)."""
    writer, reader = job.access.profile("writer"), job.access.profile("reader")
    for branch in in_order(job.branches):
        memory = run(
            job.world, job.run, branch, job.system, writer, reader, job.access.cache,
            job.every_item_time,
        )  # fmt: skip
        print(f"{job.world.name} {branch} {job.system}: {len(memory.maintenance)} invalidations",
              file=sys.stderr)  # fmt: skip
