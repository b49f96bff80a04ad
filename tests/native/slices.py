"""A small part of a branch that still exercises every update contract: the events of a few
objects that are revised, a few that are deleted and a few left alone (the shortest of each)."""

from __future__ import annotations

from collections.abc import Sequence

from memshift.world.records import PublicEvent


def revised_and_deleted(
    events: Sequence[PublicEvent], *, each: int = 4
) -> tuple[list[PublicEvent], dict[str, list[str]], list[str]]:
    """The events of the chosen objects, each object's ops, and the chosen objects."""
    ops: dict[str, list[str]] = {}
    for e in events:
        if e.op in ("insert", "update", "delete"):
            ops.setdefault(e.object_id, []).append(e.op)
    size = {e.object_id: len(e.text or "") for e in events if e.op == "insert"}
    by_size = sorted(ops, key=lambda o: (size.get(o, 0), o))
    chosen = [o for o in by_size if "update" in ops[o] and "delete" not in ops[o]][:each]
    chosen += [o for o in by_size if "delete" in ops[o]][:each]
    chosen += [o for o in by_size if ops[o] == ["insert"]][:each]
    return [e for e in events if e.object_id in set(chosen)], ops, chosen
