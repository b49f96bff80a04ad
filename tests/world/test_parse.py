"""Reading rendered records back: the inverse of the templates, for every kind of record."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import world
from memshift.simulator.rewriter import OfflineRewriter
from memshift.world import working_hours
from memshift.world.parse import parse_evidence, parse_text, record_evidence
from memshift.world.records import snapshots
from memshift.world.render import render
from memshift.world.rewrite import rewrite_events


def test_every_live_record_parses_back_to_its_source_kind_and_fields(world_1000):
    state = next(snapshots(list(world_1000.events), [world_1000.timeline.end]))
    kinds = Counter()
    for record in state.records.values():
        parsed = parse_evidence(record_evidence(record))
        assert parsed is not None, record.text[:80]
        assert (parsed.object_id, parsed.revision, parsed.updated) == (
            record.object_id, record.revision, record.updated
        )  # fmt: skip
        assert (parsed.source, parsed.kind) == (record.source, record.kind)
        for name, value in parsed.fields.items():
            if name in record.fields and name not in ("channel", "topic"):
                assert value == record.fields[name], (record.kind, name)
        if record.kind == "note":
            working = record.fields.get("topic") == "working_hours"
            assert (parsed.fields["topic"] == "working_hours") == working
        kinds[record.kind] += 1
    assert set(kinds) == {"message", "meeting", "series", "appointment", "settings", "card",
                          "task", "note"}  # fmt: skip


def test_text_that_is_not_a_record_is_not_parsed():
    assert parse_evidence("As of 2026-10-01, the user's employer is: Kestrel Labs.") is None
    assert parse_evidence("[x r1 | 2026-01-01 00:00] just some words") is None


def _note(title: str, body: str) -> str:
    return render("notes", "note", {"title": title}, body)


@pytest.mark.parametrize(
    "body",
    [
        "From now on I'm in by 08:30 and logging off at 17:00, no more late evenings.",
        "No more late evenings: logging off at 17:00, and in by 08:30 from now on.",
        "Reachable from 08:30; after 17:00 my laptop is shut until the morning.",
    ],
)
def test_a_reworded_working_hours_note_still_states_its_hours(body: str) -> None:
    """A rewrite matches no phrasing; under a working-hours title, the two times still give the
    range, the earlier first."""
    parsed = parse_text(_note("New routine", body))
    assert parsed is not None and parsed[2]["hours"] == "08:30-17:00"


def test_two_times_in_an_everyday_note_are_no_working_hours() -> None:
    parsed = parse_text(_note("Saturday", "Market opens at 08:00, the ferry leaves at 17:30."))
    assert parsed is not None and parsed[2]["topic"] == "note" and "hours" not in parsed[2]


def test_titles_of_working_hours_notes_are_read_from_the_phrasings() -> None:
    for title, body in working_hours.NOTES:
        reworded = working_hours.render(body, "07:45-16:15").replace(" am ", " m ")
        parsed = parse_text(_note(title, "So: " + reworded))
        assert parsed is not None and parsed[2]["hours"] == "07:45-16:15", body


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_working_hours_notes_rewritten_offline_parse_to_their_field(seed: int) -> None:
    notes = [e for e in world(seed).events if e.fields.get("topic") == "working_hours"]
    rewritten, _ = rewrite_events(notes, OfflineRewriter(), {})
    for before, after in zip(notes, rewritten, strict=True):
        parsed = parse_text(after.text)
        assert parsed is not None and parsed[2].get("hours") == before.fields["hours"], after.text
