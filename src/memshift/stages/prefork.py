"""Stage `prefork`: HoldMem's pre-fork store, one write per item, shared by every cell."""

from __future__ import annotations

import sys
from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.memory.detection import prefork_writes
from memshift.memory.write_tables import writes_to_table
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.sample import ProbeSample, sample_world
from memshift.stages.specs import PreforkJob
from memshift.vocabulary import HOLDMEM, UNSHIFTED
from memshift.world.stored import load, load_public_events


def run(
    world_dir: Path,
    out_dir: Path,
    profile: Profile,
    cache_dir: Path | None,
    sample: ProbeSample | None = None,
) -> int:
    """One write per item (per drawn item of a sampled study); returns their number."""
    world = sample_world(load(world_dir, with_events=False), sample)
    log = CallLog()
    client = ModelClient(profile, cache_dir=cache_dir, log=log)
    context = CallContext(run=profile.name, world=world.seed, branch=UNSHIFTED, system=HOLDMEM)
    writes = prefork_writes(world, load_public_events(world_dir, UNSHIFTED), client, context)
    write_table(writes_to_table(writes), schemas.WRITES, layout.prefork(out_dir))
    log.write(layout.prefork_calls(out_dir))
    return len(writes)


def run_job(job: PreforkJob) -> None:
    """The pre-fork job of a study's world (`PreforkJob`)."""
    n = run(job.world, job.run, job.access.profile("writer"), job.access.cache, job.sample)
    print(f"{job.world.name}: {n} pre-fork writes", file=sys.stderr)
