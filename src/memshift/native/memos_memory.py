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

from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from memshift.native.bridged import BridgedMemory, in_order_added
from memshift.native.shared_text import RECORD_OPS, definition_text, event_text
from memshift.world.records import PublicEvent


class MemOSMemory(BridgedMemory):
    """MemOS for one branch of one world, in a process of its own environment."""

    library = "memos"
    shown = "MemOS"
    # MemOS gives its embedder 5 s a request by default: too little for a CPU server
    environment: ClassVar[dict[str, str]] = {"MOS_EMBEDDER_TIMEOUT": "600"}

    def __init__(self, *, batch: int = 20, **common: Any) -> None:
        super().__init__(**common)
        self.batch = batch

    def _add(self, texts: Sequence[str]) -> None:
        """The texts in batches of `batch`, each one extraction and add (one call)."""
        for start in range(0, len(texts), self.batch):
            batch = list(texts[start : start + self.batch])
            self._call("add", [f"{len(batch)} messages"], messages=batch)

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._add([event_text(e) for e in events if e.op in RECORD_OPS])

    def define(self, item_id: str, version: int, text: str) -> None:
        self._add([definition_text(item_id, text)])

    def evidence(self, found: list[Any]) -> list[str]:
        """MemOS's memories for the question, oldest first."""
        return in_order_added(found)

    def stored(self) -> Any:
        return self.bridge.call("memories")
