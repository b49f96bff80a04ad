"""The statement grammar: what the rule-based writer writes, the rule-based reader reads back."""

from __future__ import annotations

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
