"""Mem0 (the `mem0ai` package, 2.2.1: `pip install -e .[native]`) behind the memory interface,
through its own public API (MemShift C.5).

Every record event reaches Mem0 as text the person shares (`Memory.add`; this release only adds:
one extraction call, never an update or a delete decision): an insert or a revision as the
record's text, a deletion as a tombstone sentence; a stated redefinition as a sentence too. The
events of one `ingest` go in batches of `batch` messages per `add`. A question is Mem0's
`search` for the person; the memories it returns, oldest first, are the evidence the shared
reader reads. Its LLM and its embedder are an OpenAI-compatible server (a model profile's
`base_url`), its vector store a local Qdrant directory and its history a local SQLite file, all
under `workdir`; telemetry is off and nothing leaves the machine. An `add` that fails is the
system's behaviour: counted and logged, not retried."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memshift.errors import MemshiftError
from memshift.memory.interface import Cost, Question
from memshift.timeutil import fmt
from memshift.world.records import PublicEvent

PERSON = "person"
RECORD_OPS = ("insert", "update", "delete")


def event_text(e: PublicEvent) -> str:
    """What the person shares with Mem0 of one record event."""
    if e.op == "delete":
        return f"[{e.source} {e.kind}, {fmt(e.time)}] The record {e.object_id} was deleted."
    return f"[{e.source} {e.kind}, {fmt(e.time)}] {e.text}"


class Mem0Memory:
    """Mem0 for one branch of one world."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        embedder_model: str,
        embedding_dims: int,
        workdir: Path,
        api_key: str = "local",
        batch: int = 20,
        top_k: int = 20,
    ) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        if "mem0" in sys.modules and os.environ.get("MEM0_TELEMETRY") != "false":
            raise MemshiftError(
                "mem0 was imported before its telemetry was switched off; set "
                "MEM0_TELEMETRY=false before importing it, or let this adapter import it"
            )
        # read by mem0 when it is imported: no telemetry, no files outside `workdir`
        os.environ["MEM0_TELEMETRY"] = "false"
        os.environ["MEM0_DIR"] = str(workdir / "mem0")
        # a set OPENROUTER_API_KEY would send every LLM call to openrouter.ai instead
        os.environ.pop("OPENROUTER_API_KEY", None)
        try:
            from mem0 import Memory
        except ImportError as exc:
            raise MemshiftError(
                "the Mem0 adapter needs the native extra: pip install -e .[native]"
            ) from exc
        self.memory = Memory.from_config(
            {
                "llm": {
                    "provider": "openai",
                    "config": {
                        "model": model,
                        "api_key": api_key,
                        "openai_base_url": base_url,
                        "temperature": 0.0,
                    },
                },
                "embedder": {
                    "provider": "openai",
                    "config": {
                        "model": embedder_model,
                        "api_key": api_key,
                        "openai_base_url": base_url,
                        "embedding_dims": embedding_dims,
                    },
                },
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "memshift",
                        "path": str(workdir / "qdrant"),
                        "on_disk": True,
                        "embedding_model_dims": embedding_dims,
                    },
                },
                "history_db_path": str(workdir / "history.db"),
            }
        )
        self.batch = batch
        self.top_k = top_k
        self.adds = 0
        self.failures: list[str] = []

    def _add(self, texts: Sequence[str]) -> None:
        for start in range(0, len(texts), self.batch):
            chunk = texts[start : start + self.batch]
            self.adds += 1
            try:
                self.memory.add([{"role": "user", "content": t} for t in chunk], user_id=PERSON)
            except Exception as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}"[:300])

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._add([event_text(e) for e in events if e.op in RECORD_OPS])

    def define(self, item_id: str, version: int, text: str) -> None:
        self._add([f"From now on, by {item_id} I mean: {text}"])

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """Mem0 keeps no agents or scopes: consent is not modelled (every agent is served)."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("Mem0's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str]:
        found = self.memory.search(question.question, top_k=self.top_k, filters={"user_id": PERSON})
        results: list[dict[str, Any]] = found.get("results", [])
        ordered = sorted(results, key=lambda r: (str(r.get("created_at")), str(r.get("id"))))
        return [str(r["memory"]) for r in ordered]

    def export(self, path: Path) -> None:
        import json

        memories = self.memory.get_all(filters={"user_id": PERSON}, top_k=100_000)
        Path(path).write_text(json.dumps(memories, indent=2, sort_keys=True, default=str))

    def import_(self, path: Path) -> None:
        raise MemshiftError("Mem0 keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.adds)

    def close(self) -> None:
        """Release the local Qdrant store (Mem0's own close leaves its lock)."""
        self.memory.vector_store.client.close()
