"""The grammar's newer clause ops (ne, in, weekend, due_within_days) on hand-built records."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memshift.definitions.catalog import (
    SIX,
    Clause,
    Definition,
    default_wording,
    describe,
    worded,
)
from memshift.gold.evaluator import apply_definition, in_scope
from memshift.timeutil import fmt, fmt_date
from memshift.world.records import Record

NOW = datetime(2026, 10, 14, 12, 0)  # a Wednesday
SATURDAY = datetime(2026, 10, 10, 11, 0)
SUNDAY = datetime(2026, 10, 11, 23, 59)
FRIDAY = datetime(2026, 10, 9, 23, 59)
MONDAY = datetime(2026, 10, 12, 0, 0)


def rec(object_id: str, source: str, kind: str, fields: dict[str, object]) -> Record:
    updated = NOW - timedelta(days=1)
    return Record(object_id, source, kind, 1, object_id, fields, "", updated, updated)


def mail(object_id: str, sender: str, category: str, sent: datetime) -> Record:
    return rec(
        object_id,
        "email",
        "message",
        {"sender": sender, "category": category, "sent": fmt(sent), "starred": False},
    )


def task(object_id: str, title: str, due: str | None, status: str = "open") -> Record:
    return rec(object_id, "tasks", "task", {"title": title, "due": due, "status": status})


def count_senders(*conditions: Clause, threshold: int = 1) -> Definition:
    return Definition(
        "t",
        "def.t",
        1,
        "T",
        "email",
        "message",
        conditions,
        "count",
        "sender",
        "e-mails",
        key_phrase="people who sent",
        window_days=30,
        window_field="sent",
        threshold=threshold,
    )


def task_titles(*conditions: Clause) -> Definition:
    return Definition(
        "u", "def.u", 1, "U", "tasks", "task", conditions, "members", "title", "tasks"
    )


MAILS = [
    mail("a", "Ann", "work", MONDAY),
    mail("b", "Ben", "newsletter", MONDAY),
    mail("c", "Cal", "personal", SATURDAY),
    mail("d", "Dee", "updates", SUNDAY),
    mail("e", "Eve", "work", FRIDAY),
]


def test_ne_keeps_every_other_value() -> None:
    d = count_senders(Clause("category", "ne", "newsletter"))
    assert apply_definition(d, MAILS, NOW).value == ("Ann", "Cal", "Dee", "Eve")


def test_ne_keeps_a_record_without_the_field() -> None:
    bare = rec("x", "email", "message", {"sender": "Xia", "sent": fmt(MONDAY)})
    d = count_senders(Clause("category", "ne", "work"))
    assert "Xia" in (apply_definition(d, [bare], NOW).value or ())


def test_in_keeps_the_listed_values() -> None:
    d = count_senders(Clause("category", "in", ("personal", "updates")))
    assert apply_definition(d, MAILS, NOW).value == ("Cal", "Dee")


def test_weekend_is_saturday_and_sunday_only() -> None:
    d = count_senders(Clause("sent", "weekend"))
    assert apply_definition(d, MAILS, NOW).value == ("Cal", "Dee")


def test_weekend_reads_record_times_too() -> None:
    note = Record(
        "n", "notes", "note", 1, "n", {"title": "Walk"}, "", SATURDAY, SATURDAY + timedelta(days=2)
    )
    assert in_scope(
        Definition(
            "n",
            "def.n",
            1,
            "N",
            "notes",
            "note",
            (Clause("created", "weekend"),),
            "members",
            "title",
            "notes",
        ),
        [note],
        NOW,
    ) == [note]
    assert not in_scope(
        Definition(
            "n",
            "def.n",
            1,
            "N",
            "notes",
            "note",
            (Clause("updated", "weekend"),),
            "members",
            "title",
            "notes",
        ),
        [note],
        NOW,
    )


def test_conditions_combine() -> None:
    d = count_senders(Clause("category", "ne", "newsletter"), Clause("sent", "weekend"))
    assert apply_definition(d, MAILS, NOW).value == ("Cal", "Dee")


def test_due_within_days_is_today_to_today_plus_n() -> None:
    today = NOW.date()
    tasks = [
        task("p", "past", fmt_date(NOW - timedelta(days=1))),
        task("t", "today", fmt_date(NOW)),
        task("s", "seven", fmt_date(NOW + timedelta(days=7))),
        task("e", "eight", fmt_date(NOW + timedelta(days=8))),
        task("n", "none", None),
    ]
    d = task_titles(Clause("due", "due_within_days", 7))
    assert apply_definition(d, tasks, NOW).value == ("seven", "today")
    assert today == NOW.date()
    zero = task_titles(Clause("due", "due_within_days", 0))
    assert apply_definition(zero, tasks, NOW).value == ("today",)


def test_status_and_due_within_days() -> None:
    due = fmt_date(NOW + timedelta(days=2))
    tasks = [task("o", "open one", due), task("d", "done one", due, status="done")]
    d = task_titles(Clause("status", "eq", "open"), Clause("due", "due_within_days", 14))
    assert apply_definition(d, tasks, NOW).value == ("open one",)


@given(st.integers(min_value=-40, max_value=40), st.integers(min_value=0, max_value=30))
def test_due_within_days_matches_its_definition(offset: int, days: int) -> None:
    t = task("x", "x", fmt_date(NOW + timedelta(days=offset)))
    d = task_titles(Clause("due", "due_within_days", days))
    assert bool(in_scope(d, [t], NOW)) == (0 <= offset <= days)


@given(st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2027, 1, 1)))
def test_weekend_matches_the_calendar(moment: datetime) -> None:
    r = mail("m", "M", "work", moment.replace(second=0, microsecond=0))
    d = count_senders(Clause("sent", "weekend"))
    d = Definition(**{**d.__dict__, "window_days": None, "window_field": None})
    assert bool(in_scope(d, [r], NOW)) == (moment.weekday() in (5, 6))


@given(st.sampled_from(["work", "personal", "updates", "newsletter"]))
def test_ne_is_not_eq(category: str) -> None:
    eq = count_senders(Clause("category", "eq", category))
    ne = count_senders(Clause("category", "ne", category))
    kept = {r.object_id for r in in_scope(eq, MAILS, NOW)}
    dropped = {r.object_id for r in in_scope(ne, MAILS, NOW)}
    assert kept.isdisjoint(dropped)
    assert kept | dropped == {r.object_id for r in MAILS}


def test_clause_values_are_checked() -> None:
    with pytest.raises(ValueError, match="tuple of strings"):
        Clause("category", "in", "work")
    with pytest.raises(ValueError, match="days >= 0"):
        Clause("due", "due_within_days", -1)
    with pytest.raises(ValueError, match="unknown clause op"):
        Clause("due", "status_is", "open")


def test_default_wording() -> None:
    assert default_wording(Clause("category", "ne", "newsletter")) == (
        "whose category is not newsletter"
    )
    assert default_wording(Clause("weekday", "in", ("Monday", "Tuesday", "Friday"))) == (
        "whose weekday is Monday, Tuesday or Friday"
    )
    assert default_wording(Clause("sent", "weekend")) == "sent on a Saturday or Sunday"
    assert default_wording(Clause("start", "weekend")) == "held on a Saturday or Sunday"
    assert default_wording(Clause("due", "due_within_days", 1)) == "due within the next 1 day"
    assert default_wording(Clause("due", "due_within_days", 7)) == "due within the next 7 days"
    kept = Clause("sent", "weekend", None, "at weekends")
    assert worded(kept) is kept


def test_describe_renders_new_clauses() -> None:
    d = count_senders(worded(Clause("sent", "weekend")), threshold=2)
    assert describe(d) == (
        "T are the people who sent at least 2 e-mails sent on a Saturday or Sunday "
        "in the last 30 days."
    )


def test_fixed_six_use_only_the_original_ops() -> None:
    ops = {c.op for d in SIX for c in d.conditions}
    assert ops <= {"eq", "is_true", "on_weekday", "due_days_before_now"}
