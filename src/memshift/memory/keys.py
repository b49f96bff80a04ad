"""HoldMem's keys: what an item's invalidation is decided by. Keys never depend on repair (D).

- source: event count per declared source, definition version, writer;
- citation: event count per record group holding a cited record, definition version, writer;
- oracle: the gold dependency set, read from gold (a control that sees what no memory can);
- scope: the records a definition ranges over (definition items; other items use the source key).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from memshift.definitions.catalog import definition
from memshift.gold.evaluator import in_scope
from memshift.world.items import Item
from memshift.world.records import LiveState


class EventCounts:
    """Events seen so far, per source and per record group."""

    def __init__(self) -> None:
        self.by_source: Counter[str] = Counter()
        self.by_cluster: Counter[str] = Counter()
        self.cluster_of: dict[str, str] = {}

    def add(self, source: str, cluster: str, object_id: str) -> None:
        self.by_source[source] += 1
        self.by_cluster[cluster] += 1
        if object_id:
            self.cluster_of[object_id] = cluster


def _json(data: object) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def source_key(item: Item, counts: EventCounts, version: int, writer: str) -> str:
    return _json(
        {
            "sources": {s: counts.by_source[s] for s in item.sources},
            "version": version,
            "writer": writer,
        }
    )


def citation_key(cited: Iterable[str], counts: EventCounts, version: int, writer: str) -> str:
    groups = sorted({counts.cluster_of[oid] for oid in cited if oid in counts.cluster_of})
    return _json(
        {"groups": {g: counts.by_cluster[g] for g in groups}, "version": version, "writer": writer}
    )


def oracle_key(deps: Iterable[tuple[str, int]], version: int) -> str:
    return _json({"deps": [list(d) for d in deps], "version": version})


def scope_key(item: Item, state: LiveState, now: datetime, version: int) -> str:
    d = definition(item.item_id, version)
    scope = sorted((r.object_id, r.revision) for r in in_scope(d, state.records.values(), now))
    return _json({"scope": scope, "version": version})
