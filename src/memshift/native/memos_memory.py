"""MemOS (`MemoryOS` 2.0.33, its server-free `general_text` memory, as MemShift C.5 runs it)
behind the memory interface, through its own calls, in an environment of its own
(`environments/native.sh memos`: its pins clash with memshift's; `native/bridge.py`).

MemOS is a fact memory: every record event reaches it as text the person shares, a deletion as a
tombstone sentence, a stated redefinition as a sentence (`native/shared_text.py`). The events of
one `ingest` go in batches of `batch` messages: each batch is one `extract` (MemOS's own
extraction prompt, one LLM call) whose memories are then `add`ed. MemOS never updates or deletes a
memory on its own, so what it was told stays (documented (D,B) = (0,0)). A question is MemOS's
`search`; its memories, in the order they were added, are the evidence the shared reader reads.
Its LLM and its embedder are an OpenAI-compatible server (a model profile's `base_url`), its
vector store a local Qdrant folder under `workdir`. A call that fails is the system's behaviour:
counted and logged, not retried."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from memshift.errors import MemshiftError
from memshift.memory.interface import Cost, Question
from memshift.memory.under_test import QueryFailed
from memshift.native.bridge import REPLY_TIMEOUT_S, LibraryFailure, searched, started
from memshift.native.shared_text import RECORD_OPS, definition_text, event_text
from memshift.world.records import PublicEvent

LIBRARY = "memos"


class MemOSMemory:
    """MemOS for one branch of one world, in a process of its own environment."""

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
        python: str = "",
        reply_timeout_s: int = REPLY_TIMEOUT_S,
    ) -> None:
        self.bridge = started(
            LIBRARY,
            "MemOS",
            workdir,
            python,
            {
                "base_url": base_url,
                "model": model,
                "api_key": api_key,
                "embedder_model": embedder_model,
                "embedder_base_url": embedder_base_url or base_url,
                "embedding_dims": embedding_dims,
            },
            # MemOS gives its embedder 5 s a request by default: too little for a CPU server
            {"MOS_EMBEDDER_TIMEOUT": "600"},
            reply_timeout_s,
        )
        self.batch = batch
        self.top_k = top_k
        self.adds = 0
        self.failures: list[str] = []

    def _add(self, texts: Sequence[str]) -> None:
        for start in range(0, len(texts), self.batch):
            self.adds += 1
            try:
                self.bridge.call("add", messages=list(texts[start : start + self.batch]))
            except LibraryFailure as exc:
                self.failures.append(str(exc)[:300])

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._add([event_text(e) for e in events if e.op in RECORD_OPS])

    def define(self, item_id: str, version: int, text: str) -> None:
        self._add([definition_text(item_id, text)])

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """MemOS's text memory keeps no agents or scopes: consent is not modelled."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("MemOS's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str] | QueryFailed:
        """MemOS's memories for the question, oldest first."""
        found = searched(self.bridge, "MemOS", question.question, self.top_k)
        if isinstance(found, QueryFailed):
            return found
        return [str(m["memory"]) for m in sorted(found, key=lambda m: int(m["order"]))]

    def export(self, path: Path) -> None:
        memories = self.bridge.call("memories")
        Path(path).write_text(json.dumps(memories, indent=2, sort_keys=True))

    def import_(self, path: Path) -> None:
        raise MemshiftError("MemOS keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.adds)

    def close(self) -> None:
        self.bridge.close()
