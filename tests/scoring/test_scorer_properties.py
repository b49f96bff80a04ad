"""Property tests for the scorer: formats round-trip, noise and order don't matter, never raises."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.scoring.scorer import (
    Score,
    normalize_entity,
    parse_date,
    parse_datetime,
    parse_time,
    parse_time_range,
    parse_weekday_time,
    score,
)
from memshift.world.items import VALUE_TYPES

FAST = settings(max_examples=60, deadline=None)

DATES = st.dates(min_value=datetime.date(1900, 1, 1), max_value=datetime.date(2200, 12, 31))
CLOCKS = st.tuples(st.integers(0, 23), st.integers(0, 59))
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def twelve_hour(clock: tuple[int, int], spaced: bool = False) -> str:
    hour, minute = clock
    suffix = " PM" if hour >= 12 else " AM"
    return f"{hour % 12 or 12}:{minute:02d}{suffix if spaced else suffix.strip().lower()}"


DATE_FORMATS: tuple[Callable[[datetime.date], str], ...] = (
    lambda d: d.isoformat(),
    lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}",
    lambda d: f"{d.month:02d}/{d.day:02d}/{d.year}",
    lambda d: f"{d:%b} {d.day}, {d.year}",
    lambda d: f"{d:%B} {d.day}, {d.year}",
    lambda d: f"{d.day} {d:%B} {d.year}",
    lambda d: f"{d.day} {d:%b} {d.year}",
    lambda d: f"{d:%A}, {d:%b} {d.day}, {d.year}",
    lambda d: f"{d:%A} {d.day} {d:%B} {d.year}",
)
TIME_FORMATS: tuple[Callable[[tuple[int, int]], str], ...] = (
    lambda c: f"{c[0]:02d}:{c[1]:02d}",
    lambda c: f"{c[0]}:{c[1]:02d}",
    lambda c: f"{c[0]:02d}h{c[1]:02d}",
    twelve_hour,
    lambda c: twelve_hour(c, spaced=True),
)
DATETIME_FORMATS: tuple[Callable[[datetime.datetime], str], ...] = (
    lambda t: f"{t:%Y-%m-%d %H:%M}",
    lambda t: f"{t:%Y-%m-%dT%H:%M}",
    lambda t: f"{t:%Y-%m-%dT%H:%M:%S}",
    lambda t: f"{t:%Y-%m-%d %H:%M:%S}.000",
    lambda t: t.isoformat(timespec="microseconds"),
    lambda t: f"{t:%b} {t.day}, {t.year} {twelve_hour((t.hour, t.minute), spaced=True)}",
    lambda t: f"{twelve_hour((t.hour, t.minute))} on {t.day} {t:%B} {t.year}",
    lambda t: f"{t:%B} {t.day}, {t.year} at {t:%H:%M}",
)
WEEKDAY_TIME_FORMATS: tuple[Callable[[int, tuple[int, int]], str], ...] = (
    lambda w, c: f"{WEEKDAY_NAMES[w]} {c[0]:02d}:{c[1]:02d}",
    lambda w, c: f"{WEEKDAY_NAMES[w]}s at {twelve_hour(c)}",
    lambda w, c: f"every {WEEKDAY_NAMES[w]} at {c[0]:02d}:{c[1]:02d}",
    lambda w, c: f"{WEEKDAY_NAMES[w][:3]} {c[0]:02d}:{c[1]:02d}",
    lambda w, c: f"{WEEKDAY_NAMES[w]} {c[0]:02d}:{c[1]:02d}:00",
)
RANGE_FORMATS: tuple[Callable[[tuple[int, int], tuple[int, int]], str], ...] = (
    lambda a, b: f"{a[0]:02d}:{a[1]:02d}-{b[0]:02d}:{b[1]:02d}",
    lambda a, b: f"{twelve_hour(a)}–{twelve_hour(b)}",
    lambda a, b: f"{a[0]}:{a[1]:02d} to {b[0]}:{b[1]:02d}",
    lambda a, b: f"from {twelve_hour(a, spaced=True)} until {twelve_hour(b, spaced=True)}",
    lambda a, b: f"{a[0]:02d}:{a[1]:02d}:00-{b[0]:02d}:{b[1]:02d}:00",
)


@FAST
@given(DATES, st.sampled_from(DATE_FORMATS))
def test_any_date_format_round_trips(date: datetime.date, render: Callable[..., str]) -> None:
    assert parse_date(render(date)) == date
    assert score("date", "answer", json.dumps(date.isoformat()), "answer", json.dumps(render(date)))


OFFSETS = ("", "Z", "+00:00", "+02:00", "-05:00", "+0530", "-03")
MIDNIGHTS = ("T00:00", " 00:00", "T00:00:00", "T00:00:00.000", " 00:00:00.000000")


@FAST
@given(DATES, st.sampled_from(MIDNIGHTS), st.sampled_from(OFFSETS), st.sampled_from([-1, 1]))
def test_a_date_serialized_at_midnight_is_that_date_whatever_the_offset(
    date: datetime.date, midnight: str, offset: str, neighbour: int
) -> None:
    written = json.dumps(f"{date.isoformat()}{midnight}{offset}")
    near = date + datetime.timedelta(days=neighbour)
    assert score("date", "answer", json.dumps(date.isoformat()), "answer", written).correct
    assert score("date", "answer", json.dumps(near.isoformat()), "answer", written) == Score(
        False, "value mismatch"
    )


@FAST
@given(DATES, CLOCKS.filter(lambda clock: clock != (0, 0)), st.sampled_from(OFFSETS))
def test_a_time_of_day_is_not_a_date(
    date: datetime.date, clock: tuple[int, int], offset: str
) -> None:
    written = json.dumps(f"{date.isoformat()}T{clock[0]:02d}:{clock[1]:02d}{offset}")
    gold = json.dumps(date.isoformat())
    assert score("date", "answer", gold, "answer", written) == Score(False, "unparseable value")


@FAST
@given(DATES, CLOCKS, st.sampled_from(OFFSETS[1:]))
def test_a_datetime_with_an_offset_is_ambiguous(
    date: datetime.date, clock: tuple[int, int], offset: str
) -> None:
    moment = datetime.datetime.combine(date, datetime.time(*clock))
    gold, written = json.dumps(f"{moment:%Y-%m-%d %H:%M}"), json.dumps(f"{moment:%Y-%m-%dT%H:%M}")
    with_offset = json.dumps(f"{moment:%Y-%m-%dT%H:%M:%S}{offset}")
    assert score("datetime", "answer", gold, "answer", written).correct
    assert score("datetime", "answer", gold, "answer", with_offset) == Score(
        False, "ambiguous value"
    )


@FAST
@given(DATES, st.sampled_from([-1, 1]))
def test_a_neighbouring_date_is_wrong(date: datetime.date, offset: int) -> None:
    near = date + datetime.timedelta(days=offset)
    gold, written = json.dumps(date.isoformat()), json.dumps(f"{near:%B} {near.day}, {near.year}")
    assert score("date", "answer", gold, "answer", written) == Score(False, "value mismatch")


@FAST
@given(CLOCKS, st.sampled_from(TIME_FORMATS))
def test_any_time_format_round_trips(clock: tuple[int, int], render: Callable[..., str]) -> None:
    assert parse_time(render(clock)) == clock


@FAST
@given(DATES, CLOCKS, st.sampled_from(DATETIME_FORMATS))
def test_any_datetime_format_round_trips(
    date: datetime.date, clock: tuple[int, int], render: Callable[..., str]
) -> None:
    moment = datetime.datetime.combine(date, datetime.time(*clock))
    gold = json.dumps(f"{moment:%Y-%m-%d %H:%M}")
    assert parse_datetime(render(moment)) == moment
    assert score("datetime", "answer", gold, "answer", json.dumps(render(moment))).correct


@FAST
@given(DATES, CLOCKS, st.sampled_from([-1, 1]))
def test_a_minute_off_is_wrong(date: datetime.date, clock: tuple[int, int], offset: int) -> None:
    moment = datetime.datetime.combine(date, datetime.time(*clock))
    near = moment + datetime.timedelta(minutes=offset)
    gold, written = json.dumps(f"{moment:%Y-%m-%d %H:%M}"), json.dumps(f"{near:%Y-%m-%dT%H:%M}")
    assert score("datetime", "answer", gold, "answer", written) == Score(False, "value mismatch")


@FAST
@given(st.integers(0, 6), CLOCKS, st.sampled_from(WEEKDAY_TIME_FORMATS))
def test_any_weekday_time_format_round_trips(
    weekday: int, clock: tuple[int, int], render: Callable[..., str]
) -> None:
    assert parse_weekday_time(render(weekday, clock)) == (weekday, clock)


@FAST
@given(st.integers(0, 6), st.integers(1, 6), CLOCKS)
def test_another_weekday_is_wrong(weekday: int, shift: int, clock: tuple[int, int]) -> None:
    gold = json.dumps(f"{WEEKDAY_NAMES[weekday]} {clock[0]:02d}:{clock[1]:02d}")
    other = json.dumps(f"{WEEKDAY_NAMES[(weekday + shift) % 7]} {clock[0]:02d}:{clock[1]:02d}")
    assert score("weekday_time", "answer", gold, "answer", other) == Score(False, "value mismatch")


@FAST
@given(CLOCKS, CLOCKS, st.sampled_from(RANGE_FORMATS))
def test_any_time_range_format_round_trips(
    start: tuple[int, int], end: tuple[int, int], render: Callable[..., str]
) -> None:
    assert parse_time_range(render(start, end)) == (start, end)


NAME_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
NAMES = st.lists(NAME_WORDS, min_size=1, max_size=3).map(lambda words: " ".join(words).title())


@FAST
@given(st.lists(NAMES, max_size=6, unique_by=normalize_entity), st.data())
def test_any_permutation_and_duplication_of_a_set_is_correct(
    names: list[str], data: st.DataObject
) -> None:
    duplicated = names + data.draw(
        st.lists(st.sampled_from(names), max_size=4) if names else st.just([])
    )
    shuffled = data.draw(st.permutations(duplicated))
    gold = json.dumps(sorted(names))
    assert score("entity_set", "answer", gold, "answer", json.dumps(shuffled)).correct


@FAST
@given(st.lists(NAMES, min_size=2, max_size=6, unique_by=normalize_entity), st.data())
def test_a_strict_subset_or_superset_is_wrong(names: list[str], data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(names) - 1))
    gold_small, gold_big = json.dumps(sorted(names[:cut])), json.dumps(sorted(names))
    assert not score("entity_set", "answer", gold_small, "answer", json.dumps(names)).correct
    assert not score("entity_set", "answer", gold_big, "answer", json.dumps(names[:cut])).correct


PUNCTUATION = st.sampled_from([".", ",", "!", "?", '"', "'", "(", ")", ":", ";", ""])
SPACES = st.sampled_from([" ", "  ", "\t", "\u00a0", " \n "])


@st.composite
def noisy(draw: st.DrawFn, name: str) -> str:
    words = [
        "".join(c.upper() if draw(st.booleans()) else c.lower() for c in word)
        for word in name.split()
    ]
    pieces = [draw(PUNCTUATION) + word + draw(PUNCTUATION) for word in words]
    joined = "".join(piece + draw(SPACES) for piece in pieces)
    return draw(SPACES) + joined


@FAST
@given(NAMES.flatmap(lambda name: st.tuples(st.just(name), noisy(name))))
def test_case_punctuation_and_whitespace_noise_keeps_an_entity(pair: tuple[str, str]) -> None:
    name, written = pair
    assert score("entity", "answer", json.dumps(name), "answer", json.dumps(written)).correct


@FAST
@given(st.text())
def test_normalize_entity_is_idempotent(text: str) -> None:
    assert normalize_entity(normalize_entity(text)) == normalize_entity(text)


GOLD_BY_TYPE: dict[str, str] = {
    "entity": '"Kestrel Labs"',
    "timezone": '"Europe/Lisbon"',
    "diet": '"vegan"',
    "commute": '"bus"',
    "weekday_time": '"Tuesday 10:00"',
    "datetime": '"2026-10-14 09:30"',
    "date": '"2026-10-20"',
    "time_range": '"09:00-17:30"',
    "entity_set": '["Ana Silva", "Ben Ode"]',
}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
STATUSES = st.sampled_from(["answer", "abstain", "blocked", "failed"]) | st.text(max_size=8)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(VALUE_TYPES), st.text() | st.none(), STATUSES)
def test_score_never_raises_on_arbitrary_text(
    value_type: str, text: str | None, status: str
) -> None:
    result = score(value_type, "answer", GOLD_BY_TYPE[value_type], status, text)
    assert isinstance(result, Score)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(VALUE_TYPES), JSON_VALUES | st.text().map(lambda s: [s]))
def test_score_never_raises_on_arbitrary_json(value_type: str, value: object) -> None:
    result = score(value_type, "answer", GOLD_BY_TYPE[value_type], "answer", json.dumps(value))
    assert isinstance(result, Score)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(VALUE_TYPES), st.text(), st.sampled_from(["answer", "abstain", "failed"]))
def test_score_is_deterministic(value_type: str, text: str, status: str) -> None:
    written = json.dumps(text)
    first = score(value_type, "answer", GOLD_BY_TYPE[value_type], status, written)
    assert all(
        score(value_type, "answer", GOLD_BY_TYPE[value_type], status, written) == first
        for _ in range(3)
    )
