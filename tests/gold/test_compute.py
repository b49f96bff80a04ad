"""Change classification on hand-built event logs."""

from __future__ import annotations

from datetime import datetime, timedelta

from memshift.gold.compute import classify, gold_grid, outcomes
from memshift.world.items import Item
from memshift.world.records import Event

CHECKPOINTS = [datetime(2026, 10, 1) + timedelta(weeks=w) for w in (0, 1, 2, 4, 8)]
TASK = Item("task1.due", "task", "date", ("tasks",), "l", "q?", "f", target="t1", attribute="due")
OVERDUE = Item("def.overdue_tasks", "definition", "entity_set", ("tasks",), "l", "q?", "f")
ITEMS = [TASK, OVERDUE]


def event(n, t, op, due, revision, status="open"):
    fields = {"title": "File report", "project": "Beacon", "status": status, "due": due}
    return Event(
        f"e{n}",
        t,
        op,
        "t1",
        "tasks",
        "task",
        revision,
        "project:beacon",
        fields,
        f"File report due {due}",
        "tasks",
    )


def run(events, reference=None):
    _, grid = gold_grid(ITEMS, events, CHECKPOINTS)
    points = classify(ITEMS, events, CHECKPOINTS, grid, reference)
    return {(p.item.item_id, p.checkpoint): p for p in points}


def test_a_task_passing_its_due_date_is_a_change_by_the_clock_alone():
    events = [event(1, datetime(2026, 9, 1), "insert", "2026-10-10", 1)]
    points = run(events)
    assert not points[("def.overdue_tasks", 1)].changed
    overdue = points[("def.overdue_tasks", 2)]
    assert overdue.changed and overdue.clock_alone and overdue.last_change == 2
    assert overdue.gold.value == ("File report",)
    assert points[("def.overdue_tasks", 4)].last_change == 2
    assert not any(points[("task1.due", k)].changed for k in range(5))


def test_a_revised_due_date_is_a_change_but_not_by_the_clock():
    events = [
        event(1, datetime(2026, 9, 1), "insert", "2026-10-30", 1),
        event(2, datetime(2026, 10, 3), "update", "2026-10-05", 2),
    ]
    points = run(events)
    due = points[("task1.due", 1)]
    assert due.changed and not due.clock_alone and due.last_change == 1
    overdue = points[("def.overdue_tasks", 1)]
    assert overdue.changed and not overdue.clock_alone


def test_caused_by_the_shift_means_different_from_the_unshifted_branch_at_that_time():
    base = [event(1, datetime(2026, 9, 1), "insert", "2026-10-30", 1)]
    shifted = [*base, event(2, datetime(2026, 10, 3), "delete", "", 2)]
    shifted[-1] = Event(
        "e2",
        datetime(2026, 10, 3),
        "delete",
        "t1",
        "tasks",
        "task",
        2,
        "project:beacon",
        {},
        "",
        "shift:del",
    )
    reference = outcomes(run(base).values())
    points = run(shifted, reference)
    gone = points[("task1.due", 1)]
    assert gone.changed and gone.caused_by_shift and gone.gold.status == "abstain"
    # In the unshifted branch the task is overdue by week 8; here nothing is, as at the fork. The
    # item-time differs from the unshifted branch but is unchanged, so it is not counted at all.
    late = points[("def.overdue_tasks", 4)]
    assert late.gold.value == () != reference[("def.overdue_tasks", 4)][1]
    assert not late.changed and not late.caused_by_shift


def test_an_item_that_changes_and_changes_back_is_unchanged():
    events = [
        event(1, datetime(2026, 9, 1), "insert", "2026-10-30", 1),
        event(2, datetime(2026, 10, 3), "update", "2026-11-05", 2),
        event(3, datetime(2026, 10, 10), "update", "2026-10-30", 3),
    ]
    points = run(events)
    assert points[("task1.due", 1)].changed
    assert not points[("task1.due", 2)].changed
