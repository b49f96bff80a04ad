"""HoldMem's detection side: writes, keys, invalidation and re-derivation at each checkpoint.

One write per item at the fork from the full history is shared by every cell. After the fork, at
each checkpoint, the memory ingests the interval's events and then, by its detection policy:

- `append` (B=0): derives a new item from the delta, the records of the item's sources that
  arrived since its last write, and never invalidates; the writer is not asked if the delta is
  empty, and when the writer says that nothing in the delta bears on the item, no item is
  written (the slot keeps serving what it served, and its next delta starts from the same last
  write);
- `source`, `citation`, `oracle`, `scope` (B=1): invalidates an item whose key changed and
  re-derives it from a fresh selection with the current writer;
- `refresh`: re-derives when the source key changes but keeps the old item beside the new;
- `upsert`: writes like `append`, but a new item retires the slot's older ones;
- `leaky` (a validation control): the source key, but blind to a seeded quarter of the item
  slots of each world, whose key changes it records without invalidating; its m is known;
- `audit` (B decided by a model): an auditor reads each item whose sources received records
  since its last write and proposes old-to-new transitions; the gate (`memshift.audit.gate`)
  verifies their provenance and chronology, and only a verified transition invalidates the item,
  which is then re-derived like a keyed one. Every candidate and decision is logged.

Repair (D) is applied later, to these same writes, by `repair.py`, so D cannot change detection.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from memshift.gold.tables import Dependencies
from memshift.memory.keys import (
    EventCounts,
    citation_key,
    oracle_key,
    scope_key,
    source_key,
)
from memshift.memory.writes import MaintenanceRow, WriteRecord, writer_id, written
from memshift.models.client import ModelClient
from memshift.models.replies import Reply
from memshift.models.requests import CallContext, WriterRequest
from memshift.registry import DETECTION_STEPS, load
from memshift.retrieval.budgets import evidence_budget
from memshift.retrieval.queries import item_query
from memshift.retrieval.selection import Selector
from memshift.vocabulary import DETECTIONS, KEYED, LEAKY_BLIND_SHARE
from memshift.world.items import Item
from memshift.world.records import LiveState, PublicEvent, Record

if TYPE_CHECKING:
    from memshift.audit.arbiter import AuditRow


class Directive(Protocol):
    directive: str
    reason: str


class DetectionStep(Protocol):
    """A detection's own code run at each checkpoint before the keys: for each item it decides
    on, a directive ("repair" re-derives the item)."""

    def verdicts(
        self, detector: HoldMemDetector, now: datetime, checkpoint: int
    ) -> dict[str, Directive]: ...


@dataclass
class Slot:
    served: list[str] = field(default_factory=list)
    key: str = ""
    last_write: datetime | None = None
    cited: tuple[str, ...] = ()
    writer: str = ""  # the writer of the item the slot serves


class HoldMemDetector:
    def __init__(
        self,
        items: Sequence[Item],
        detection: str,
        client: ModelClient,
        context: CallContext,
        gold_deps: Dependencies | None = None,
        auditor: ModelClient | None = None,
    ) -> None:
        if detection not in DETECTIONS:
            raise ValueError(f"unknown detection {detection!r}; choose one of {DETECTIONS}")
        if detection == "oracle" and gold_deps is None:
            raise ValueError("the oracle key is built from gold: give the gold dependency sets")
        self.gold_deps = gold_deps or {}
        self.items = list(items)
        self.detection = detection
        self.client = client
        self.auditor = auditor or client
        self.context = context
        self.writer = writer_id(client)
        self.state = LiveState()
        self.counts = EventCounts()
        self.slots: dict[str, Slot] = {i.item_id: Slot() for i in self.items}
        self.writes: list[WriteRecord] = []
        self.maintenance: list[MaintenanceRow] = []
        self.audits: list[AuditRow] = []
        # the code of a detection that goes beyond keys (the audit), loaded only for it
        self.step: DetectionStep | None = (
            load(DETECTION_STEPS[detection])() if detection in DETECTION_STEPS else None
        )
        # every revision seen, so an audit can show the item's citations as they were cited
        self.versions: dict[tuple[str, int], Record] = {}
        self.served: dict[int, dict[str, tuple[str, ...]]] = {}
        # the live records of each set of sources in time order, until the next events
        self._live_by_sources: dict[tuple[str, ...], tuple[Record, ...]] = {}

    # ---- events ------------------------------------------------------------------------------

    def ingest(self, events: Sequence[PublicEvent]) -> None:
        self._live_by_sources.clear()
        for e in events:
            self.state.apply(e)
            if e.op in ("insert", "update", "delete"):
                self.counts.add(e.source, e.cluster, e.object_id)
            record = self.state.records.get(e.object_id) if e.op != "delete" else None
            if record is not None:
                self.versions[(record.object_id, record.revision)] = record

    def version(self, item: Item) -> int:
        return self.state.definition_versions.get(item.item_id, 1)

    # ---- keys --------------------------------------------------------------------------------

    def key(self, item: Item, now: datetime, cited: Sequence[str], writer: str = "") -> str:
        """The item's key now, with the current writer unless `writer` names another."""
        version = self.version(item)
        writer = writer or self.writer
        if self.detection == "citation":
            return citation_key(cited, self.counts, version, writer)
        if self.detection == "oracle":
            return oracle_key(self.gold_deps[(item.item_id, now)], version)
        if self.detection == "scope" and item.is_definition:
            return scope_key(item, self.state, now, version)
        return source_key(item, self.counts, version, writer)

    def why_changed(self, item: Item, now: datetime, slot: Slot) -> str:
        """Why a slot's key changed: "writer changed" when its key under the writer of what it
        serves is the key it holds (only the writer differs), else "key changed"."""
        if slot.writer and slot.writer != self.writer:
            if self.key(item, now, slot.cited, slot.writer) == slot.key:
                return "writer changed"
            return "key changed; writer changed"
        return "key changed"

    def switch_writer(self, client: ModelClient) -> None:
        """Write with `client` from now on; its id enters every key that holds the writer."""
        self.client = client
        self.writer = writer_id(client)

    # ---- writing -----------------------------------------------------------------------------

    def _live(self, item: Item) -> tuple[Record, ...]:
        """The live records of the item's sources in time order: sorted once per set of sources
        between events, not once per item (every item of a checkpoint asks)."""
        found = self._live_by_sources.get(item.sources)
        if found is None:
            records = [r for r in self.state.records.values() if r.source in item.sources]
            found = tuple(sorted(records, key=lambda r: (r.updated, r.object_id)))
            self._live_by_sources[item.sources] = found
        return found

    def since_last_write(self, item: Item) -> list[Record]:
        """The live records of the item's sources that arrived or changed since its last write."""
        since = self.slots[item.item_id].last_write
        return [r for r in self._live(item) if since is None or r.updated > since]

    def call_context(self, item: Item, checkpoint: int) -> CallContext:
        return replace(self.context, item=item.item_id, checkpoint=checkpoint)

    def _requests(
        self,
        plans: list[tuple[Item, str, list[Record] | None, datetime | None]],
        now: datetime,
        checkpoint: int,
    ) -> list[WriterRequest]:
        selectors: dict[tuple[str, ...], Selector] = {}
        requests = []
        budget = evidence_budget(self.client.profile, "writer")
        for item, _, delta, since in plans:
            query = item_query(item, self.version(item))
            if delta is None:
                sources = item.sources
                if sources not in selectors:
                    selectors[sources] = Selector.over(self._live(item))
                selection = selectors[sources].select(query, budget)
            else:
                selection = Selector.over(delta).select(query, budget)
            requests.append(
                WriterRequest(
                    item,
                    self.version(item),
                    now,
                    selection,
                    since,
                    self.call_context(item, checkpoint),
                )
            )
        return requests

    def _record(
        self, request: WriterRequest, reply: Reply, kind: str, checkpoint: int
    ) -> WriteRecord:
        write = written(request, reply, kind, checkpoint)
        self.writes.append(write)
        return write

    def write_all(
        self,
        plans: list[tuple[Item, str, list[Record] | None, datetime | None]],
        now: datetime,
        checkpoint: int,
    ) -> list[WriteRecord]:
        requests = self._requests(plans, now, checkpoint)
        replies = self.client.generate(requests)
        return [
            self._record(q, a, plan[1], checkpoint)
            for q, a, plan in zip(requests, replies, plans, strict=True)
        ]

    # ---- the fork and the checkpoints ----------------------------------------------------------

    def adopt_prefork(self, writes: Sequence[WriteRecord], now: datetime) -> None:
        """Start from the shared pre-fork store (identical for every cell of a world)."""
        for write in writes:
            slot = self.slots[write.item_id]
            item = next(i for i in self.items if i.item_id == write.item_id)
            self.writes.append(write)
            slot.served = [write.write_id]
            slot.last_write = now
            slot.cited = tuple(c["object_id"] for c in write.citations)
            slot.key = self.key(item, now, slot.cited)
            slot.writer = self.writer
        self._freeze(0)

    def prefork_writes(self, now: datetime) -> list[WriteRecord]:
        return self.write_all([(i, "prefork", None, None) for i in self.items], now, 0)

    def checkpoint(self, now: datetime, checkpoint: int) -> None:
        plans: list[tuple[Item, str, list[Record] | None, datetime | None]] = []
        keys_before: dict[str, str] = {}
        reasons: dict[str, str] = {}
        verdicts = self.step.verdicts(self, now, checkpoint) if self.step is not None else {}
        for item in self.items:
            slot = self.slots[item.item_id]
            keys_before[item.item_id] = slot.key
            if self.detection == "audit":
                verdict = verdicts.get(item.item_id)
                if verdict is not None and verdict.directive == "repair":
                    plans.append((item, "rederive", None, None))
                    reasons[item.item_id] = verdict.reason
                continue
            if self.detection in ("append", "upsert"):
                delta = self.since_last_write(item)
                if delta:
                    plans.append((item, "delta", delta, slot.last_write))
                    reasons[item.item_id] = f"{len(delta)} new or changed records"
                continue
            current = self.key(item, now, slot.cited)
            if self.detection == "refresh":
                current = source_key(item, self.counts, self.version(item), self.writer)
            if current != slot.key and self.detection == "leaky" and self.blind(item):
                slot.key = current
                reasons[item.item_id] = "key changed; the leaky control is blind to this slot"
                continue
            if current != slot.key:
                kind = "refresh" if self.detection == "refresh" else "rederive"
                plans.append((item, kind, None, None))
                reasons[item.item_id] = self.why_changed(item, now, slot)
        written = {w.item_id: w for w in self.write_all(plans, now, checkpoint)}
        for item in self.items:
            self._maintain(
                item,
                written.get(item.item_id),
                keys_before[item.item_id],
                reasons.get(item.item_id, ""),
                now,
                checkpoint,
            )
        self._freeze(checkpoint)

    def blind(self, item: Item) -> bool:
        """Whether the leaky control ignores this slot: a seeded draw per world and item."""
        digest = hashlib.sha256(f"leaky|{self.context.world}|{item.item_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < LEAKY_BLIND_SHARE

    def write_of(self, write_id: str) -> WriteRecord:
        return next(w for w in reversed(self.writes) if w.write_id == write_id)

    def _maintain(
        self,
        item: Item,
        write: WriteRecord | None,
        key_before: str,
        reason: str,
        now: datetime,
        checkpoint: int,
    ) -> None:
        slot = self.slots[item.item_id]
        if write is not None and not write.new_item:
            reason = f"{reason}; the writer found nothing on the item in them"
        invalidated = self.detection in KEYED and write is not None
        if write is not None and write.new_item:
            cited = tuple(c["object_id"] for c in write.citations)
            if self.detection == "upsert" or invalidated:
                slot.served = [write.write_id]
            else:
                slot.served = [*slot.served, write.write_id]
            slot.last_write = now
            slot.cited = cited
            slot.key = self.key(item, now, cited)
            slot.writer = self.writer
        self.maintenance.append(
            MaintenanceRow(
                item.item_id,
                checkpoint,
                invalidated,
                reason,
                key_before,
                slot.key,
                write is not None and write.new_item,
                write.write_id if write else "",
            )
        )

    def _freeze(self, checkpoint: int) -> None:
        self.served[checkpoint] = {i: tuple(s.served) for i, s in self.slots.items()}
