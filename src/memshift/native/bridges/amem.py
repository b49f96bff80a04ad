"""A-Mem (PyPI `a-mem` 0.2.6, the `agentic_memory` package of Xu et al. 2025) through its own
calls, in its own environment: `add_note` (its content analysis and its memory evolution, up to
two LLM calls) and `search`. Note ids and times are given here, the ids numbered in the order
the notes were added and the times the records' own, so that nothing A-Mem sends its model (the
evolution prompt lists neighbours by id and time) depends on its random ids or the clock.

A-Mem embeds with sentence-transformers, whose model comes from the Hugging Face hub. Here its
retriever is given chromadb's own OpenAI embedding function on the study's embedder instead (the
one name A-Mem looks up when it builds its retriever), and the environment leaves
sentence-transformers, transformers and torch out (requirements/native-amem-overrides.txt): the
names A-Mem imports from them are given placeholders that raise if they are ever called."""

from __future__ import annotations

import os
import sys
import types
import uuid
from typing import Any

from .loop import installed_version, run

# what A-Mem imports but never calls once its embedding function is replaced
UNUSED_IMPORTS = {
    "sentence_transformers": ("SentenceTransformer",),
    "transformers": ("AutoModel", "AutoTokenizer"),
}


def _unavailable(module: str, name: str) -> type:
    def refuse(self: object, *args: object, **kwargs: object) -> None:
        raise RuntimeError(f"{module}.{name} is not installed in memshift's A-Mem environment")

    return type(name, (), {"__init__": refuse})


def _placeholders() -> None:
    for module, names in UNUSED_IMPORTS.items():
        if module in sys.modules:
            continue
        placeholder = types.ModuleType(module)
        for name in names:
            setattr(placeholder, name, _unavailable(module, name))
        sys.modules[module] = placeholder


class AMem:
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
        # read when A-Mem builds its OpenAI client, and by litellm when it is imported (no
        # download of its price list)
        os.environ["OPENAI_BASE_URL"] = base_url
        os.environ["OPENAI_API_KEY"] = api_key
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        _placeholders()
        from agentic_memory import retrievers
        from agentic_memory.memory_system import AgenticMemorySystem
        from chromadb.utils.embedding_functions import OpenAIEmbeddingFunction

        def served_embedder(model_name: str, **_: Any) -> Any:
            return OpenAIEmbeddingFunction(
                api_key=api_key, api_base=embedder_base_url, model_name=model_name
            )

        retrievers.SentenceTransformerEmbeddingFunction = served_embedder
        self.memory = AgenticMemorySystem(
            model_name=embedder_model,
            llm_backend="openai",
            llm_model=model,
            api_key=api_key,
            storage_path=os.path.join(workdir, "chroma"),
        )
        return {"library": "a-mem", "version": installed_version("a-mem")}

    def add(self, *, content: str, time: str) -> str:
        """One note, at `time` (YYYYMMDDHHMM, A-Mem's format); its id."""
        self.added += 1
        note_id = str(uuid.UUID(int=self.added))
        found: str = self.memory.add_note(content, time=time, id=note_id, last_accessed=time)
        return found

    def search(self, *, query: str, top_k: int) -> list[dict[str, Any]]:
        """The notes A-Mem retrieves, each with the number of its add (oldest first: 1)."""
        found = []
        for hit in self.memory.search(query, k=top_k):
            note = self.memory.read(hit["id"])
            if note is not None:
                found.append({"memory": note.content, "order": uuid.UUID(hit["id"]).int})
        return found

    def memories(self) -> list[dict[str, Any]]:
        """Every note A-Mem holds, with what it derived of it, in the order they were added."""
        stored = self.memory.retriever.collection.get(include=["metadatas"])
        found = [
            {
                "memory": meta.get("content", ""),
                "order": uuid.UUID(note_id).int,
                "context": meta.get("context", ""),
                "keywords": meta.get("keywords", ""),
                "tags": meta.get("tags", ""),
                "links": meta.get("links", ""),
            }
            for note_id, meta in zip(stored["ids"], stored["metadatas"], strict=True)
        ]
        return sorted(found, key=lambda m: m["order"])

    def close(self) -> None:
        """Chroma writes as it goes; nothing is held open."""


def main() -> None:
    run(AMem, ("init", "add", "search", "memories", "close"))
