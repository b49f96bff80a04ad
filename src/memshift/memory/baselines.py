"""Baselines that keep no derived items: BM25 over the live records at query time and the oracle
context (exactly the gold dependency records); dense retrieval is in `dense.py`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.gold.evaluator import BLOCKED
from memshift.gold.tables import dependencies
from memshift.memory.interface import Blocked, Consents, Cost, Question, SystemInputs
from memshift.retrieval.selection import EVIDENCE_BUDGET, Selector, record_tokens
from memshift.world.parse import record_evidence
from memshift.world.records import LiveState, PublicEvent, Record


class LiveRecords:
    """The part every baseline shares: it follows the events and keeps the live records."""

    def __init__(self) -> None:
        self.state = LiveState()
        self._cost = Cost()
        self.consents = Consents()

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        for e in events:
            self.state.apply(e)

    def define(self, item_id: str, version: int, text: str) -> None:
        """Definitions reach a baseline through the question, which names the one in effect."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """A baseline filters the records it reads at query time: none from a scope the asking
        agent lost (MemShift F.10)."""
        self.consents.set(agent, scope, allowed)

    def set_writer(self, writer: object) -> None:
        """Baselines derive nothing, so there is no writer to switch."""

    def export(self, path: Path) -> None:
        raise MemshiftError(f"{type(self).__name__} keeps no store to export")

    def import_(self, path: Path) -> None:
        raise MemshiftError(f"{type(self).__name__} keeps no store to import into")

    def cost(self) -> Cost:
        return self._cost

    def _as_evidence(self, records: Sequence[Record]) -> list[str]:
        ordered = sorted(records, key=lambda r: (r.updated, r.object_id))
        return [record_evidence(r) for r in ordered]


class NoStoreBM25(LiveRecords):
    name = "bm25"

    def __init__(self, budget: int = EVIDENCE_BUDGET) -> None:
        super().__init__()
        self.budget = budget
        self._selector: Selector | None = None

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        super().ingest(events, now)
        self._selector = None

    def query(self, question: Question) -> list[str] | Blocked:
        """The records BM25 ranks first for the question, none of a scope the asking agent lost;
        blocked only when the agent lost every declared source of the item."""
        blocked = self.consents.all_lost(question)
        if blocked is not None:
            return blocked
        if self._selector is None:
            self._selector = Selector.over(list(self.state.records.values()))
        lost = self.consents.lost(question.agent)
        return self._as_evidence(self._selector.select(question.question, self.budget, lost))


class OracleContext(LiveRecords):
    """Exactly the records the gold value depends on (a control no memory can be), by item and
    time (a direct probe and a premise probe of one item-time get the same records)."""

    name = "oracle"

    def __init__(
        self,
        dependencies: Mapping[tuple[str, datetime], Sequence[tuple[str, int]]],
        blocked: Collection[tuple[str, datetime]] = frozenset(),
        budget: int = EVIDENCE_BUDGET,
    ) -> None:
        super().__init__()
        self.dependencies = dependencies
        self.blocked = blocked
        self.budget = budget

    def query(self, question: Question) -> list[str] | Blocked:
        """The gold dependency records; blocked exactly where gold is (a control)."""
        if (question.item.item_id, question.time) in self.blocked:
            return Blocked("gold blocks this item for the asking agent")
        records = [
            self.state.records[oid]
            for oid, _ in self.dependencies[question.item.item_id, question.time]
            if oid in self.state.records
        ]
        budget, kept = self.budget, []
        for record in sorted(records, key=lambda r: (r.updated, r.object_id), reverse=True):
            if record_tokens(record) <= budget:
                kept.append(record)
                budget -= record_tokens(record)
        return self._as_evidence(kept)


def bm25_system(inputs: SystemInputs) -> NoStoreBM25:
    return NoStoreBM25(inputs.evidence_budget)


def oracle_system(inputs: SystemInputs) -> OracleContext:
    gold = read_table(layout.gold(inputs.world_dir, inputs.branch), schemas.GOLD)
    blocked = {
        (item, time)
        for item, time, status in zip(
            gold.column("item_id").to_pylist(),
            gold.column("time").to_pylist(),
            gold.column("status").to_pylist(),
            strict=True,
        )
        if status == BLOCKED
    }
    return OracleContext(dependencies(gold), blocked, inputs.evidence_budget)
