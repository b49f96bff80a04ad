"""What a native library is given of the world, the same for every library (MemShift C.5): a
record event as the text the person shares, and a stated redefinition as a sentence. A fact
library (Mem0, MemOS) receives a deletion as a tombstone sentence; a document library (LightRAG,
Cognee) deletes the object's document instead."""

from __future__ import annotations

from memshift.timeutil import fmt
from memshift.world.records import PublicEvent

RECORD_OPS = ("insert", "update", "delete")


def event_text(e: PublicEvent) -> str:
    """A record event as shared: the record's text, or for a deletion a tombstone sentence."""
    if e.op == "delete":
        return f"[{e.source} {e.kind}, {fmt(e.time)}] The record {e.object_id} was deleted."
    return f"[{e.source} {e.kind}, {fmt(e.time)}] {e.text}"


def definition_text(item_id: str, text: str) -> str:
    return f"From now on, by {item_id} I mean: {text}"


def latest_documents(events: list[PublicEvent]) -> dict[str, tuple[str | None, str]]:
    """A document library's view of one ingest: each object's last state, as (its text, None
    when deleted; its document id, `<object>@<revision>`)."""
    latest: dict[str, tuple[str | None, str]] = {}
    for e in events:
        if e.op in RECORD_OPS:
            text = None if e.op == "delete" else event_text(e)
            latest[e.object_id] = (text, f"{e.object_id}@{e.revision}")
    return latest
