"""The plain-RAG baseline: dense retrieval over the live records, each embedded once per revision
(cached on disk per world), questions embedded as queries, cosine similarity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from memshift.memory.baselines import LiveRecords
from memshift.memory.interface import Blocked, Question, SystemInputs
from memshift.retrieval.bm25 import oldest_first
from memshift.retrieval.embeddings import (
    EmbeddingCache,
    VectorIndex,
    embed_queries,
    load_embedder,
)
from memshift.retrieval.selection import EVIDENCE_BUDGET, SizedRecords
from memshift.world.records import PublicEvent, Record

Ranker = Callable[[str, Sequence[Record]], list[Record]]


def dense_ranker(cache_dir: Path | None = None, embedder_spec: str = "wordllama") -> Ranker:
    embedder = load_embedder(embedder_spec)
    cache = EmbeddingCache(cache_dir, embedder)
    built: dict[str, object] = {}

    def rank(question: str, records: Sequence[Record]) -> list[Record]:
        # the questions of one checkpoint come with the same tuple: ordered and keyed once
        if not (isinstance(records, tuple) and built.get("source") is records):
            ordered = oldest_first(records)
            keys = tuple((r.object_id, r.revision) for r in ordered)
            if built.get("keys") != keys:
                vectors = cache.embed_many([r.text for r in ordered])
                built.update(
                    keys=keys,
                    index=VectorIndex([r.object_id for r in ordered], vectors),
                    records={r.object_id: r for r in ordered},
                )
            built["source"] = records
        index: VectorIndex = built["index"]  # type: ignore[assignment]
        by_id: dict[str, Record] = built["records"]  # type: ignore[assignment]
        query = embed_queries(embedder, [question])[0]
        return [by_id[oid] for oid in index.rank(query)]

    return rank


class PlainRAG(LiveRecords):
    """Dense retrieval over the live records with an embedder that runs offline."""

    name = "rag"

    def __init__(
        self, rank: Callable[[str, Sequence[Record]], list[Record]], budget: int = EVIDENCE_BUDGET
    ) -> None:
        super().__init__()
        self.rank = rank
        self.budget = budget
        self._live: tuple[Record, ...] | None = None
        self._sized: SizedRecords | None = None

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        super().ingest(events, now)
        self._live = None
        self._sized = None

    def query(self, question: Question) -> list[str] | Blocked:
        """The records nearest the question, none of a scope the asking agent lost; blocked
        only when the agent lost every declared source of the item."""
        blocked = self.consents.all_lost(question)
        if blocked is not None:
            return blocked
        if self._live is None:
            self._live = tuple(self.state.records.values())
            self._sized = SizedRecords(self._live)
        records = self._live
        assert self._sized is not None
        lost = self.consents.lost(question.agent)
        ranked = [
            r.object_id for r in self.rank(question.question, records) if r.source not in lost
        ]
        return self._as_evidence(self._sized.within(ranked, self.budget))


def rag_system(inputs: SystemInputs) -> PlainRAG:
    return PlainRAG(dense_ranker(inputs.embedding_cache, inputs.embedder), inputs.evidence_budget)
