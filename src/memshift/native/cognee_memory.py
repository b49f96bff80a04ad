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

from typing import Any

from memshift.native.bridged import BridgedDocuments


class CogneeMemory(BridgedDocuments):
    """Cognee for one branch of one world, in a process of its own environment."""

    library = "cognee"
    shown = "Cognee"

    def __init__(self, **common: Any) -> None:
        super().__init__(**common)
        self.documents: dict[str, str] = {}  # object id -> the key of its live item
        self.added: dict[str, int] = {}  # item key -> when it was added (0, 1, ...)

    def _replace(self, latest: dict[str, tuple[str | None, str]]) -> None:
        """Each object's item replaced by its latest text (None: deleted): the old items deleted
        one by one, the new ones added in one call."""
        for object_id in latest:
            old = self.documents.pop(object_id, None)
            if old is not None:
                self._call("delete", [old], key=old)
        live = {o: (text, key) for o, (text, key) in latest.items() if text is not None}
        items = [{"key": key, "text": text} for text, key in live.values()]
        if items and self._call("put", [i["key"] for i in items], items=items):
            for object_id, (_, key) in live.items():
                self.documents[object_id] = key
                self.added[key] = len(self.added)

    def evidence(self, found: list[Any]) -> list[str]:
        """Cognee's chunks for the question, oldest item first; a chunk of an item this adapter
        did not add (none should be) goes first."""
        ordered = sorted(found, key=lambda h: (self.added.get(str(h["key"]), -1), h["text"]))
        return [str(h["text"]) for h in ordered]

    def stored(self) -> Any:
        return {"items": self.bridge.call("keys")}
