"""The evaluator on hand-built records: every definition under v1 and v2, the clock, deletions."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.definitions.catalog import SIX, definition
from memshift.gold.evaluator import apply_definition, evaluate
from memshift.timeutil import fmt
from memshift.world.items import Item
from memshift.world.records import Record

NOW = datetime(2026, 10, 15, 12, 0)


def rec(
    object_id,
    source,
    kind,
    fields,
    *,
    updated=NOW - timedelta(days=1),
    revision=1,
    text=None,
    asserts=None,
):
    return Record(
        object_id,
        source,
        kind,
        revision,
        object_id,
        fields,
        text if text is not None else " ".join(str(v) for v in fields.values()),
        updated,
        updated,
        asserts or {},
    )


def meeting(n, days_ago, attendees, *, hour=10, minutes=60, weekday_fix=True):
    start = (NOW - timedelta(days=days_ago)).replace(hour=hour, minute=0)
    if weekday_fix:
        while start.weekday() >= 5:
            start -= timedelta(days=1)
    end = start + timedelta(minutes=minutes)
    return rec(
        f"m{n}",
        "calendar",
        "meeting",
        {"start": fmt(start), "end": fmt(end), "attendees": attendees},
        updated=start,
    )


def item(item_id, item_class, sources, **kw):
    return Item(item_id, item_class, "entity", sources, "label", "question?", "fmt", **kw)


DEF_ITEMS = {d.item_id: item(d.item_id, "definition", (d.source,)) for d in SIX}


def value(item_id, records, version, now=NOW):
    return apply_definition(definition(item_id, version), records, now).value


# ---- important contacts ------------------------------------------------------------------------


def test_important_contacts_v1_needs_five_meetings_in_ninety_days():
    records = [meeting(i, 10 + 15 * i, ["Ana Silva"]) for i in range(5)]
    records += [meeting(10 + i, 5 + i, ["Ben Ode"]) for i in range(4)]
    assert value("def.important_contacts", records, 1) == ("Ana Silva",)


def test_important_contacts_v2_needs_three_in_thirty_days():
    records = [meeting(i, 10 + 15 * i, ["Ana Silva"]) for i in range(5)]
    records += [meeting(10 + i, 5 + i, ["Ben Ode"]) for i in range(3)]
    assert value("def.important_contacts", records, 2) == ("Ben Ode",)


def test_a_meeting_leaving_the_window_drops_a_contact_with_the_clock_alone():
    records = [meeting(i, 20 + 10 * i, ["Ana Silva"]) for i in range(5)]
    oldest = min(r.fields["start"] for r in records)
    leaves = datetime.strptime(oldest, "%Y-%m-%d %H:%M") + timedelta(days=90)
    assert value("def.important_contacts", records, 1, leaves - timedelta(minutes=1)) == (
        "Ana Silva",
    )
    assert value("def.important_contacts", records, 1, leaves + timedelta(minutes=1)) == ()


def test_future_meetings_do_not_count_yet():
    records = [meeting(i, -3 - i, ["Ana Silva"]) for i in range(5)]
    assert value("def.important_contacts", records, 1) == ()


# ---- close friends -----------------------------------------------------------------------------


def chat(n, days_ago, partner, channel_kind="personal"):
    t = NOW - timedelta(days=days_ago)
    return rec(
        f"c{n}",
        "chat",
        "message",
        {"sent": fmt(t), "partner": partner, "channel_kind": channel_kind},
        updated=t,
    )


def test_close_friends_count_messages_both_ways_in_personal_channels_only():
    records = [chat(i, 1 + i * 4, "Cleo Park") for i in range(12)]
    records += [chat(100 + i, 1 + i, "Dev Rao", channel_kind="work") for i in range(20)]
    assert value("def.close_friends", records, 1) == ("Cleo Park",)
    assert value("def.close_friends", records[:11], 1) == ()


def test_close_friends_v2_is_six_in_three_weeks():
    records = [chat(i, 1 + i * 3, "Cleo Park") for i in range(12)]
    assert value("def.close_friends", records, 2) == ("Cleo Park",)
    spread = [chat(i, 1 + i * 5, "Cleo Park") for i in range(12)]
    assert value("def.close_friends", spread, 2) == ()


# ---- active projects ---------------------------------------------------------------------------


def task(n, project, status="open", due="2026-10-20", updated_days_ago=30, title=None):
    t = NOW - timedelta(days=updated_days_ago)
    return rec(
        f"t{n}",
        "tasks",
        "task",
        {"title": title or f"Task {n}", "project": project, "status": status, "due": due},
        updated=t,
    )


def test_active_projects_v1_have_an_open_task_and_v2_a_recent_change():
    records = [
        task(1, "Beacon"),
        task(2, "Delta", status="done", updated_days_ago=3),
        task(3, "Horizon", updated_days_ago=2),
    ]
    assert value("def.active_projects", records, 1) == ("Beacon", "Horizon")
    assert value("def.active_projects", records, 2) == ("Delta", "Horizon")


# ---- working hours -----------------------------------------------------------------------------


def note(n, hours, days_ago, topic="working_hours"):
    t = NOW - timedelta(days=days_ago)
    return rec(f"n{n}", "notes", "note", {"topic": topic, "hours": hours}, updated=t)


def test_working_hours_v1_is_the_newest_working_hours_note():
    records = [
        note(1, "09:00-17:00", 40),
        note(2, "08:30-16:30", 5),
        note(3, "10:00-18:00", 1, topic="journal"),
    ]
    assert value("def.working_hours", records, 1) == "08:30-16:30"
    assert value("def.working_hours", [], 1) is None


def test_working_hours_v2_is_the_weekday_meeting_span_rounded_out_to_whole_hours():
    early = meeting(1, 3, ["A B"], hour=8)
    early.fields["start"] = early.fields["start"][:11] + "08:30"
    late = meeting(2, 4, ["A B"], hour=17, minutes=45)
    saturday = NOW - timedelta(days=(NOW.weekday() - 5) % 7 or 7)
    weekend = rec(
        "m9",
        "calendar",
        "meeting",
        {
            "start": fmt(saturday.replace(hour=6)),
            "end": fmt(saturday.replace(hour=22)),
            "attendees": ["A B"],
        },
        updated=saturday,
    )
    assert value("def.working_hours", [early, late, weekend], 2) == "08:00-18:00"


# ---- VIP senders -------------------------------------------------------------------------------


def mail(n, sender, days_ago, starred=True):
    t = NOW - timedelta(days=days_ago)
    return rec(
        f"e{n}",
        "email",
        "message",
        {"sender": sender, "sent": fmt(t), "starred": starred},
        updated=t,
    )


def test_vip_senders_count_starred_mail_only():
    records = [mail(i, "Eva Lund", 5 + 10 * i) for i in range(4)]
    records += [mail(10 + i, "Finn Moss", 1 + i, starred=False) for i in range(9)]
    records += [mail(20 + i, "Gia Ray", 2 + i) for i in range(2)]
    assert value("def.vip_senders", records, 1) == ("Eva Lund",)
    assert value("def.vip_senders", records, 2) == ("Eva Lund", "Gia Ray")


# ---- overdue tasks -----------------------------------------------------------------------------


def test_a_task_becomes_overdue_the_day_after_its_due_date():
    records = [task(1, "Beacon", due="2026-10-15", title="File report")]
    assert value("def.overdue_tasks", records, 1, NOW) == ()
    assert value("def.overdue_tasks", records, 1, NOW + timedelta(days=1)) == ("File report",)
    assert value("def.overdue_tasks", records, 2, NOW + timedelta(days=3)) == ()
    assert value("def.overdue_tasks", records, 2, NOW + timedelta(days=4)) == ("File report",)


def test_done_tasks_are_never_overdue():
    records = [task(1, "Beacon", due="2026-09-01", status="done")]
    assert value("def.overdue_tasks", records, 1) == ()


# ---- other items -------------------------------------------------------------------------------


def appointment(n, start, kind="dentist", status="booked"):
    return rec(
        f"a{n}",
        "calendar",
        "appointment",
        {"appointment_type": kind, "start": start, "status": status},
    )


DENTIST = item("appointment.dentist", "appointment", ("calendar",), target="dentist")


def test_the_next_appointment_is_the_earliest_upcoming_and_passes_with_the_clock():
    records = [
        appointment(1, "2026-10-20 09:00"),
        appointment(2, "2026-11-02 10:30"),
        appointment(3, "2026-10-18 08:00", status="canceled"),
        appointment(4, "2026-10-16 11:00", kind="doctor"),
    ]
    gold = evaluate(DENTIST, records, NOW)
    assert (gold.status, gold.value) == ("answer", "2026-10-20 09:00")
    assert {oid for oid, _ in gold.deps} == {"a1", "a2"}
    later = evaluate(DENTIST, records, datetime(2026, 10, 21))
    assert later.value == "2026-11-02 10:30"
    assert evaluate(DENTIST, records, datetime(2026, 11, 3)).status == "abstain"


CARD_CITY = item("contact01.city", "contact", ("contacts",), target="ct-card-01", attribute="city")


def test_a_deleted_card_makes_its_attributes_abstain():
    card = rec("ct-card-01", "contacts", "card", {"city": "Porto", "employer": "Kestrel Labs"})
    assert evaluate(CARD_CITY, [card], NOW).value == "Porto"
    assert evaluate(CARD_CITY, [], NOW).outcome == ("abstain", None)


def test_a_same_day_message_contradicting_the_card_makes_gold_abstain():
    day = NOW - timedelta(days=2)
    card = rec("ct-card-01", "contacts", "card", {"city": "Porto"}, updated=day, revision=2)
    same_day = rec(
        "em-1",
        "email",
        "message",
        {},
        updated=day + timedelta(hours=5),
        asserts={"ct-card-01.city": "Lyon"},
    )
    next_day = rec(
        "em-2",
        "email",
        "message",
        {},
        updated=day + timedelta(days=1),
        asserts={"ct-card-01.city": "Lyon"},
    )
    assert evaluate(CARD_CITY, [card, same_day], NOW).status == "abstain"
    assert evaluate(CARD_CITY, [card, next_day], NOW).value == "Porto"


def test_a_canceled_series_abstains():
    series_item = item("series1", "series", ("calendar",), target="s1")
    fields = {"weekday": "Tuesday", "start_time": "10:00", "status": "active"}
    assert (
        evaluate(series_item, [rec("s1", "calendar", "series", fields)], NOW).value
        == "Tuesday 10:00"
    )
    canceled = rec("s1", "calendar", "series", {**fields, "status": "canceled"})
    assert evaluate(series_item, [canceled], NOW).status == "abstain"


def test_the_newest_statement_of_a_free_text_attribute_wins():
    employer = item(
        "person.employer",
        "person",
        ("email", "chat", "notes"),
        attribute="employer",
        free_text=True,
    )
    old = rec(
        "n1",
        "notes",
        "note",
        {},
        updated=NOW - timedelta(days=90),
        asserts={"employer": "Kestrel Labs"},
    )
    new = rec(
        "e1",
        "email",
        "message",
        {},
        updated=NOW - timedelta(days=9),
        asserts={"employer": "Northwind Analytics"},
    )
    gold = evaluate(employer, [old, new], NOW)
    assert gold.value == "Northwind Analytics" and gold.deps == (("e1", 1),)
    assert evaluate(employer, [], NOW).status == "abstain"


def test_a_revoked_scope_blocks_the_agents_items_only():
    card = rec("ct-card-01", "contacts", "card", {"city": "Porto"})
    assert evaluate(CARD_CITY, [card], NOW, revoked={("assistant", "contacts")}).status == "blocked"
    assert evaluate(CARD_CITY, [card], NOW, revoked={("scheduler", "contacts")}).value == "Porto"
    assert evaluate(CARD_CITY, [card], NOW, revoked={("assistant", "email")}).value == "Porto"


# ---- properties --------------------------------------------------------------------------------

NAMES = ["Ana Silva", "Ben Ode", "Cleo Park", "Dev Rao"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 120), st.sampled_from(NAMES)), max_size=40),
    st.randoms(use_true_random=False),
)
def test_count_definitions_match_a_brute_force_count_in_any_order(rows, shuffler):
    records = [chat(i, days, name) for i, (days, name) in enumerate(rows)]
    for version, (window, threshold) in ((1, (60, 12)), (2, (21, 6))):
        expected = tuple(
            sorted(
                n for n in NAMES if sum(1 for d, m in rows if m == n and d < window) >= threshold
            )
        )
        shuffled = list(records)
        shuffler.shuffle(shuffled)
        assert value("def.close_friends", shuffled, version) == expected


def test_definition_texts_name_their_thresholds_and_windows():
    for d in SIX:
        if d.threshold and d.threshold > 1:
            assert str(d.threshold) in d.text
        if d.window_days:
            assert f"last {d.window_days} days" in d.text
    assert definition("def.overdue_tasks", 2).text != definition("def.overdue_tasks", 1).text
