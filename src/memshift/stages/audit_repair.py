"""Stage `audit_repair`: apply one repair arm (D) to a detection policy's writes."""

from __future__ import annotations

from pathlib import Path

from memshift import schemas
from memshift.artifacts import read_table, write_table
from memshift.memory.cells import ProgramRunner, run_repair
from memshift.memory.tables import store_to_table, table_to_served, table_to_writes
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.stages import paths
from memshift.stages.world import load, load_public_events


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    detection: str,
    repair: str,
    profile: Profile,
    cache_dir: Path | None,
) -> int:
    world = load(world_dir, with_events=False)
    source = paths.system_dir(run_world_dir, branch, paths.detection_system(detection))
    writes = table_to_writes(read_table(source / "writes.parquet", schemas.WRITES))
    served = table_to_served(read_table(source / "served.parquet", schemas.SERVED))
    system = paths.cell_system(detection, repair)
    log = CallLog()
    programs = None
    if repair == "m":
        client = ModelClient(profile, cache_dir=cache_dir, log=log)
        programs = ProgramRunner(
            world.items, client, CallContext(profile.name, world.seed, branch, system)
        )
    store = run_repair(
        world, load_public_events(world_dir, branch), writes, served, repair, programs
    )
    out = paths.system_dir(run_world_dir, branch, system)
    write_table(store_to_table(store), schemas.STORE, out / "store.parquet")
    log.write(out / "calls-programs.parquet")
    return sum(len(v) for slots in store.values() for v in slots.values())
