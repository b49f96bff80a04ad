"""A selector is reused across the detections of a process only over records equal to its own, and
then answers what a new one would."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from memshift.retrieval.selection import Selector
from memshift.world.records import Record

QUERY = "where does the user live home city moved"


def record(object_id: str, text: str, minute: int, revision: int = 1) -> Record:
    time = datetime(2026, 10, 1) + timedelta(minutes=minute)
    return Record(object_id, "note", "note", revision, object_id, {"n": minute}, text, time, time)


def records() -> list[Record]:
    return [record(f"n{i}", f"note {i}: the user moved to city {i % 3} " * (i % 4 + 1), i)
            for i in range(30)]  # fmt: skip


def test_equal_records_built_again_get_the_same_selector_and_its_selection() -> None:
    first = Selector.over(records())
    again = Selector.over(records())  # equal records, other objects (another detection's state)
    assert again is first
    assert again.select(QUERY, 200) == Selector(records()).select(QUERY, 200)


def test_records_that_differ_in_any_field_get_a_selector_of_their_own() -> None:
    base = records()
    first = Selector.over(base)
    # same object ids, revisions and times: only the text or the fields differ
    other_text = [replace(base[0], text="home city moved to Lisbon"), *base[1:]]
    other_fields = [replace(base[0], fields={"n": -1}), *base[1:]]
    for changed in (other_text, other_fields):
        selector = Selector.over(changed)
        assert selector is not first
        assert selector.records == tuple(changed)
        assert selector.select(QUERY, 300) == Selector(changed).select(QUERY, 300)
    assert Selector.over(base[:-1]) is not first
