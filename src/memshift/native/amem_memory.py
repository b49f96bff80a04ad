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

LIBRARY = "amem"


def note_time(t: datetime) -> str:
    """A time as A-Mem writes one (YYYYMMDDHHMM)."""
    return t.strftime("%Y%m%d%H%M")


class AMemMemory:
    """A-Mem for one branch of one world, in a process of its own environment."""

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
        top_k: int = 20,
        python: str = "",
        reply_timeout_s: int = REPLY_TIMEOUT_S,
    ) -> None:
        self.bridge = started(
            LIBRARY,
            "A-Mem",
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
            reply_timeout_s=reply_timeout_s,
        )
        self.top_k = top_k
        self.adds = 0
        self.failures: list[str] = []

    def _add(self, content: str, time: datetime) -> None:
        self.adds += 1
        try:
            self.bridge.call("add", content=content, time=note_time(time))
        except LibraryFailure as exc:
            self.failures.append(str(exc)[:300])

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

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """A-Mem keeps no agents or scopes: consent is not modelled."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("A-Mem's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str] | QueryFailed:
        """A-Mem's notes for the question, oldest first."""
        found = searched(self.bridge, "A-Mem", question.question, self.top_k)
        if isinstance(found, QueryFailed):
            return found
        return [str(m["memory"]) for m in sorted(found, key=lambda m: int(m["order"]))]

    def export(self, path: Path) -> None:
        memories = self.bridge.call("memories")
        Path(path).write_text(json.dumps(memories, indent=2, sort_keys=True))

    def import_(self, path: Path) -> None:
        raise MemshiftError("A-Mem keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.adds)

    def close(self) -> None:
        self.bridge.close()
