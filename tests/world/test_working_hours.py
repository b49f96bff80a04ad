"""Working-hours notes: several phrasings, some stating the range outright and some its two ends
in words, each parsed back to the typed value exactly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import world
from memshift.config import SPLITS
from memshift.world import working_hours
from memshift.world.parse import parse_text
from memshift.world.render import render

clock = st.tuples(st.integers(5, 11), st.sampled_from((0, 15, 30, 45))).map(
    lambda hm: f"{hm[0]:02d}:{hm[1]:02d}"
)
late = st.tuples(st.integers(13, 20), st.sampled_from((0, 15, 30, 45))).map(
    lambda hm: f"{hm[0]:02d}:{hm[1]:02d}"
)


def test_there_are_several_phrasings_and_several_say_the_range_in_words() -> None:
    bodies = [body for _, body in working_hours.NOTES]
    indirect = [b for b in bodies if "{hours}" not in b]
    assert len(bodies) >= 8 and len(indirect) >= 4
    assert all("{start}" in b and "{end}" in b for b in indirect)


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, len(working_hours.NOTES) - 1), start=clock, end=late)
def test_every_phrasing_parses_back_to_its_hours(index: int, start: str, end: str) -> None:
    title, body = working_hours.NOTES[index]
    hours = f"{start}-{end}"
    text = render("notes", "note", {"title": title}, working_hours.render(body, hours))
    parsed = parse_text(text)
    assert parsed is not None
    assert parsed[2]["topic"] == "working_hours" and parsed[2]["hours"] == hours


@pytest.mark.slow(minutes=0.2)
def test_every_working_hours_note_of_the_test_worlds_parses_to_its_field() -> None:
    notes = [
        e
        for seed in SPLITS["test"]
        for e in world(seed).events
        if e.kind == "note" and e.fields.get("topic") == "working_hours"
    ]
    assert len(notes) >= 40
    for event in notes:
        parsed = parse_text(event.text)
        assert parsed is not None and parsed[2]["hours"] == event.fields["hours"], event.text
    worded = [e for e in notes if working_hours.RANGE.search(e.text) is None]
    assert worded, "no note of the test worlds states its hours in words"


def test_a_note_without_hours_states_none() -> None:
    assert working_hours.stated_hours("Buy stamps, call the plumber, water the ferns.") is None
