"""Property tests for time zones: every name of a pool zone is credited for that zone and no other,
and no abbreviation or offset is credited for any zone, so a stale answer is never scored right
after a move between two zones."""

from __future__ import annotations

import datetime
import itertools
import json
from importlib import resources
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.scoring.scorer import (
    AMBIGUOUS,
    LEGACY_NAMES,
    ZONE_ABBREVIATIONS,
    Score,
    canonical_timezone,
    score,
)
from memshift.world.pools import CITIES

FAST = settings(max_examples=100, deadline=None)

POOL_ZONES = tuple(sorted({zone for _, zone in CITIES}))
NAMES_OF = {
    zone: (
        zone,
        *(name for name, target in LEGACY_NAMES.items() if target == zone),
        *(city for city, city_zone in CITIES if city_zone == zone),
    )
    for zone in POOL_ZONES
}
IANA_NAMES_OF = {zone: (zone, *names[1:]) for zone, names in NAMES_OF.items()}
OFFSET_NAMES = ("Eastern Time", "Pacific Time", "Central European Time", "Japan Standard Time")


def pinned_zone(name: str) -> ZoneInfo:
    """The zone compiled in the pinned tzdata package, never the host's tz database."""
    with resources.files("tzdata.zoneinfo").joinpath(*name.split("/")).open("rb") as tzif:
        return ZoneInfo.from_file(tzif, key=name)


def printed_abbreviations(zone: str) -> set[str]:
    """What the zone's clocks print in winter and summer: CET and CEST, or "+08"."""
    tz = pinned_zone(zone)
    return {str(datetime.datetime(2026, month, 15, 12, tzinfo=tz).tzname()) for month in (1, 7)}


def pinned_bytes(zone: str) -> bytes:
    return resources.files("tzdata.zoneinfo").joinpath(*zone.split("/")).read_bytes()


def timezone_score(gold: str, written: str) -> Score:
    return score("timezone", "answer", json.dumps(gold), "answer", json.dumps(written))


@st.composite
def written_name(draw: st.DrawFn, name: str) -> str:
    """A name as a reader may write it: any case, spaces for underscores, a suffix, a note."""
    text = "".join(c.upper() if draw(st.booleans()) else c.lower() for c in name)
    if draw(st.booleans()):
        text = text.replace("_", " ")
    text += draw(st.sampled_from(["", " time", " time zone", " timezone"]))
    note = draw(st.sampled_from(["", "CET", "UTC+01:00", "EST/EDT"]))
    return f"{text} ({note})" if note else text


ZONE_AND_TEXT = st.sampled_from(POOL_ZONES).flatmap(
    lambda zone: st.tuples(
        st.just(zone), st.sampled_from(NAMES_OF[zone]).flatmap(lambda name: written_name(name))
    )
)


@FAST
@given(ZONE_AND_TEXT)
def test_every_name_of_a_pool_zone_is_credited_for_that_zone_only(pair: tuple[str, str]) -> None:
    zone, text = pair
    assert timezone_score(zone, text) == Score(True, "match")
    for other in POOL_ZONES:
        if other != zone:
            assert timezone_score(other, text) == Score(False, "value mismatch")


OFFSETS = st.builds(
    lambda prefix, sign, hours, minutes: f"{prefix}{sign}{hours}{minutes}",
    st.sampled_from(["UTC", "GMT", "utc ", ""]),
    st.sampled_from(["+", "-", "\u2212"]),
    st.sampled_from(["0", "1", "01", "5", "05", "10", "12", "14"]),
    st.sampled_from(["", ":00", "00", ":30", "45"]),
)
ABBREVIATIONS = st.sampled_from(
    sorted(ZONE_ABBREVIATIONS | set().union(*map(printed_abbreviations, POOL_ZONES)))
).flatmap(lambda abbreviation: st.sampled_from([abbreviation, abbreviation.upper()]))
FAMILIES = ABBREVIATIONS | OFFSETS | st.sampled_from(OFFSET_NAMES)


@FAST
@given(st.sampled_from(POOL_ZONES), FAMILIES)
def test_an_abbreviation_or_offset_is_never_credited(zone: str, text: str) -> None:
    assert canonical_timezone(text) is AMBIGUOUS
    assert timezone_score(zone, text) == Score(False, "ambiguous value")


@pytest.mark.parametrize("zone", POOL_ZONES)
def test_what_a_zone_prints_is_ambiguous_for_it(zone: str) -> None:
    for abbreviation in printed_abbreviations(zone):
        assert timezone_score(zone, abbreviation) == Score(False, "ambiguous value")


@FAST
@given(st.sampled_from(sorted(set().union(*IANA_NAMES_OF.values()))), st.data())
def test_scoring_iana_names_is_symmetric(gold: str, data: st.DataObject) -> None:
    written = data.draw(st.sampled_from(sorted(set().union(*IANA_NAMES_OF.values()))))
    same_zone = canonical_timezone(gold) == canonical_timezone(written)
    assert timezone_score(gold, written).correct == same_zone
    assert timezone_score(written, gold).correct == same_zone


@FAST
@given(st.sampled_from(POOL_ZONES).flatmap(written_name) | FAMILIES | st.text(max_size=30))
def test_no_answer_is_credited_for_two_pool_zones(text: str) -> None:
    assert sum(timezone_score(zone, text).correct for zone in POOL_ZONES) <= 1


# Places whose clocks agree since 1970 share one compiled zone in the tz database (Stockholm is
# stored as Berlin); a move between them is still a move to another zone.
MERGED = [
    (a, b) for a, b in itertools.combinations(POOL_ZONES, 2) if pinned_bytes(a) == pinned_bytes(b)
]


@pytest.mark.parametrize(("first", "second"), MERGED)
def test_zones_the_tz_database_merged_stay_apart(first: str, second: str) -> None:
    assert timezone_score(first, second) == Score(False, "value mismatch")
    assert timezone_score(second, first) == Score(False, "value mismatch")
