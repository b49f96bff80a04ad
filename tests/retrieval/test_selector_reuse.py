"""A selector is reused across the detections of a process only over records equal to its own, and
then answers what a new one would; a record's size is what the writer sees of it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.retrieval.selection import Selector, record_tokens
from memshift.tokens import count_tokens
from memshift.world.parse import record_evidence
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


@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(1, 30), st.text(alphabet="abc-_.:", min_size=1, max_size=8))
def test_a_records_size_is_the_count_of_what_the_writer_sees(
    text: str, revision: int, object_id: str
) -> None:
    # the size is summed from its header's count and its text's (cached with its term counts)
    item = replace(record(object_id, text, revision), revision=revision)
    assert record_tokens(item) == count_tokens(record_evidence(item))
