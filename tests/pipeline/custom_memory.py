"""A user's own memory system, as a test names it in a study config: it keeps the live records
and answers with the newest few records of the asked item's sources. It reports invalidations
(the interface's optional method): an item it has been asked about is invalidated at every
checkpoint whose interval brought an event from one of the item's sources."""

from __future__ import annotations

from memshift.memory.interface import Cost, Invalidation, Question
from memshift.world.items import Item
from memshift.world.parse import record_evidence
from memshift.world.records import LiveState


class NewestRecords:
    def __init__(self) -> None:
        self.state = LiveState()
        self.asked = 0
        self.known: dict[str, Item] = {}
        self.stale: list[Invalidation] = []

    def ingest(self, events, now) -> None:
        for event in events:
            self.state.apply(event)
        touched = {e.source for e in events if e.op in ("insert", "update", "delete")}
        self.stale += [
            Invalidation(item.item_id, now, "a source changed")
            for item in self.known.values()
            if touched & set(item.sources)
        ]

    def invalidations(self) -> list[Invalidation]:
        return self.stale

    def define(self, item_id: str, version: int, text: str) -> None:
        self.state.definition_versions[item_id] = version

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """Not modelled by this system."""

    def set_writer(self, writer: object) -> None:
        """This system has no writer."""

    def query(self, question: Question) -> list[str]:
        self.asked += 1
        self.known[question.item.item_id] = question.item
        records = sorted(
            (r for r in self.state.records.values() if r.source in question.item.sources),
            key=lambda r: (r.updated, r.object_id),
        )
        return [record_evidence(r) for r in records[-5:]]

    def export(self, path) -> None:
        raise ValueError("nothing to export")

    def import_(self, path) -> None:
        raise ValueError("nothing to import")

    def cost(self) -> Cost:
        return Cost(calls=self.asked)


class NewestRecordsRenamed(NewestRecords):
    """The same system under another name: a study that switches to it changes one system."""


class PlainText(NewestRecords):
    """The same records as plain text, without the evidence header: what the rule-based reader
    cannot read (docs/memory.md, The evidence contract)."""

    def query(self, question: Question) -> list[str]:
        return [line.split("] ", 1)[1] for line in super().query(question)]
