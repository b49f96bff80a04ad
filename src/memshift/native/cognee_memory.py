"""Cognee (`cognee` 1.6.5) behind the memory interface, through its own calls, in an environment
of its own (`environments/native.sh cognee`: its pins clash with memshift's; `native/bridge.py`).

Cognee is a document memory, as the paper runs it (MemShift C.5, measured at document level):
every source object is one Cognee data item whose key names the object and its revision; an
insert adds the record's text and runs cognify's own tasks on it (classification, chunking,
graph extraction and a summary per chunk: two LLM calls a chunk), a revision deletes the
object's item (`cognee.datasets.delete_data`) and adds the new text, a deletion deletes it. A
stated redefinition is an item of its own, replaced the same way. The events of one `ingest` are
collapsed to each object's last state, and its new items added and cognified in one call. A
question is Cognee's `search` of type CHUNKS: the chunks it retrieves, in the order their items
were added (oldest first), are the evidence the shared reader reads. Its LLM (through litellm) and
its embedder are an OpenAI-compatible server (a model profile's `base_url`); its stores (LanceDB,
its graph, SQLite) are under `workdir`. A call that fails is the system's behaviour: counted (one
call per item it was about) and logged, not retried."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memshift.errors import MemshiftError
from memshift.memory.interface import Cost, Question
from memshift.memory.under_test import QueryFailed
from memshift.native.bridge import REPLY_TIMEOUT_S, LibraryFailure, searched, started
from memshift.native.shared_text import definition_text, latest_documents
from memshift.world.records import PublicEvent

LIBRARY = "cognee"


class CogneeMemory:
    """Cognee for one branch of one world, in a process of its own environment."""

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
            "Cognee",
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
        self.documents: dict[str, str] = {}  # object id -> the key of its live item
        self.added: dict[str, int] = {}  # item key -> when it was added (0, 1, ...)
        self.calls = 0
        self.failures: list[str] = []

    def _call(self, op: str, keys: Sequence[str], **arguments: Any) -> bool:
        """One request about the items `keys`, each counted as a call (failed if it raised)."""
        self.calls += len(keys)
        try:
            self.bridge.call(op, **arguments)
        except LibraryFailure as exc:
            self.failures += [f"{op} {key}: {exc}"[:300] for key in keys]
            return False
        return True

    def _replace(self, latest: dict[str, tuple[str | None, str]]) -> None:
        """Each object's item replaced by its latest text (None: deleted): the old items deleted
        one by one, the new ones added in one call."""
        for object_id in latest:
            old = self.documents.pop(object_id, None)
            if old is not None:
                self._call("delete", [old], key=old)
        live = {o: (text, key) for o, (text, key) in latest.items() if text is not None}
        if not live:
            return
        items = [{"key": key, "text": text} for text, key in live.values()]
        if self._call("put", [i["key"] for i in items], items=items):
            for object_id, (_, key) in live.items():
                self.documents[object_id] = key
                self.added[key] = len(self.added)

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._replace(latest_documents(list(events)))

    def define(self, item_id: str, version: int, text: str) -> None:
        key = f"definition:{item_id}"
        self._replace({key: (definition_text(item_id, text), f"{key}@{version}")})

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """Cognee's items carry no agents or scopes here: consent is not modelled."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("Cognee's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str] | QueryFailed:
        """Cognee's chunks for the question, oldest item first."""
        hits = searched(self.bridge, "Cognee", question.question, self.top_k)
        if isinstance(hits, QueryFailed):
            return hits
        # a chunk of an item this adapter did not add (none should be) goes first
        return [
            str(h["text"])
            for h in sorted(hits, key=lambda h: (self.added.get(str(h["key"]), -1), h["text"]))
        ]

    def export(self, path: Path) -> None:
        Path(path).write_text(json.dumps({"items": self.bridge.call("keys")}, indent=2))

    def import_(self, path: Path) -> None:
        raise MemshiftError("Cognee keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.calls)

    def close(self) -> None:
        self.bridge.close()
