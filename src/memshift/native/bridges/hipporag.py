"""HippoRAG 2 (`hipporag` 2.0.0a4) through its own calls, in its own environment: `index` of
new documents (its OpenIE: named entities, then triples, one LLM call each a document; then the
embeddings of passages, entities and facts, and its graph), `delete` of documents (by their
text, as HippoRAG keys them) and `retrieve` (its fact recognition, one LLM call a question, and
personalized PageRank over its graph).

Two things of HippoRAG's are worked around here, each through its own settings: it picks its
embedding client by a part of the embedding model's name ("text-embedding" for an
OpenAI-compatible server), so it is built with such a name and then given the study's embedder's
own name to send; and `index` leaves its retrieval state as it was, so a `retrieve` after an
`index` would search the graph before the new documents (or fail an assertion), so the state is
marked stale after each `index` as HippoRAG's own `delete` marks it."""

from __future__ import annotations

import logging
import os
from typing import Any

from .loop import installed_version, run

# a name HippoRAG maps to its OpenAI-compatible embedding client (embedding_model/__init__.py)
OPENAI_EMBEDDING = "text-embedding"


class Hippo:
    def __init__(self) -> None:
        self.rag: Any = None

    def init(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        embedder_model: str,
        embedder_base_url: str,
        embedding_dims: int,
        workdir: str,
        top_k: int,
    ) -> dict[str, Any]:
        # HippoRAG's OpenAI clients read the key from the environment
        os.environ["OPENAI_API_KEY"] = api_key
        from hipporag import HippoRAG
        from hipporag.utils.config_utils import BaseConfig

        for name in ("hipporag", "httpx", "openai"):
            logging.getLogger(name).setLevel(logging.WARNING)
        config = BaseConfig(
            save_dir=os.path.join(workdir, "hipporag"),
            llm_name=model,
            llm_base_url=base_url,
            embedding_model_name=OPENAI_EMBEDDING,
            embedding_base_url=embedder_base_url,
            retrieval_top_k=top_k,
            qa_top_k=top_k,
        )
        self.rag = HippoRAG(global_config=config)
        self.rag.embedding_model.embedding_model_name = embedder_model
        return {"library": "hipporag", "version": installed_version("hipporag")}

    def index(self, *, documents: list[str]) -> int:
        """The documents indexed; how many."""
        if documents:
            self.rag.index(documents)
            self.rag.ready_to_retrieve = False
        return len(documents)

    def delete(self, *, documents: list[str]) -> int:
        """The documents deleted (each by its text); how many."""
        if documents:
            self.rag.delete(documents)
        return len(documents)

    def search(self, *, query: str, top_k: int) -> list[str]:
        """The documents HippoRAG retrieves for the question, best first."""
        if not self.rag.chunk_embedding_store.get_all_texts():
            return []
        (solution,) = self.rag.retrieve([query], num_to_retrieve=top_k)
        return [str(doc) for doc in solution.docs]

    def documents(self) -> list[str]:
        """Every document HippoRAG holds, sorted."""
        return sorted(self.rag.chunk_embedding_store.get_all_texts())

    def close(self) -> None:
        """HippoRAG writes its stores and graph as it goes; nothing is held open."""


def main() -> None:
    run(Hippo, ("init", "index", "delete", "search", "documents", "close"))
