"""HippoRAG 2 (`hipporag` 2.0.0a4) behind the memory interface, through its own calls, in an
environment of its own (`environments/native.sh hipporag`: its pins clash with memshift's;
`native/bridge.py`).

HippoRAG is a document memory (MemShift C.5): every source object is one document, the record's
text; an insert indexes it (HippoRAG's OpenIE over it, two LLM calls, its embeddings and graph),
a revision deletes the object's document and indexes the new text, a deletion deletes it. A
stated redefinition is a document of its own, replaced the same way. HippoRAG keys a document by
its text, so a text two live objects share is deleted only with the last of them. The events of
one `ingest` are collapsed to each object's last state: its documents deleted in one call, its
new ones indexed in one. A question is HippoRAG's `retrieve` (its fact recognition, one LLM
call, and personalized PageRank): the documents retrieved, in the order they were indexed
(oldest first), are the evidence the shared reader reads. Its LLM and its embedder are an
OpenAI-compatible server (a model profile's `base_url`); its stores and graph are under
`workdir`. A call that fails is the system's behaviour: counted (one call per document it was
about) and logged, not retried."""

from __future__ import annotations

from typing import Any

from memshift.native.bridged import BridgedDocuments


class HippoRAGMemory(BridgedDocuments):
    """HippoRAG 2 for one branch of one world, in a process of its own environment."""

    library = "hipporag"
    shown = "HippoRAG"

    def __init__(self, **common: Any) -> None:
        super().__init__(**common)
        self.documents: dict[str, str] = {}  # object id -> the text of its live document
        self.holders: dict[str, set[str]] = {}  # document text -> the live objects with it
        self.indexed: dict[str, int] = {}  # document text -> when it was indexed (0, 1, ...)

    def init_settings(self) -> dict[str, Any]:
        return {"top_k": self.top_k}

    def _release(self, object_id: str) -> str | None:
        """The object's document, if no other live object holds its text: to delete."""
        old = self.documents.pop(object_id, None)
        if old is None:
            return None
        holders = self.holders[old]
        holders.discard(object_id)
        if holders:
            return None
        del self.holders[old]
        return old

    def _replace(self, latest: dict[str, tuple[str | None, str]]) -> None:
        """Each object's document replaced by its latest text (None: deleted): the old
        documents deleted in one call, the new ones indexed in one."""
        gone = [old for object_id in latest if (old := self._release(object_id)) is not None]
        self._call("delete", [text[:80] for text in gone], documents=gone)
        new: list[str] = []
        for object_id, (text, _) in latest.items():
            if text is None:
                continue
            if text not in self.holders and text not in new:
                new.append(text)
            self.holders.setdefault(text, set()).add(object_id)
            self.documents[object_id] = text
        if self._call("index", [text[:80] for text in new], documents=new):
            for text in new:
                self.indexed[text] = len(self.indexed)

    def evidence(self, found: list[Any]) -> list[str]:
        """HippoRAG's documents for the question, oldest first; a document this adapter did not
        index (none should be) goes first."""
        return sorted((str(d) for d in found), key=lambda d: (self.indexed.get(d, -1), d))

    def stored(self) -> Any:
        return {"documents": self.bridge.call("documents")}
