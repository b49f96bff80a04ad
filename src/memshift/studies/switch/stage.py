"""Stage `switch`: one writer switch on one world (`memshift.studies.switch.rederive`).

Reads the world, its unshifted events and fork probes and, when the old writer is the run's
writer, the run's pre-fork store (otherwise the old writer writes one here). Writes into
`layout.switch_dir`: the store before, the answers before, each detection's writes and
maintenance through the switch, each cell's store and answers after it, and one call log.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.memory.detection import prefork_writes
from memshift.memory.reading import answer
from memshift.memory.store_tables import store_to_table
from memshift.memory.stored import StoredItem
from memshift.memory.write_tables import (
    maintenance_to_table,
    table_to_writes,
    writes_to_table,
)
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.stages.specs import SwitchJob
from memshift.studies.switch.rederive import (
    AFTER,
    BEFORE,
    asked_of,
    fork_questions,
    prefork_served,
    switch_writer,
)
from memshift.vocabulary import HOLDMEM, UNSHIFTED, cell_parts, cell_system, detection_system
from memshift.world.stored import load, load_public_events


def checks_table(rederived: Sequence[StoredItem]) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {"item_id": s.item_id, "write_id": s.write_id, "check": s.check, "served": s.served}
            for s in rederived
        ],
        schema=schemas.SWITCH_CHECKS,
    )


def run(
    world_dir: Path,
    run_world_dir: Path,
    switch: str,
    old: Profile,
    new: Profile,
    reader: Profile,
    cells: Mapping[str, Sequence[str]],
    cache_dir: Path | None,
    prefork: Path | None = None,
) -> dict[str, int]:
    """`cells` maps each detection to its repair arms. Returns the count of items each
    detection re-derived."""
    world = load(world_dir, with_events=False)
    events = load_public_events(world_dir, UNSHIFTED)
    out = layout.switch_dir(run_world_dir, switch)
    log = CallLog()
    old_writer = ModelClient(old, cache_dir=cache_dir, log=log)
    new_writer = ModelClient(new, cache_dir=cache_dir, log=log)
    reading = ModelClient(reader, cache_dir=cache_dir, log=log)
    if prefork is not None:
        before_writes = table_to_writes(read_table(prefork, schemas.WRITES))
    else:
        context = CallContext(old.name, world.seed, UNSHIFTED, HOLDMEM)
        before_writes = prefork_writes(world, events, old_writer, context)
    write_table(writes_to_table(before_writes), schemas.WRITES, layout.prefork(out))

    fork = fork_questions(read_table(layout.probes(world_dir, UNSHIFTED), schemas.PROBES), world)
    ask = {"world": world.seed, "branch": UNSHIFTED, "run": reader.name}
    before = answer(
        asked_of(fork, prefork_served(before_writes, world), BEFORE, reader),
        reading,
        system=layout.BEFORE,
        **ask,
    )
    write_table(before, schemas.ANSWERS, layout.table(out / layout.BEFORE, layout.ANSWERS))

    rederived = {}
    for detection, repairs in cells.items():
        context = CallContext(new.name, world.seed, UNSHIFTED, detection_system(detection))
        switched = switch_writer(
            world,
            events,
            before_writes,
            detection,
            old_writer,
            new_writer,
            repairs,
            context,
        )
        directory = out / detection_system(detection)
        detector = switched.detector
        write_table(
            writes_to_table(detector.writes), schemas.WRITES, layout.table(directory, layout.WRITES)
        )
        write_table(
            maintenance_to_table(detector.maintenance),
            schemas.MAINTENANCE,
            layout.table(directory, layout.MAINTENANCE),
        )
        rederived[detection] = sum(w.checkpoint == AFTER for w in detector.writes)
        for repair, store in switched.stores.items():
            cell = cell_system(detection, repair)
            write_table(
                store_to_table(store), schemas.STORE, layout.table(out / cell, layout.STORE)
            )
            write_table(
                checks_table(switched.rederived[repair]),
                schemas.SWITCH_CHECKS,
                layout.table(out / cell, layout.SWITCH_CHECKS),
            )
            asked = asked_of(fork, store[AFTER], AFTER, reader)
            after = answer(asked, reading, system=cell, **ask)
            write_table(after, schemas.ANSWERS, layout.table(out / cell, layout.ANSWERS))
    log.write(layout.table(out, layout.CALLS))
    return rederived


def run_job(job: SwitchJob) -> None:
    """One writer switch on every world of the study (`SwitchJob`)."""
    cells: dict[str, list[str]] = {}
    for name in job.cells:
        repair, detection = cell_parts(name)  # type: ignore[misc]
        cells.setdefault(detection, []).append(repair)
    profiles = [job.access.named(job.old), job.access.named(job.new), job.access.profile("reader")]
    for seed in job.seeds:
        run_world = layout.world_in(job.runs, seed)
        prefork = layout.prefork(run_world) if job.reuse_prefork else None
        rederived = run(
            layout.world_in(job.worlds, seed), run_world, job.name, *profiles, cells,
            job.access.cache, prefork,
        )  # fmt: skip
        done = ", ".join(f"{d} re-derived {n}" for d, n in rederived.items())
        print(f"w{seed} switch {job.name} ({job.old} -> {job.new}): {done}", file=sys.stderr)
