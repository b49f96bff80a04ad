"""A system's own invalidation report becomes its log, or one error naming what is wrong."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memshift.errors import MemshiftError
from memshift.memory.interface import Invalidation
from memshift.memory.invalidation_log import invalidation_log, invalidation_table

# naive UTC, as the world's times are
CHECKPOINTS = [datetime(2025, 1, 1) + timedelta(weeks=k) for k in range(3)]
ITEMS = {"a", "b"}
EAST = timezone(timedelta(hours=5))


class Reporting:
    def __init__(self, found: object) -> None:
        self.found = found

    def invalidations(self) -> object:
        return self.found


def test_entries_become_rows_by_checkpoint_and_item_once_each() -> None:
    table = invalidation_table(
        [
            Invalidation("b", CHECKPOINTS[2], "key changed"),
            Invalidation("a", CHECKPOINTS[1]),
            Invalidation("b", CHECKPOINTS[2], "reported twice"),
            # the same instant in another time zone is the same checkpoint
            Invalidation("a", CHECKPOINTS[2].replace(tzinfo=UTC).astimezone(EAST)),
        ],
        CHECKPOINTS,
        ITEMS,
        "mine",
    )
    assert table.to_pylist() == [
        {"item_id": "a", "checkpoint": 1, "invalidated": True, "reason": ""},
        {"item_id": "a", "checkpoint": 2, "invalidated": True, "reason": ""},
        {"item_id": "b", "checkpoint": 2, "invalidated": True, "reason": "key changed"},
    ]


def test_a_system_without_the_method_has_no_log() -> None:
    assert invalidation_log(object(), "bm25", CHECKPOINTS, ITEMS) is None  # type: ignore[arg-type]
    empty = invalidation_log(Reporting([]), "mine", CHECKPOINTS, ITEMS)  # type: ignore[arg-type]
    assert empty is not None and empty.num_rows == 0


@pytest.mark.parametrize(
    ("found", "problem"),
    [
        ("a", "invalidations\\(\\) returned a str, not a list"),
        (None, "invalidations\\(\\) returned a NoneType"),
        ({"a": 1}, "invalidations\\(\\) returned a dict"),
        ([("a", CHECKPOINTS[1])], "invalidation 0 is a tuple, not an Invalidation"),
        ([Invalidation("zz", CHECKPOINTS[1])], "invalidation 0 names 'zz', not an item"),
        ([Invalidation(["a"], CHECKPOINTS[1])], "invalidation 0 names \\['a'\\], not an item"),  # type: ignore[arg-type]
        (
            [Invalidation("a", CHECKPOINTS[1]), Invalidation("a", CHECKPOINTS[1] + timedelta(1))],
            "invalidation 1 of a is at .*, not a checkpoint",
        ),
        (
            [Invalidation("a", CHECKPOINTS[1].replace(tzinfo=EAST))],
            "invalidation 0 of a is at .*, not a",
        ),
        ([Invalidation("a", "2025-01-08")], "invalidation 0 of a is at .2025-01-08., not a"),  # type: ignore[arg-type]
    ],
)
def test_a_bad_report_is_one_error_naming_the_system(found: object, problem: str) -> None:
    with pytest.raises(MemshiftError, match=f"^system mine: {problem}"):
        invalidation_log(Reporting(found), "mine", CHECKPOINTS, ITEMS)  # type: ignore[arg-type]
