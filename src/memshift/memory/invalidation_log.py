"""What a system reported invalidating (`MemorySystem.invalidations`), checked against the world
it followed and laid out as the rows of its invalidation log."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime

import pyarrow as pa

from memshift import schemas
from memshift.errors import MemshiftError
from memshift.memory.interface import Invalidation, MemorySystem, reports_invalidations


def invalidation_log(
    system: MemorySystem, name: str, checkpoints: Sequence[datetime], item_ids: Collection[str]
) -> pa.Table | None:
    """The invalidation log of a system that has followed a branch, or None when it does not
    report invalidations."""
    if not reports_invalidations(system):
        return None
    found = system.invalidations()  # type: ignore[attr-defined]
    if isinstance(found, (str, bytes)) or not isinstance(found, Sequence):
        raise MemshiftError(
            f"system {name}: invalidations() returned a {type(found).__name__}, not a list "
            "of memshift.memory.interface.Invalidation"
        )
    return invalidation_table(found, checkpoints, item_ids, name)


def invalidation_table(
    found: Sequence[Invalidation],
    checkpoints: Sequence[datetime],
    item_ids: Collection[str],
    name: str,
) -> pa.Table:
    """One row per item and checkpoint the system invalidated it at, in checkpoint and item
    order; MemshiftError naming the system and the entry when an entry is not an
    `Invalidation`, names an item the world does not have, or is not at a checkpoint."""
    index = {_utc(t): k for k, t in enumerate(checkpoints)}
    rows: dict[tuple[int, str], str] = {}
    for n, entry in enumerate(found):
        if not isinstance(entry, Invalidation):
            raise MemshiftError(
                f"system {name}: invalidation {n} is a {type(entry).__name__}, not an Invalidation"
            )
        if not isinstance(entry.item_id, str) or entry.item_id not in item_ids:
            raise MemshiftError(
                f"system {name}: invalidation {n} names {entry.item_id!r}, not an item of this "
                "world"
            )
        checkpoint = index.get(_utc(entry.at)) if isinstance(entry.at, datetime) else None
        if checkpoint is None:
            raise MemshiftError(
                f"system {name}: invalidation {n} of {entry.item_id} is at {entry.at!r}, not a "
                "checkpoint (the `now` of an ingest call)"
            )
        rows.setdefault((checkpoint, entry.item_id), str(entry.reason))
    ordered = sorted(rows.items())
    return pa.Table.from_pydict(
        {
            "item_id": [item for (_, item), _ in ordered],
            "checkpoint": [k for (k, _), _ in ordered],
            "invalidated": [True] * len(ordered),
            "reason": [reason for _, reason in ordered],
        },
        schema=schemas.INVALIDATIONS,
    )


def _utc(t: datetime) -> datetime:
    """A time as the naive UTC the world's times are in (an aware time converted)."""
    return t if t.tzinfo is None else t.astimezone(UTC).replace(tzinfo=None)
