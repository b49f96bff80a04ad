"""What a HoldMem cell stores after repair, as the probing stage reads it back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memshift.gold.evaluator import Value


@dataclass(frozen=True)
class StoredItem:
    write_id: str
    item_id: str
    origin: str  # writer | recomputed | program
    served: bool
    check: str  # not_checked | passed | failed | program_agreed | program_replaced | program_failed
    value: Value
    text: str


def as_value(raw: Any) -> Value:
    return tuple(sorted(raw)) if isinstance(raw, list) else raw


def serve(
    served: Mapping[int, Mapping[str, Sequence[str]]], stored: Mapping[str, StoredItem]
) -> dict[int, dict[str, list[StoredItem]]]:
    """For each checkpoint and item, the stored items the reader may see, oldest first."""
    return {
        k: {item: [stored[w] for w in ids if stored[w].served] for item, ids in slots.items()}
        for k, slots in served.items()
    }
