"""Stage `sync`: the sync study of one world. Each of its systems follows the unshifted branch
twice, once with ideal delivery and once through the sources' sync contracts, and answers the
same sync probes through the shared reader; both are scored."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.errors import ConfigError
from memshift.gold.tables import value_json
from memshift.memory.baselines import NoStoreBM25
from memshift.memory.holdmem_system import HoldMem
from memshift.memory.interface import MemorySystem, Question
from memshift.memory.reading import answer, drive
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.build import question_text
from memshift.scoring.scorer import score
from memshift.stages.specs import SyncJob
from memshift.studies.sync.contracts import Delivery, SyncSettings, deliver
from memshift.studies.sync.probes import SyncProbe, sync_probes
from memshift.vocabulary import UNSHIFTED, cell_parts, cell_system
from memshift.world.generate import World
from memshift.world.records import PublicEvent, public_view
from memshift.world.stored import load, load_events

# MemShift Table 12: HoldMem with B in {0, 1} at D=1, and no-store BM25
SYNC_SYSTEMS = (cell_system("append", "1"), cell_system("source", "1"), "bm25")
DELIVERIES = ("ideal", "sync")
PROBES_PER_SOURCE = 8


def system_factory(name: str, world: World, writer: ModelClient) -> Callable[[], MemorySystem]:
    """A fresh system of the sync study by name, so each delivery starts from nothing."""
    parts = cell_parts(name)
    if parts is None:
        return NoStoreBM25
    repair, detection = parts
    context = CallContext(writer.profile.name, world.seed, "sync", name)
    return lambda: HoldMem(
        world.items, detection=detection, repair=repair, client=writer, context=context
    )


def run(
    world_dir: Path,
    out: Path,
    settings: SyncSettings,
    writer: Profile,
    reader: Profile,
    cache_dir: Path | None,
) -> int:
    """Write the world's sync scores, deliveries and call logs to `out`; return the number of
    scored answers."""
    world = load(world_dir, with_events=False)
    events = load_events(world_dir, UNSHIFTED)
    probes = sync_probes(
        world.items,
        events,
        world.timeline,
        seed=world.seed,
        per_source=PROBES_PER_SOURCE,
        delay=timedelta(minutes=settings.probe_delay_minutes),
    )
    times = [world.timeline.fork, *sorted({p.time for p in probes})]
    ideal = public_view(events)
    delivered = deliver(ideal, world.timeline.fork, times[-1], settings, world.seed)
    inputs: dict[str, list[PublicEvent]] = {
        "ideal": ideal,
        "sync": [d.event for d in delivered],
    }
    asked = [(times.index(p.time), _question(p)) for p in probes]
    writes, reads = CallLog(), CallLog()
    reading = ModelClient(reader, cache_dir=cache_dir, log=reads)
    tables = []
    for name in SYNC_SYSTEMS:
        writing = ModelClient(writer, cache_dir=cache_dir, log=writes)
        make = system_factory(name, world, writing)
        for delivery in DELIVERIES:
            followed = drive(make(), inputs[delivery], times, asked, reader)
            answers = answer(
                followed, reading, world=world.seed, branch=delivery, system=name, run=reader.name
            )
            tables.append(_scored(answers, probes, world.seed, delivery))
    scores = pa.concat_tables(tables)
    write_table(scores, schemas.SYNC_SCORES, layout.table(out, layout.SYNC_SCORES))
    write_table(
        deliveries_table(delivered, world.seed),
        schemas.SYNC_DELIVERIES,
        layout.table(out, layout.SYNC_DELIVERIES),
    )
    writes.write(layout.table(out, layout.CALLS))
    reads.write(layout.table(out, layout.READER_CALLS))
    return scores.num_rows


def _question(p: SyncProbe) -> Question:
    question, _ = question_text(p.item, p.point)
    return Question(p.probe_id, p.item, p.gold.version, p.time, p.item.agent, question)


def _scored(answers: pa.Table, probes: list[SyncProbe], world: int, delivery: str) -> pa.Table:
    by_id = {p.probe_id: p for p in probes}
    rows = schemas.empty_columns(schemas.SYNC_SCORES)
    for a in answers.to_pylist():
        p = by_id[a["probe_id"]]
        gold_value = value_json(p.gold.value)
        result = score(p.item.value_type, p.gold.status, gold_value, a["status"], a["value"])
        for column, value in (
            ("world", world),
            ("probe_id", p.probe_id),
            ("source", p.source),
            ("event_time", p.event_time),
            ("time", p.time),
            ("item_id", p.item.item_id),
            ("item_class", p.item.item_class),
            ("touches", p.touches),
            ("gold_status", p.gold.status),
            ("gold_value", gold_value),
            ("system", a["system"]),
            ("delivery", delivery),
            ("status", a["status"]),
            ("value", a["value"]),
            ("correct", result.correct),
        ):
            rows[column].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.SYNC_SCORES)


def deliveries_table(delivered: list[Delivery], world: int) -> pa.Table:
    """What the contracts delivered after the fork (the initial sync and memory events left
    out)."""
    rows = schemas.empty_columns(schemas.SYNC_DELIVERIES)
    for d in delivered:
        if d.poll == 0:
            continue
        for column, value in (
            ("world", world),
            ("source", d.event.source),
            ("object_id", d.event.object_id),
            ("op", d.event.op),
            ("revision", d.event.revision),
            ("changed_at", d.changed_at),
            ("received_at", d.event.time),
            ("poll", d.poll),
            ("page", d.page),
            ("resync", d.resync),
        ):
            rows[column].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.SYNC_DELIVERIES)


def run_job(job: SyncJob) -> None:
    """The sync study of a world (`SyncJob`)."""
    known = [f.name for f in dataclasses.fields(SyncSettings)]
    unknown = sorted(set(job.settings) - set(known))
    if unknown:
        raise ConfigError(f"sync.{unknown[0]} is not a sync setting; they are {', '.join(known)}")
    settings = SyncSettings(**job.settings)  # type: ignore[arg-type]
    writer, reader = job.access.profile("writer"), job.access.profile("reader")
    n = run(job.world, job.out, settings, writer, reader, job.access.cache)
    print(f"{job.world.name} sync: {n} scored answers -> {job.out}", file=sys.stderr)
