"""MemOS (`MemoryOS` 2.0.33, its server-free `general_text` memory, as MemShift C.5 runs it)
through its own calls, in its own environment: `extract` (one LLM call over the shared messages)
then `add`, and `search`. Memory ids are given here, numbered in the order memories were added,
so that a run's ids and the order of its evidence do not depend on MemOS's random ids."""

from __future__ import annotations

import logging
import os
import uuid
from typing import Any

from .loop import installed_version, run

COLLECTION = "memshift"


class MemOS:
    def __init__(self) -> None:
        self.memory: Any = None
        self.added = 0

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
    ) -> dict[str, Any]:
        from memos.configs.memory import GeneralTextMemoryConfig
        from memos.memories.textual.general import GeneralTextMemory

        # MemOS logs every request and reply at INFO
        logging.getLogger("memos").setLevel(logging.WARNING)
        config = GeneralTextMemoryConfig.model_validate(
            {
                "extractor_llm": {
                    "backend": "openai",
                    "config": {
                        "model_name_or_path": model,
                        "api_key": api_key,
                        "api_base": base_url,
                        "temperature": 0.0,
                    },
                },
                "embedder": {
                    "backend": "universal_api",
                    "config": {
                        "provider": "openai",
                        "model_name_or_path": embedder_model,
                        "api_key": api_key,
                        "base_url": embedder_base_url,
                    },
                },
                "vector_db": {
                    "backend": "qdrant",
                    "config": {
                        "collection_name": COLLECTION,
                        "vector_dimension": embedding_dims,
                        "distance_metric": "cosine",
                        "path": os.path.join(workdir, "qdrant"),
                    },
                },
            }
        )
        self.memory = GeneralTextMemory(config)
        return {"library": "MemoryOS", "version": installed_version("MemoryOS")}

    def add(self, *, messages: list[str]) -> int:
        """The memories MemOS extracts from the messages the person shares, added; how many."""
        items = self.memory.extract([{"role": "user", "content": m} for m in messages])
        for item in items:
            self.added += 1
            item.id = str(uuid.UUID(int=self.added))
        self.memory.add(items)
        return len(items)

    def search(self, *, query: str, top_k: int) -> list[dict[str, Any]]:
        """The memories MemOS retrieves, each with the number of its add (oldest first: 1)."""
        return [
            {"memory": item.memory, "order": uuid.UUID(item.id).int}
            for item in self.memory.search(query, top_k)
        ]

    def memories(self) -> list[dict[str, Any]]:
        """Every memory MemOS holds, in the order they were added."""
        found = [
            {"memory": item.memory, "order": uuid.UUID(item.id).int, "key": item.metadata.key}
            for item in self.memory.get_all()
        ]
        return sorted(found, key=lambda m: m["order"])

    def close(self) -> None:
        client = getattr(getattr(self.memory, "vector_db", None), "client", None)
        if client is not None:
            client.close()


def main() -> None:
    run(MemOS, ("init", "add", "search", "memories", "close"))
