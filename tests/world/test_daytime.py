"""Send times: drawn from weekly patterns of hours, always inside the interval they were drawn
for, and plausible in the generated worlds."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import world
from memshift.branches import BRANCHES, make_branch
from memshift.rng import Streams
from memshift.timeutil import WEEKDAYS, parse
from memshift.world import daytime, phrasing
from memshift.world.cast import draw_cast
from memshift.world.life import life_events
from memshift.world.parse import prose_body
from memshift.world.records import Event
from memshift.world.timeline import Timeline

SEEDS = [0, 1, 2, 1000, 1013]
MINUTE = timedelta(minutes=1)
FORK = datetime(2026, 10, 1)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- drawing inside an interval ---------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    start=st.integers(0, 60 * 24 * 7),
    length=st.integers(2, 60 * 24 * 9),
    n=st.integers(0, 12),
    pattern=st.sampled_from(sorted(daytime.PATTERNS)),
)
def test_times_lie_strictly_inside_the_interval_oldest_first(
    seed: int, start: int, length: int, n: int, pattern: str
) -> None:
    lo = FORK + start * MINUTE
    hi = lo + length * MINUTE
    chosen = daytime.PATTERNS[pattern]
    try:
        times = daytime.draw_times(_rng(seed), lo, hi, n, chosen)
    except ValueError:  # an interval holding no hour the pattern weighs (a weekday-only pattern)
        assert n > 0
        return
    assert len(times) == n
    assert times == sorted(times)
    assert all(lo < t < hi and t.second == 0 for t in times)


def test_an_interval_without_a_minute_inside_is_refused() -> None:
    with pytest.raises(ValueError, match="no minute strictly between"):
        daytime.draw_times(_rng(), FORK, FORK + MINUTE, 1, daytime.WORK)


def test_drawing_nothing_takes_nothing_from_the_stream() -> None:
    rng = _rng(5)
    assert daytime.draw_times(rng, FORK, FORK + MINUTE, 0, daytime.WORK) == []
    assert rng.random() == _rng(5).random()


def test_a_pattern_decides_the_hours() -> None:
    week = (FORK, FORK + timedelta(days=7))
    work = daytime.draw_times(_rng(), *week, 2000, daytime.WORK)
    personal = daytime.draw_times(_rng(), *week, 2000, daytime.PERSONAL)
    in_office = sum(t.weekday() < 5 and 8 <= t.hour < 19 for t in work) / len(work)
    evenings = sum(t.hour >= 18 or t.weekday() >= 5 for t in personal) / len(personal)
    assert in_office > 0.85
    assert evenings > 0.6
    mornings = daytime.draw_times(_rng(), *week, 200, daytime.MORNING)
    assert all(t.weekday() < 5 and 7 <= t.hour < 10 for t in mornings)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    start=st.integers(0, 60 * 24 * 7),
    length=st.integers(2, 60 * 24 * 9),
    pattern=st.sampled_from(sorted(daytime.PATTERNS)),
)
def test_a_time_at_some_hours_stays_inside_its_interval_at_the_first_hours_that_fit(
    seed: int, start: int, length: int, pattern: str
) -> None:
    """`time_in` never leaves (lo, hi): it takes the pattern's hours, else waking hours, else
    any minute, so a component drawing in a checkpoint interval stays in it."""
    lo = FORK + start * MINUTE
    hi = lo + length * MINUTE
    chosen = daytime.PATTERNS[pattern]
    t = daytime.time_in(_rng(seed), lo, hi, chosen)
    assert lo < t < hi and t.second == 0
    for hours in (chosen, daytime.ERRANDS):
        if daytime.fits(hours, lo, hi):
            assert hours.hours_of(t)[t.hour] > 0
            return


def test_the_hours_of_records_leave_the_small_hours_empty() -> None:
    for pattern in (daytime.OFFICE, daytime.ERRANDS):
        for hours in (pattern.weekday, pattern.weekend):
            assert not any(hours[h] for h in range(0, 6))


# Components whose records the person writes at office or waking hours (messages and stated
# values follow their own patterns, which allow a few late ones).
AT_HOURS = ("contacts", "contacts-churn", "series", "appointments", "meetings", "tasks", "notes")


def _said_in_a_message(e: Event) -> bool:
    """A message or a stated value: drawn from the hours of its kind of message, not of admin."""
    return e.source in ("email", "chat") or bool(set(e.asserts) & set(phrasing.ATTRIBUTES))


@pytest.mark.parametrize("seed", SEEDS)
def test_no_record_of_the_person_is_written_in_the_small_hours(seed: int) -> None:
    w = world(seed)
    events = [*w.events, *(e for b in BRANCHES[1:] for e in make_branch(w, b).shift_events)]
    written = [
        e
        for e in events
        if e.source != "memory" and (e.component in AT_HOURS or e.component.startswith("shift:"))
    ]
    small = [e for e in written if e.time.hour < 5 and not _said_in_a_message(e)]
    assert not small, [(str(e.time), e.component, e.kind) for e in small[:5]]


# --- keeping the day --------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    minute=st.integers(1, 60 * 24 * 30),
    earlier=st.integers(31, 60 * 24 * 3),
)
def test_a_time_moved_within_its_day_keeps_the_day_and_every_checkpoint_interval(
    seed: int, minute: int, earlier: int
) -> None:
    t = FORK + minute * MINUTE
    after = t - earlier * MINUTE
    lo, hi = daytime.rest_of_day(t, after)
    moved = daytime.draw_time(_rng(seed), lo, hi, daytime.PERSONAL)
    day = daytime.day_of(t)
    assert day < moved < day + timedelta(days=1)
    assert day < t <= day + timedelta(days=1)
    assert moved > after
    checkpoints = [FORK + timedelta(weeks=w) for w in (0, 1, 2, 4, 8)]
    assert [c < t for c in checkpoints] == [c < moved for c in checkpoints]


def test_a_time_at_midnight_belongs_to_the_day_it_closes() -> None:
    assert daytime.day_of(FORK + timedelta(days=1)) == FORK
    assert daytime.day_of(FORK + MINUTE) == FORK
    assert daytime.rest_of_day(FORK + timedelta(days=1)) == (FORK, FORK + timedelta(days=1))


def test_the_rest_of_a_day_starts_at_a_moment_inside_it() -> None:
    t = FORK + timedelta(hours=20)
    assert daytime.rest_of_day(t, FORK + timedelta(hours=15))[0] == FORK + timedelta(hours=15)
    assert daytime.rest_of_day(t, FORK - timedelta(hours=15))[0] == FORK


def test_weekday_only_patterns_fit_no_weekend_day() -> None:
    saturday = datetime(2026, 10, 3)
    friday = saturday - timedelta(days=1)
    day = timedelta(days=1)
    assert not daytime.fits(daytime.OFFICE, saturday, saturday + day)
    assert daytime.fits(daytime.OFFICE, friday, friday + day)
    assert not daytime.fits(daytime.OFFICE, friday + timedelta(hours=18), friday + day)
    assert daytime.fits(daytime.PERSONAL, saturday, saturday + day)


@pytest.mark.parametrize("day", range(7))
def test_every_attribute_can_be_stated_on_every_day(day: int) -> None:
    lo = FORK + timedelta(days=day)
    t = lo + timedelta(hours=12)
    for attribute in phrasing.ATTRIBUTES:
        for kind in phrasing.KINDS:
            fitting = [
                p
                for p in phrasing.PHRASES
                if (p.attribute, p.kind) == (attribute, kind)
                and daytime.fits(daytime.PATTERNS[p.hours], lo, lo + timedelta(days=1))
            ]
            assert fitting, (attribute, kind, WEEKDAYS[t.weekday()])


def test_the_weekday_a_message_means_lies_ahead_on_a_working_day() -> None:
    for day in range(14):
        t = FORK + timedelta(days=day, hours=9)
        name = daytime.coming_workday(t)
        ahead = next(k for k in range(2, 5) if WEEKDAYS[(t.weekday() + k) % 7] == name)
        assert WEEKDAYS.index(name) < 5 and 2 <= ahead <= 4


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 9), days=st.integers(1, 9))
def test_fixed_times_fall_on_distinct_days_at_the_time_of_day(seed: int, n: int, days: int) -> None:
    at = timedelta(hours=6, minutes=15)
    times = daytime.fixed_times(_rng(seed), FORK, FORK + timedelta(days=days), n, at)
    assert len(times) == min(n, days)
    assert len({t.date() for t in times}) == len(times)
    assert all(t - datetime(t.year, t.month, t.day) == at for t in times)


# --- the generated worlds ---------------------------------------------------------------------


def _traffic(e: Event) -> str | None:
    """The kind of traffic an inserted message is, for its time-of-day pattern."""
    if e.op != "insert" or e.asserts or e.source not in ("email", "chat"):
        return None
    if e.source == "chat":
        return f"{e.fields['channel_kind']} chat"
    category = e.fields["category"]
    return "work mail" if category in ("work", "routine") else f"{category} mail"


@pytest.fixture(scope="module")
def sent() -> dict[str, list[datetime]]:
    """Send times of the ordinary traffic of several worlds, by kind."""
    times: dict[str, list[datetime]] = defaultdict(list)
    for seed in SEEDS:
        for e in world(seed).events:
            kind = _traffic(e)
            if kind is not None:
                times[kind].append(parse(e.fields["sent"]))
    return times


def _share(times: list[datetime], keep) -> float:
    return sum(map(keep, times)) / len(times)


def _office_hours(t: datetime) -> bool:
    return t.weekday() < 5 and 8 <= t.hour < 19


def _small_hours(t: datetime) -> bool:
    return t.hour < 6


@pytest.mark.parametrize("kind", ["work mail", "work chat"])
def test_work_traffic_is_sent_in_office_hours(sent, kind: str) -> None:
    assert len(sent[kind]) > 500
    assert _share(sent[kind], _office_hours) > 0.85
    assert _share(sent[kind], _small_hours) < 0.01


@pytest.mark.parametrize("kind", ["personal chat", "personal mail"])
def test_personal_traffic_is_sent_mornings_evenings_and_weekends(sent, kind: str) -> None:
    assert len(sent[kind]) > 100
    assert _share(sent[kind], lambda t: t.weekday() < 5 and 9 <= t.hour < 17) < 0.25
    assert _share(sent[kind], lambda t: t.weekday() >= 5) > 0.3
    assert _share(sent[kind], _small_hours) < 0.05


def test_each_newsletter_goes_out_at_one_early_time() -> None:
    by_sender: dict[tuple[int, str], set[str]] = defaultdict(set)
    for seed in SEEDS:
        for e in world(seed).events:
            if e.source == "email" and e.fields.get("category") == "newsletter":
                by_sender[(seed, e.fields["sender"])].add(e.fields["sent"][11:])
    assert len(by_sender) >= 3 * len(SEEDS)
    assert all(len(times) == 1 for times in by_sender.values())
    assert all(6 <= int(t[:2]) < 8 for (t,) in by_sender.values())


def _phrase_of(e: Event) -> phrasing.Phrase:
    body = prose_body(e.source, e.text)
    (phrase,) = [p for p in phrasing.PHRASES if phrasing.compile_pattern(p).match(body)]
    return phrase


@pytest.mark.parametrize("seed", SEEDS)
def test_statements_are_sent_at_the_hours_of_their_situation(seed: int) -> None:
    w = world(seed)
    events = [*w.events, *(e for b in BRANCHES[1:] for e in make_branch(w, b).shift_events)]
    stated = [e for e in events if set(e.asserts) & set(phrasing.ATTRIBUTES)]
    assert len(stated) >= 10
    for e in stated:
        pattern = daytime.PATTERNS[_phrase_of(e).hours]
        assert pattern.hours_of(e.time)[e.time.hour] > 0, (e.time, e.text)


def test_no_value_is_stated_before_it_becomes_true() -> None:
    for seed in range(100):
        streams = Streams(seed)
        script, events = life_events(streams("life"), draw_cast(streams("cast")), Timeline())
        for attribute, line in script.timelines.items():
            for since, value in line.changes:
                stated = [e.time for e in events if e.asserts.get(attribute) == value]
                assert stated and min(stated) > since, (seed, attribute, value)
