"""Reading rendered records back: the inverse of the templates, for every kind of record."""

from __future__ import annotations

from collections import Counter

from memshift.world.parse import parse_evidence, record_evidence
from memshift.world.records import snapshots


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
