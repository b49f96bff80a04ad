"""Stage `import_run`: the second implementation imports a cell's Portable Memory bundle and
follows one branch of the world; every probe of the branch is answered by the shared reader.

Writes into the imported memory's system directory: answers, the reader's and the writer's call
logs, and its invalidation log (what it reported invalidating, through the interface's optional
method like any system), from which the report takes its m, r and a.
"""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.export.imported import PortableHoldMem
from memshift.memory.invalidation_log import invalidation_log
from memshift.memory.reading import answer_branch
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    writer: Profile,
    reader: Profile,
    cache_dir: Path | None,
) -> PortableHoldMem:
    world = load(world_dir, with_events=False)
    writes = CallLog()
    memory = PortableHoldMem(
        world.items,
        ModelClient(writer, cache_dir=cache_dir, log=writes),
        CallContext(writer.name, world.seed, branch, system),
    )
    memory.import_(layout.bundle_dir(run_world_dir, system))
    reads = CallLog()
    table = answer_branch(
        memory,
        load_public_events(world_dir, branch),
        world.timeline.checkpoints,
        read_table(layout.probes(world_dir, branch), schemas.PROBES),
        world.items,
        ModelClient(reader, cache_dir=cache_dir, log=reads),
        world=world.seed,
        branch=branch,
        system=system,
    )
    out = layout.system_dir(run_world_dir, branch, system)
    write_table(table, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
    reported = invalidation_log(memory, system, world.timeline.checkpoints, memory.items)
    assert reported is not None  # the second implementation reports its invalidations
    write_table(reported, schemas.INVALIDATIONS, layout.table(out, layout.INVALIDATIONS))
    reads.write(layout.table(out, layout.READER_CALLS))
    writes.write(layout.table(out, layout.DETECTION_CALLS))
    return memory
