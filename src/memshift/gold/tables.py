"""Gold points as rows of the gold table, and back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import pyarrow as pa

from memshift import schemas
from memshift.gold.compute import GoldPoint
from memshift.gold.evaluator import Gold, Value
from memshift.world.items import Item
from memshift.world.records import canonical_json


def value_json(value: Value) -> str | None:
    if value is None:
        return None
    return canonical_json(list(value) if isinstance(value, tuple) else value)


def gold_to_table(points: Sequence[GoldPoint], *, world: int, branch: str) -> pa.Table:
    rows = schemas.empty_columns(schemas.GOLD)
    for p in points:
        rows["world"].append(world)
        rows["branch"].append(branch)
        rows["item_id"].append(p.item.item_id)
        rows["item_class"].append(p.item.item_class)
        rows["value_type"].append(p.item.value_type)
        rows["free_text"].append(p.item.free_text)
        rows["agent"].append(p.item.agent)
        rows["checkpoint"].append(p.checkpoint)
        rows["time"].append(p.time)
        rows["definition_version"].append(p.gold.version)
        rows["status"].append(p.gold.status)
        rows["value"].append(value_json(p.gold.value))
        rows["deps"].append([{"object_id": o, "revision": r} for o, r in p.gold.deps])
        rows["changed"].append(p.changed)
        rows["caused_by_shift"].append(p.caused_by_shift)
        rows["clock_alone"].append(p.clock_alone)
        rows["last_change"].append(p.last_change)
    return pa.Table.from_pydict(rows, schema=schemas.GOLD)


Dependencies = dict[tuple[str, datetime], tuple[tuple[str, int], ...]]


def dependencies(table: pa.Table) -> Dependencies:
    """Each item-time's gold dependency set, keyed by item and checkpoint time."""
    c = table.select(["item_id", "time", "deps"]).to_pydict()
    return {
        (item, time): tuple((d["object_id"], d["revision"]) for d in deps)
        for item, time, deps in zip(c["item_id"], c["time"], c["deps"], strict=True)
    }


def parse_value(text: str | None) -> Value:
    if text is None:
        return None
    parsed = json.loads(text)
    return tuple(parsed) if isinstance(parsed, list) else parsed


def points_from_table(table: pa.Table, items: Sequence[Item]) -> list[GoldPoint]:
    by_id = {i.item_id: i for i in items}
    c = table.to_pydict()
    points = []
    for n in range(table.num_rows):
        gold = Gold(
            c["status"][n],
            parse_value(c["value"][n]),
            tuple((d["object_id"], d["revision"]) for d in c["deps"][n]),
            version=c["definition_version"][n],
        )
        points.append(
            GoldPoint(
                by_id[c["item_id"][n]],
                c["checkpoint"][n],
                c["time"][n],
                gold,
                c["changed"][n],
                c["caused_by_shift"][n],
                c["clock_alone"][n],
                c["last_change"][n],
            )
        )
    return points
