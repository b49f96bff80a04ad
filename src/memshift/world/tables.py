"""Conversions between a world's typed records and its Parquet and JSON artifacts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Any

import pyarrow as pa

from memshift import schemas
from memshift.definitions.catalog import FIXED_SET
from memshift.world.cast import Cast, Person
from memshift.world.generate import GENERATOR_VERSION, World
from memshift.world.items import Item
from memshift.world.life import AttributeTimeline, LifeScript
from memshift.world.records import Event, canonical_json
from memshift.world.timeline import Timeline


def events_to_table(events: Sequence[Event], *, world: int, branch: str) -> pa.Table:
    rows = schemas.empty_columns(schemas.EVENTS)
    for e in events:
        rows["world"].append(world)
        rows["branch"].append(branch)
        rows["event_id"].append(e.event_id)
        rows["time"].append(e.time)
        rows["op"].append(e.op)
        rows["object_id"].append(e.object_id)
        rows["source"].append(e.source)
        rows["kind"].append(e.kind)
        rows["revision"].append(e.revision)
        rows["cluster"].append(e.cluster)
        rows["fields"].append(canonical_json(e.fields))
        rows["text"].append(e.text)
        rows["asserts"].append(canonical_json(e.asserts))
        rows["component"].append(e.component)
        rows["shift"].append(e.component.startswith("shift:"))
        rows["tokens"].append(e.tokens)
    return pa.Table.from_pydict(rows, schema=schemas.EVENTS)


def table_to_events(table: pa.Table) -> list[Event]:
    columns = table.to_pydict()
    return [
        Event(
            event_id=columns["event_id"][i],
            time=columns["time"][i],
            op=columns["op"][i],
            object_id=columns["object_id"][i],
            source=columns["source"][i],
            kind=columns["kind"][i],
            revision=columns["revision"][i],
            cluster=columns["cluster"][i],
            fields=json.loads(columns["fields"][i]),
            text=columns["text"][i],
            component=columns["component"][i],
            asserts=json.loads(columns["asserts"][i]),
            tokens=columns["tokens"][i],
        )
        for i in range(table.num_rows)
    ]


def world_description(world: World) -> dict[str, Any]:
    """Everything about a world except its events, as JSON (the events go to Parquet)."""
    return {
        "seed": world.seed,
        "generator_version": world.generator_version,
        "history_months": world.timeline.history_months,
        # only a held-out set is named, so the description of a world of the fixed six is as it
        # was before sets existed
        **({} if world.definitions == FIXED_SET else {"definitions": world.definitions}),
        "cast": asdict(world.cast),
        "items": [asdict(i) for i in world.items],
        "script": {
            attribute: [[t.strftime("%Y-%m-%d %H:%M"), v] for t, v in line.changes]
            for attribute, line in world.script.timelines.items()
        },
    }


PERSON_GROUPS = (
    "colleagues",
    "friends",
    "correspondents",
    "tracked_contacts",
    "managers",
    "acquaintances",
    "spares",
)


def _person(data: dict[str, str]) -> Person:
    return Person(data["first"], data["last"])


def world_from_description(data: dict[str, Any], events: Sequence[Event]) -> World:
    if data.get("generator_version") != GENERATOR_VERSION:
        raise ValueError(
            f"world {data.get('seed')} was made by generator {data.get('generator_version')}, "
            f"this is {GENERATOR_VERSION}; regenerate it"
        )
    c = data["cast"]
    fields: dict[str, Any] = {}
    for f in dataclass_fields(Cast):
        raw = c[f.name]
        if f.name == "user":
            fields[f.name] = _person(raw)
        elif f.name in PERSON_GROUPS:
            fields[f.name] = tuple(_person(p) for p in raw)
        elif f.name == "cities":
            fields[f.name] = tuple((city, zone) for city, zone in raw)
        elif f.name == "id_salt":
            fields[f.name] = str(raw)
        else:
            fields[f.name] = tuple(raw)
    cast = Cast(**fields)
    items = tuple(Item(**{**i, "sources": tuple(i["sources"])}) for i in data["items"])
    script = LifeScript(
        {
            attribute: AttributeTimeline(
                [(datetime.strptime(t, "%Y-%m-%d %H:%M"), v) for t, v in line]
            )
            for attribute, line in data["script"].items()
        }
    )
    return World(
        data["seed"],
        Timeline(data["history_months"]),
        cast,
        items,
        script,
        tuple(events),
        data.get("definitions", FIXED_SET),
    )
