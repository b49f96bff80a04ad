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
    # the scopes (sources) of the records the write read (its selection) and of those it cited:
    # what a B=1 cell revokes by when an agent loses a scope (MemShift F.10)
    read_scopes: tuple[str, ...] = ()
    cited_scopes: tuple[str, ...] = ()

    def scopes(self, read_set: str) -> tuple[str, ...]:
        """The scopes of its read set by `read_set` (`vocabulary.READ_SETS`)."""
        return getattr(self, SCOPE_FIELDS[read_set])


# the field (and store table column) of each read set
SCOPE_FIELDS = {"selection": "read_scopes", "citations": "cited_scopes"}


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
