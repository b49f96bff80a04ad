"""Mem0 (the `mem0ai` package, 2.2.1: `pip install -e .[native]`) behind the memory interface,
through its own public API (MemShift C.5).

Every record event reaches Mem0 as text the person shares (`Memory.add`; this release only adds:
one extraction call, never an update or a delete decision): an insert or a revision as the
record's text, a deletion as a tombstone sentence; a stated redefinition as a sentence too. The
events of one `ingest` go in batches of `batch` messages per `add`. A question is Mem0's
`search` for the person; the memories it returns, oldest first, are the evidence the shared
reader reads.

The paper's two interventions (MemShift Table 19) are options. `invalidate="source"` adds each
record event on its own with the record's id and revision as metadata and, before a revision or
a deletion reaches Mem0, deletes through Mem0's own `delete` every memory whose metadata names an
earlier revision of that record: selected by source record, never by gold. `program_view` keeps
the live records the adapter has been given and, for a definition item, puts the value of the
writer's program for the definition in effect (run at query time, `memory/programs.py`) first in
the evidence. Its LLM and its embedder are an OpenAI-compatible server (a model profile's
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
from memshift.gold.evaluator import Value
from memshift.memory.interface import Cost, Question
from memshift.memory.programs import ProgramRunner, source_records
from memshift.memory.repair import render_program
from memshift.native.shared_text import RECORD_OPS, definition_text, event_text
from memshift.world.records import LiveState, PublicEvent

PERSON = "person"


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
        embedder_base_url: str = "",
        batch: int = 20,
        top_k: int = 20,
        invalidate: str = "none",
        programs: ProgramRunner | None = None,
    ) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        # mem0 reads MEM0_TELEMETRY once, when it is imported: what counts is what it read
        telemetry = sys.modules.get("mem0.memory.telemetry")
        if telemetry is not None and getattr(telemetry, "MEM0_TELEMETRY", False):
            raise MemshiftError(
                "mem0 was imported with its telemetry on; set MEM0_TELEMETRY=false before "
                "importing it, or let this adapter import it"
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
                        "openai_base_url": embedder_base_url or base_url,
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
        self.invalidate = invalidate
        self.programs = programs
        self.live = LiveState()
        self.viewed: dict[str, Value] = {}  # probe id -> the program value the view served
        self.adds = 0
        self.deleted = 0  # memories deleted by source-keyed invalidation
        self.failures: list[str] = []

    def _add(self, texts: Sequence[str]) -> None:
        for start in range(0, len(texts), self.batch):
            chunk = texts[start : start + self.batch]
            self.adds += 1
            try:
                self.memory.add([{"role": "user", "content": t} for t in chunk], user_id=PERSON)
            except Exception as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}"[:300])

    def _invalidate(self, object_id: str) -> None:
        """Delete, through Mem0, the memories derived from earlier revisions of a record."""
        try:
            found = self.memory.get_all(
                filters={"user_id": PERSON, "object_id": object_id}, top_k=100_000
            )
            for memory in found.get("results", []):
                self.memory.delete(memory["id"])
                self.deleted += 1
        except Exception as exc:
            self.failures.append(f"invalidate {object_id}: {type(exc).__name__}: {exc}"[:300])

    def _add_one(self, e: PublicEvent) -> None:
        self.adds += 1
        try:
            self.memory.add(
                [{"role": "user", "content": event_text(e)}],
                user_id=PERSON,
                metadata={"object_id": e.object_id, "revision": e.revision},
            )
        except Exception as exc:
            self.failures.append(f"{type(exc).__name__}: {exc}"[:300])

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        for e in events:
            self.live.apply(e)
        records = [e for e in events if e.op in RECORD_OPS]
        if self.invalidate != "source":
            self._add([event_text(e) for e in records])
            return
        for e in records:
            if e.op != "insert":
                self._invalidate(e.object_id)
            self._add_one(e)

    def define(self, item_id: str, version: int, text: str) -> None:
        self._add([definition_text(item_id, text)])

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """Mem0 keeps no agents or scopes: consent is not modelled (every agent is served)."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("Mem0's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str]:
        found = self.memory.search(question.question, top_k=self.top_k, filters={"user_id": PERSON})
        results: list[dict[str, Any]] = found.get("results", [])
        # Mem0 stamps memories with the wall clock and random ids: order by time, then text
        ordered = sorted(results, key=lambda r: (str(r.get("created_at")), str(r.get("memory"))))
        memories = [str(r["memory"]) for r in ordered]
        view = self._program_view(question)
        return memories if view is None else [view, *memories]

    def _program_view(self, question: Question) -> str | None:
        """The writer's program value for a definition item, on the live records, or None."""
        item = question.item
        if self.programs is None or not item.is_definition:
            return None
        version = question.version or self.live.definition_versions.get(item.item_id, 1)
        live = source_records(item, self.live.records.values())
        ok, value, _ = self.programs(item, version, live, question.time)
        if not ok:
            return None
        self.viewed[question.probe_id] = value
        return render_program(item, question.time, value, version, live)

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
