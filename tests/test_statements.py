"""The statement grammar: what the rule-based writer writes, the rule-based reader reads back."""

from __future__ import annotations

import json
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from memshift import statements
from memshift.world import pools

NAMES = st.sampled_from([*pools.ORGANIZATIONS, *pools.PROJECT_NAMES, *pools.TASK_TITLES])


def test_every_gold_value_round_trips(data_1000):
    for p in data_1000["src"].gold.points:
        is_set = p.item.value_type == "entity_set"
        value = p.gold.value if p.gold.status == "answer" else None
        text = statements.render(p.item.label, p.time.date(), value, is_set=is_set)
        assert statements.parse(text, p.item.label, is_set=is_set) == [(p.time.date(), value)]


@given(st.lists(NAMES, unique=True, max_size=6), st.dates(date(2026, 1, 1), date(2026, 12, 31)))
def test_sets_round_trip_in_any_order(members, day):
    text = statements.render("the user's active projects", day, tuple(members), is_set=True)
    ((when, value),) = statements.parse(text, "the user's active projects", is_set=True)
    assert when == day and value == tuple(sorted(members))


def test_other_labels_are_ignored_and_order_of_appearance_is_kept():
    a = statements.render("the user's employer", date(2026, 3, 1), "Old Co", is_set=False)
    b = statements.render("the user's manager", date(2026, 4, 1), "Ana Silva", is_set=False)
    c = statements.render("the user's employer", date(2026, 5, 1), None, is_set=False)
    found = statements.parse(f"{a} Something else. {b} {c}", "the user's employer", is_set=False)
    assert found == [(date(2026, 3, 1), "Old Co"), (date(2026, 5, 1), None)]


def test_every_gold_value_round_trips_as_a_json_record(data_1000):
    """The JSON arm's record of a stored item reads back as the same statement."""
    from memshift.memory.repair import render_json
    from memshift.memory.stored import StoredItem
    from memshift.memory.writes import WriteRecord

    for p in data_1000["def"].gold.points:
        is_set = p.item.value_type == "entity_set"
        value = p.gold.value if p.gold.status == "answer" else None
        write = WriteRecord(
            "w", p.item.item_id, 1, p.time, p.gold.version, "rederive", (), None, "", (), None
        )
        stored = StoredItem("w", p.item.item_id, "recomputed", True, "failed", value, "")
        text = render_json(p.item, write, stored)
        assert statements.parse(text, p.item.label, is_set=is_set) == [(p.time.date(), value)]


def test_a_record_of_another_item_or_a_broken_record_says_nothing():
    record = json.dumps(
        {
            "item": "the user's employer",
            "as_of": "2026-03-01",
            "status": "answer",
            "value": "Old Co",
        }
    )
    assert statements.parse(record, "the user's employer", is_set=False) == [
        (date(2026, 3, 1), "Old Co")
    ]
    for text in (
        record.replace("employer", "manager"),
        record[:-2],
        record.replace('"2026-03-01"', '"soon"'),
        record.replace('"Old Co"', '["Old Co"]'),
        json.dumps({"item": "the user's employer"}),
        "[1, 2]",
        "{" * 10_000,
        '{"item": ' + "[" * 200_000 + "]" * 200_000 + "}",
    ):
        assert statements.parse(text, "the user's employer", is_set=False) == []
