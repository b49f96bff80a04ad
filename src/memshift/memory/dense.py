"""Dense retrieval for the plain-RAG baseline: records embedded once per revision (cached on
disk per world), questions embedded as queries, cosine similarity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from memshift.retrieval.bm25 import oldest_first
from memshift.retrieval.embeddings import (
    EmbeddingCache,
    VectorIndex,
    embed_queries,
    load_embedder,
)
from memshift.world.records import Record

Ranker = Callable[[str, Sequence[Record]], list[Record]]


def dense_ranker(cache_dir: Path | None = None, embedder_spec: str = "wordllama") -> Ranker:
    embedder = load_embedder(embedder_spec)
    cache = EmbeddingCache(cache_dir, embedder)
    built: dict[str, object] = {}

    def rank(question: str, records: Sequence[Record]) -> list[Record]:
        ordered = oldest_first(records)
        keys = tuple((r.object_id, r.revision) for r in ordered)
        if built.get("keys") != keys:
            vectors = cache.embed_many(list(keys), [r.text for r in ordered])
            built.update(
                keys=keys,
                index=VectorIndex([r.object_id for r in ordered], vectors),
                records={r.object_id: r for r in ordered},
            )
        index: VectorIndex = built["index"]  # type: ignore[assignment]
        by_id: dict[str, Record] = built["records"]  # type: ignore[assignment]
        query = embed_queries(embedder, [question])[0]
        return [by_id[oid] for oid in index.rank(query)]

    return rank
