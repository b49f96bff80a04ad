"""A-Mem (PyPI `a-mem` 0.2.6, Xu et al. 2025) behind the memory interface, through its own calls,
in an environment of its own (`environments/native.sh amem`: its pins clash with memshift's;
`native/bridge.py`).

A-Mem is a fact memory (MemShift C.5): every record event reaches it as a note of the text the
person shares, a deletion as a tombstone note, a stated redefinition as a note, each at the
event's own time and in the order of the events. Each note is one `add_note`: A-Mem's content
analysis (keywords, context, tags) and its memory evolution over the note's nearest neighbours
(links, and new tags and contexts for the neighbours), one LLM call each. A-Mem never deletes or
replaces a note on its own, so what it was told stays (documented (D,B) = (0,0)). A question is
A-Mem's `search`; its notes, in the order they were added, are the evidence the shared reader
reads. Its LLM and its embedder are an OpenAI-compatible server (a model profile's `base_url`),
its store a local Chroma folder under `workdir`. A-Mem catches its own model's failures and
keeps the note without what the model would have derived: those failed calls show in the meter's
rows; a call to A-Mem that raises is counted and logged, not retried."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memshift.native.bridged import BridgedMemory, in_order_added
from memshift.native.shared_text import RECORD_OPS, definition_text, event_text
from memshift.world.records import PublicEvent


def note_time(t: datetime) -> str:
    """A time as A-Mem writes one (YYYYMMDDHHMM)."""
    return t.strftime("%Y%m%d%H%M")


class AMemMemory(BridgedMemory):
    """A-Mem for one branch of one world, in a process of its own environment."""

    library = "amem"
    shown = "A-Mem"

    def _add(self, content: str, time: datetime) -> None:
        self._call("add", [note_time(time)], content=content, time=note_time(time))

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        """Each record event and stated redefinition as a note, in the order of the events."""
        for e in events:
            if e.op in RECORD_OPS:
                self._add(event_text(e), e.time)
            elif e.op == "define":
                self._add(definition_text(e.fields["item"], e.fields["text"]), e.time)

    def define(self, item_id: str, version: int, text: str) -> None:
        """A stated redefinition is a note `ingest` adds at the event's time (A-Mem's notes
        carry their time)."""

    def evidence(self, found: list[Any]) -> list[str]:
        """A-Mem's notes for the question, oldest first."""
        return in_order_added(found)

    def stored(self) -> Any:
        return self.bridge.call("memories")
