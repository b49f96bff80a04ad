"""Table-driven cases for the deterministic scorer: accepted formats and the answers that fail."""

from __future__ import annotations

import datetime
import json

import pytest

from memshift.scoring.scorer import (
    AMBIGUOUS,
    CITY_ZONES,
    IANA_NAMES,
    LEGACY_NAMES,
    Score,
    canonical_commute,
    canonical_diet,
    canonical_timezone,
    normalize_entity,
    parse_date,
    parse_datetime,
    parse_time,
    parse_time_range,
    parse_weekday_time,
    score,
)
from memshift.world.items import VALUE_TYPES
from memshift.world.pools import CITIES, COMMUTES, DIETS


def answer(value_type: str, gold: object, written: object) -> Score:
    return score(value_type, "answer", json.dumps(gold), "answer", json.dumps(written))


# --- dates --------------------------------------------------------------------------------------

OCT_8 = datetime.date(2026, 10, 8)


@pytest.mark.parametrize(
    "text",
    [
        "2026-10-08", "2026-10-8", "2026/10/08", "2026.10.08", "10/08/2026", "10/8/2026",
        "Oct 8, 2026", "Oct. 8, 2026", "oct 8 2026", "October 8, 2026", "October 8th, 2026",
        "8 October 2026", "8th of October 2026", "8 Oct 2026", "Thursday, Oct 8, 2026",
        "Thursday, October 8, 2026", "Thu 8 Oct 2026", "  OCTOBER 8, 2026.  ", "“October 8, 2026”",
        "Thursday 2026-10-08", "on Thursday, 8 October 2026", "2026-10-08T00:00",
        "2026-10-08 00:00", "2026-10-08T00:00:00", "2026-10-08T00:00:00Z",
        "2026-10-08T00:00:00.000Z", "2026-10-08T00:00:00+02:00", "2026-10-08T00:00-0500",
        "2026-10-08 00:00:00 +00:00",
    ],
)  # fmt: skip
def test_parse_date_accepts(text: str) -> None:
    assert parse_date(text) == OCT_8


@pytest.mark.parametrize(
    "text",
    [
        "", "Oct 8", "8 October", "2026-13-08", "2026-02-30", "08/10", "tomorrow",
        "Octember 8, 2026", "Friday, Oct 8, 2026", "Monday Tuesday 2026-10-08", "2026-10-08 15:00",
        "10-08-2026", "8 10 2026", "2026", "October 2026", "2026-10-08T15:00", "2026-10-08T00:01",
        "2026-10-08T00:00:01", "2026-10-08T00:00:00.001", "2026-10-08T24:00", "2026-10-08 12:00 AM",
        "2026-10-08 midnight", "2026-10-08T00:00 15:00", "Thursday 2026-10-08T00:00",
    ],
)  # fmt: skip
def test_parse_date_rejects(text: str) -> None:
    assert parse_date(text) is None


def test_slash_date_with_year_last_is_us_month_day() -> None:
    assert parse_date("08/10/2026") == datetime.date(2026, 8, 10)


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("2026-10-20", "match"),
        ("October 20, 2026", "match"),
        ("2026-10-19", "value mismatch"),
        ("2026-10-21", "value mismatch"),
        ("Oct 20, 2025", "value mismatch"),
        ("2026-10-20T00:00", "match"),
        ("2026-10-20 00:00:00Z", "match"),
        ("2026-10-20T00:00:00+02:00", "match"),
        ("2026-10-19T00:00:00Z", "value mismatch"),
        ("2026-10-20T15:00", "unparseable value"),
        ("2026-10-19T22:00:00Z", "unparseable value"),
        ("20/10/2026", "unparseable value"),
        ("Oct 20", "unparseable value"),
        (["2026-10-20"], "wrong value shape"),
        (20261020, "unparseable value"),
        (None, "unparseable value"),
    ],
)
def test_date_scores(written: object, reason: str) -> None:
    result = answer("date", "2026-10-20", written)
    assert result == Score(reason == "match", reason)


# --- times --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("15:00", (15, 0)), ("15.00", (15, 0)), ("15:00:00", (15, 0)), ("15h00", (15, 0)),
        ("15h", (15, 0)), ("3pm", (15, 0)), ("3 pm", (15, 0)), ("3:00 PM", (15, 0)),
        ("3:00pm", (15, 0)), ("3 p.m.", (15, 0)), ("3 P.M.", (15, 0)), ("09:30", (9, 30)),
        ("9:30", (9, 30)), ("9:30 am", (9, 30)), ("12am", (0, 0)), ("12 pm", (12, 0)),
        ("12:15 AM", (0, 15)), ("noon", (12, 0)), ("Noon", (12, 0)), ("12 noon", (12, 0)),
        ("midday", (12, 0)), ("midnight", (0, 0)), ("0:00", (0, 0)), ("23:59", (23, 59)),
        ("8h30", (8, 30)), ("15:00:00.000", (15, 0)), ("15:00:00.0", (15, 0)),
    ],
)  # fmt: skip
def test_parse_time_accepts(text: str, expected: tuple[int, int]) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "", "15", "3", "24:00", "15:60", "13pm", "0am", "15:00 pm", "3:5pm", "15:00:30",
        "three pm", "3 o'clock", "15:", "afternoon", "15:00:00.5", "15:00.00",
    ],
)  # fmt: skip
def test_parse_time_rejects(text: str) -> None:
    assert parse_time(text) is None


# --- datetimes ----------------------------------------------------------------------------------

OCT_8_3PM = datetime.datetime(2026, 10, 8, 15, 0)


@pytest.mark.parametrize(
    "text",
    [
        "2026-10-08 15:00", "2026-10-08T15:00", "2026-10-08T15:00:00", "2026-10-08 3pm",
        "Oct 8, 2026 3:00 PM", "Oct 8, 2026, 3:00 PM", "3pm on 8 October 2026",
        "3 pm on October 8, 2026", "October 8, 2026 at 15:00", "Thursday, October 8, 2026 at 3pm",
        "15:00 on 2026-10-08", "10/08/2026 15:00", "8 Oct 2026 @ 15h00", "2026-10-08 - 15:00",
        "2026-10-08 15:00:00", "2026-10-08T15:00:00.000", "2026-10-08T15:00:00.000000",
    ],
)  # fmt: skip
def test_parse_datetime_accepts(text: str) -> None:
    assert parse_datetime(text) == OCT_8_3PM


@pytest.mark.parametrize(
    "text",
    [
        "", "2026-10-08", "15:00", "Oct 8 3pm", "2026-10-08 15", "2026-10-08 25:00",
        "Friday, October 8, 2026 at 3pm", "2026-10-08 15:00 and 2026-10-09 15:00",
        "2026-10-08T15:00:30", "2026-10-08 00:00 15:00", "2026-10-08T15:00 +1",
    ],
)  # fmt: skip
def test_parse_datetime_rejects(text: str) -> None:
    assert parse_datetime(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "2026-10-08T15:00Z", "2026-10-08T15:00:00Z", "2026-10-08T15:00:00.000Z",
        "2026-10-08T15:00+02:00", "2026-10-08 15:00 -05:00", "2026-10-08T15:00:00+0000",
    ],
)  # fmt: skip
def test_an_iso_datetime_with_an_offset_is_ambiguous(text: str) -> None:
    assert parse_datetime(text) is AMBIGUOUS


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("2026-10-14 09:30", "match"),
        ("Oct 14, 2026 9:30 AM", "match"),
        ("9:30am on 14 October 2026", "match"),
        ("2026-10-14 09:31", "value mismatch"),
        ("2026-10-14 09:29", "value mismatch"),
        ("2026-10-14 21:30", "value mismatch"),
        ("2026-10-15 09:30", "value mismatch"),
        ("2026-10-13 09:30", "value mismatch"),
        ("2026-10-14T09:30:00", "match"),
        ("2026-10-14T09:30:00.000", "match"),
        ("2026-10-14T09:30:00Z", "ambiguous value"),
        ("2026-10-14T09:30+02:00", "ambiguous value"),
        ("2026-10-14T07:30:00Z", "ambiguous value"),
        ("2026-10-14T09:30:15", "unparseable value"),
        ("2026-10-14", "unparseable value"),
        ("Wednesday at 9:30", "unparseable value"),
        (["2026-10-14 09:30"], "wrong value shape"),
    ],
)
def test_datetime_scores(written: object, reason: str) -> None:
    assert answer("datetime", "2026-10-14 09:30", written) == Score(reason == "match", reason)


# --- weekday and time ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Tuesday 10:00", "Tuesdays at 10am", "every Tuesday at 10:00", "Tue 10:00", "Tue. 10:00",
        "Tues 10am", "tuesday, 10:00", "TUESDAY 10 AM", "10am on Tuesdays", "10:00 every Tuesday",
        "each Tuesday @ 10:00", "weekly on Tuesday at 10h00",
    ],
)  # fmt: skip
def test_parse_weekday_time_accepts(text: str) -> None:
    assert parse_weekday_time(text) == (1, (10, 0))


@pytest.mark.parametrize(
    "text",
    ["", "Tuesday", "10:00", "Tuesday 10", "Tuesday and Thursday 10:00", "Tuesday 10:00-11:00"],
)
def test_parse_weekday_time_rejects(text: str) -> None:
    assert parse_weekday_time(text) is None


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("Tuesday 10:00", "match"),
        ("Tuesdays at 10am", "match"),
        ("Wednesday 10:00", "value mismatch"),
        ("Monday 10:00", "value mismatch"),
        ("Tuesday 10:01", "value mismatch"),
        ("Tuesday 10pm", "value mismatch"),
        ("Tuesday 10:00:00", "match"),
        ("Tuesday", "unparseable value"),
        ("2026-10-13 10:00", "unparseable value"),
    ],
)
def test_weekday_time_scores(written: object, reason: str) -> None:
    assert answer("weekday_time", "Tuesday 10:00", written) == Score(reason == "match", reason)


# --- time ranges --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "09:00-17:30", "9:00-17:30", "09:00 - 17:30", "9am–5:30pm", "9am—5:30pm", "9 am - 5:30 pm",
        "9:00 to 17:30", "from 9 to 5:30 pm", "from 9am to 5:30pm", "between 9am and 5:30pm",
        "9-5:30pm", "9:00 until 17:30", "09h00-17h30", "9 AM to 5:30 PM",
    ],
)  # fmt: skip
def test_parse_time_range_accepts(text: str) -> None:
    assert parse_time_range(text) == ((9, 0), (17, 30))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1-3pm", ((13, 0), (15, 0))),
        ("10-2pm", ((10, 0), (14, 0))),
        ("9-11am", ((9, 0), (11, 0))),
        ("noon to 2pm", ((12, 0), (14, 0))),
        ("22:00-06:00", ((22, 0), (6, 0))),
    ],
)
def test_parse_time_range_infers_start_meridiem(
    text: str, expected: tuple[tuple[int, int], tuple[int, int]]
) -> None:
    assert parse_time_range(text) == expected


@pytest.mark.parametrize(
    "text", ["", "9-17", "9-17:30", "09:00", "09:00-", "9am-5pm-6pm", "09:00-25:00", "all day"]
)
def test_parse_time_range_rejects(text: str) -> None:
    assert parse_time_range(text) is None


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("09:00-17:30", "match"),
        ("9am–5:30pm", "match"),
        ("09:00:00-17:30:00", "match"),
        ("09:00:00.000-17:30:00.000", "match"),
        ("09:00:00-17:30:30", "unparseable value"),
        ("09:00-17:31", "value mismatch"),
        ("08:59-17:30", "value mismatch"),
        ("09:00-17:00", "value mismatch"),
        ("9am-5pm", "value mismatch"),
        ("9-17", "unparseable value"),
        (["09:00", "17:30"], "wrong value shape"),
    ],
)
def test_time_range_scores(written: object, reason: str) -> None:
    assert answer("time_range", "09:00-17:30", written) == Score(reason == "match", reason)


# --- entities -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Kestrel Labs", "kestrel labs"), ("Kestrel Labs", "  Kestrel   Labs. "),
        ("Kestrel Labs", '"Kestrel Labs"'), ("Ana Silva", "ANA SILVA"), ("Ana Silva", "Ana\tSilva"),
        ("Sao Paulo", "São Paulo"), ("Ana Silva-Costa", "Ana Silva–Costa"),
        ("Ana Silva-Costa", "Ana Silva Costa"), ("O'Brien", "O’Brien"), ("O'Brien", "OBrien"),
        ("Smith & Co", "Smith and Co"), ("Kestrel Labs, Inc.", "Kestrel Labs Inc"),
        ("Horizon Audit", "horizon-audit"), ("Porto", "Porto!"),
    ],
)  # fmt: skip
def test_normalize_entity_folds(left: str, right: str) -> None:
    assert normalize_entity(left) == normalize_entity(right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("The Kestrel Labs", "Kestrel Labs"), ("Ana Silva", "Ana Silvia"), ("Ana Silva", "Ana"),
        ("Porto", "Lisbon"), ("Kestrel Labs", "Kestrel Lab"), ("Ana Silva", "Silva Ana"),
    ],
)  # fmt: skip
def test_normalize_entity_keeps_apart(left: str, right: str) -> None:
    assert normalize_entity(left) != normalize_entity(right)


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("Kestrel Labs", "match"),
        ("kestrel labs.", "match"),
        (["Kestrel Labs"], "match"),
        ("Kestral Labs", "value mismatch"),
        ("The Kestrel Labs", "value mismatch"),
        ("Kestrel", "value mismatch"),
        (["Kestrel Labs", "Ana Silva"], "value mismatch"),
        (["Kestrel Labs", "Kestrel Labs"], "value mismatch"),
        ([], "value mismatch"),
        ("", "unparseable value"),
        ("...", "unparseable value"),
        (7, "unparseable value"),
        ({"name": "Kestrel Labs"}, "unparseable value"),
        ([["Kestrel Labs"]], "value mismatch"),
    ],
)
def test_entity_scores(written: object, reason: str) -> None:
    assert answer("entity", "Kestrel Labs", written) == Score(reason == "match", reason)


def test_entity_different_city_is_wrong() -> None:
    assert answer("entity", "Porto", "Lisbon") == Score(False, "value mismatch")


# --- entity sets --------------------------------------------------------------------------------

PAIR = ["Ana Silva", "Ben Ode"]


@pytest.mark.parametrize(
    "written",
    [
        ["Ana Silva", "Ben Ode"], ["Ben Ode", "Ana Silva"], ["ben ode", "ANA SILVA", "Ana Silva"],
        "Ana Silva, Ben Ode", "Ana Silva; Ben Ode", "Ana Silva and Ben Ode", "Ben Ode & Ana Silva",
        "Ana Silva\nBen Ode", "Ana Silva, and Ben Ode", ["Ana Silva", "Ben Ode", ""],
    ],
)  # fmt: skip
def test_set_accepts(written: object) -> None:
    assert answer("entity_set", PAIR, written) == Score(True, "match")


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        (["Ana Silva"], "value mismatch"),
        ("Ana Silva", "value mismatch"),
        (["Ana Silva", "Ben Ode", "Cy Dee"], "value mismatch"),
        ("Ana Silva, Ben Ode, Cy Dee", "value mismatch"),
        (["Ana Silva", "Ben Odé", "Ben Ode"], "match"),
        (["Ana Silva", "Ben Odd"], "value mismatch"),
        ([], "value mismatch"),
        ("none", "value mismatch"),
        ([1, 2], "unparseable value"),
        (["Ana Silva", None], "unparseable value"),
        (3, "unparseable value"),
    ],
)
def test_set_scores(written: object, reason: str) -> None:
    assert answer("entity_set", PAIR, written) == Score(reason == "match", reason)


def test_set_title_containing_and_is_kept_whole() -> None:
    gold = ["Lunch and learn", "Writing club"]
    assert answer("entity_set", gold, "Lunch and learn, Writing club").correct
    assert answer("entity_set", gold, ["Writing club", "lunch and learn"]).correct
    assert not answer("entity_set", gold, ["Lunch", "learn", "Writing club"]).correct


@pytest.mark.parametrize(
    "written", [[], "", "none", "None.", "NO ONE", "nobody", "  Nobody  ", [""]]
)
def test_empty_set_accepts(written: object) -> None:
    assert answer("entity_set", [], written) == Score(True, "match")


@pytest.mark.parametrize("written", [["Ana Silva"], "Ana Silva", "nothing", ["none"]])
def test_empty_set_rejects(written: object) -> None:
    assert not answer("entity_set", [], written).correct


# --- time zones ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("Europe/Lisbon", "Europe/Lisbon"), ("europe/lisbon", "Europe/Lisbon"),
        ("EUROPE/LISBON", "Europe/Lisbon"), ("Europe/Lisbon time zone", "Europe/Lisbon"),
        ("Europe/Lisbon (WET)", "Europe/Lisbon"), ("WET (Europe/Lisbon)", "Europe/Lisbon"),
        ("Lisbon time", "Europe/Lisbon"), ("Porto", "Europe/Lisbon"), ("Portugal", "Europe/Lisbon"),
        ("America/New York", "America/New_York"), ("america/new_york", "America/New_York"),
        ("US/Eastern", "America/New_York"), ("us/eastern", "America/New_York"),
        ("New York time", "America/New_York"), ("Canada/Eastern", "America/Toronto"),
        ("US/Pacific", "America/Los_Angeles"), ("Canada/Pacific", "America/Vancouver"),
        ("Asia/Calcutta", "Asia/Kolkata"), ("Japan", "Asia/Tokyo"), ("Japan time", "Asia/Tokyo"),
        ("ROK", "Asia/Seoul"), ("Singapore time", "Asia/Singapore"), ("NZ", "Pacific/Auckland"),
        ("America/Buenos_Aires", "America/Argentina/Buenos_Aires"), ("GB", "Europe/London"),
        ("Eire", "Europe/Dublin"), ("Turkey", "Europe/Istanbul"),
        ("Asia/Istanbul", "Europe/Istanbul"),
        ("São Paulo time zone", "America/Sao_Paulo"), ("Cape Town", "Africa/Johannesburg"),
        ("Central European Time (Europe/Berlin)", "Europe/Berlin"),
        ("Europe/Berlin (UTC+01:00)", "Europe/Berlin"),
        ("Europe/Berlin (CET/CEST)", "Europe/Berlin"),
        ("UTC", "Etc/UTC"), ("Etc/UTC", "Etc/UTC"), ("Zulu", "Etc/UTC"), ("Etc/GMT", "Etc/UTC"),
        ("Europe/Stockholm", "Europe/Stockholm"), ("Europe/Amsterdam", "Europe/Amsterdam"),
        ("Asia/Saigon", "Asia/Saigon"), ("Etc/GMT-1", "Etc/GMT-1"),
    ],
)  # fmt: skip
def test_canonical_timezone(text: str, zone: str) -> None:
    assert canonical_timezone(text) == zone


@pytest.mark.parametrize(
    "text",
    [
        "CET", "cet", "CEST", "CET/CEST", "CET time zone", "EET", "WET", "MET", "EST", "EDT", "ET",
        "PST", "PT", "CST", "MST", "HST", "GMT", "BST", "IST", "JST", "KST", "SGT", "NZST", "AEST",
        "EAT", "SAST", "Z", "GMT0", "GMT+0", "Greenwich", "EST5EDT", "PST8PDT", "UTC+1",
        "UTC +01:00", "GMT-5", "+01:00", "-0500", "UTC+5:30", "UTC+0", "+08", "UTC−05:00",
        "Eastern Time", "US Eastern", "Pacific Time (PT)", "Central Time", "Mountain Time",
        "Central European Time", "Central European Summer Time", "Japan Standard Time",
        "India Standard Time", "Greenwich Mean Time", "W. Europe Standard Time",
        "Europe/Berlin (Europe/Paris)",
        "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
    ],
)  # fmt: skip
def test_offsets_and_abbreviations_are_ambiguous(text: str) -> None:
    assert canonical_timezone(text) is AMBIGUOUS


@pytest.mark.parametrize(
    "text",
    ["", "Europe/Lisbn", "Lisbon or Madrid", "Atlantis time", "UK time", "Europe", "Europe/"],
)
def test_canonical_timezone_rejects(text: str) -> None:
    assert canonical_timezone(text) is None


@pytest.mark.parametrize(("city", "zone"), CITIES)
def test_every_pool_city_names_its_zone(city: str, zone: str) -> None:
    assert CITY_ZONES[normalize_entity(city)] == zone
    assert canonical_timezone(zone) == zone
    assert canonical_timezone(f"{city} time") == zone


def test_zone_names_come_from_the_pinned_tzdata() -> None:
    pool_zones = {zone for _, zone in CITIES}
    assert pool_zones <= IANA_NAMES
    assert set(LEGACY_NAMES) <= IANA_NAMES
    assert set(LEGACY_NAMES.values()) <= pool_zones | {"Etc/UTC"}
    assert not pool_zones & set(LEGACY_NAMES), "a pool zone must be its own canonical name"


@pytest.mark.parametrize(
    ("gold", "written", "reason"),
    [
        ("Europe/Lisbon", "Europe/Lisbon", "match"),
        ("Europe/Lisbon", "lisbon time", "match"),
        ("Europe/Berlin", "Europe/Berlin (CET)", "match"),
        ("America/New_York", "US/Eastern", "match"),
        ("Asia/Kolkata", "Asia/Calcutta", "match"),
        ("Europe/Berlin", "CET", "ambiguous value"),
        ("Europe/Paris", "CET", "ambiguous value"),
        ("Europe/Brussels", "CET", "ambiguous value"),
        ("Europe/Lisbon", "WET", "ambiguous value"),
        ("America/Phoenix", "MST", "ambiguous value"),
        ("Asia/Tokyo", "JST", "ambiguous value"),
        ("Europe/London", "GMT", "ambiguous value"),
        ("Europe/Berlin", "UTC+1", "ambiguous value"),
        ("America/New_York", "Eastern Time", "ambiguous value"),
        ("America/Toronto", "Eastern Time", "ambiguous value"),
        ("Europe/London", "UTC", "value mismatch"),
        ("America/Toronto", "US/Eastern", "value mismatch"),
        ("Europe/Paris", "Europe/Berlin (CET)", "value mismatch"),
        ("Europe/Berlin", "Europe/Stockholm", "value mismatch"),
        ("Europe/Stockholm", "Europe/Berlin", "value mismatch"),
        ("Europe/Brussels", "Europe/Amsterdam", "value mismatch"),
        ("Europe/Lisbon", "Europe/Madrid", "value mismatch"),
        ("Europe/Lisbon", "Europe/Lisbn", "unparseable value"),
        ("Europe/Lisbon", ["Europe/Lisbon"], "wrong value shape"),
    ],
)
def test_timezone_scores(gold: str, written: object, reason: str) -> None:
    assert answer("timezone", gold, written) == Score(reason == "match", reason)


# --- diet and commute ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("vegetarian", "vegetarian"), ("Vegetarian.", "vegetarian"), ("veggie", "vegetarian"),
        ("no meat", "vegetarian"), ("a vegetarian diet", "vegetarian"),
        ("doesn't eat meat", "vegetarian"), ("lacto-ovo vegetarian", "vegetarian"),
        ("vegan", "vegan"), ("plant-based", "vegan"), ("strictly vegan", "vegan"),
        ("pescatarian", "pescatarian"), ("pescetarian", "pescatarian"),
        ("fish but no meat", "pescatarian"), ("eats fish but no meat", "pescatarian"),
        ("omnivore", "omnivore"), ("omnivorous", "omnivore"), ("eats everything", "omnivore"),
        ("no dietary restrictions", "omnivore"), ("gluten-free", "gluten-free"),
        ("Gluten free", "gluten-free"), ("gluten–free", "gluten-free"), ("celiac", "gluten-free"),
        ("dairy-free", "dairy-free"), ("no dairy", "dairy-free"),
    ],
)  # fmt: skip
def test_canonical_diet(text: str, diet: str) -> None:
    assert canonical_diet(text) == diet


@pytest.mark.parametrize(
    "text", ["", "not vegan", "keto", "lactose-free", "vegetarian or vegan", "meat", "vegn"]
)
def test_canonical_diet_rejects(text: str) -> None:
    assert canonical_diet(text) is None


@pytest.mark.parametrize(
    ("text", "commute"),
    [
        ("bike", "bike"), ("by bike", "bike"), ("by bicycle", "bike"), ("cycling", "bike"),
        ("cycles", "bike"), ("rides a bike", "bike"), ("e-bike", "bike"), ("train", "train"),
        ("by train", "train"), ("takes the train", "train"), ("subway", "train"),
        ("the metro", "train"), ("tram", "train"), ("bus", "bus"), ("takes the bus", "bus"),
        ("by bus", "bus"), ("car", "car"), ("by car", "car"), ("drives", "car"),
        ("drives to work", "car"), ("walking", "walking"), ("walks", "walking"),
        ("walk", "walking"), ("on foot", "walking"), ("walks to work", "walking"),
        ("scooter", "scooter"), ("e-scooter", "scooter"), ("electric scooter", "scooter"),
        ("on a scooter", "scooter"),
    ],
)  # fmt: skip
def test_canonical_commute(text: str, commute: str) -> None:
    assert canonical_commute(text) == commute


@pytest.mark.parametrize("text", ["", "plane", "bike or train", "remote", "teleports", "bikke"])
def test_canonical_commute_rejects(text: str) -> None:
    assert canonical_commute(text) is None


@pytest.mark.parametrize("diet", DIETS)
def test_every_pool_diet_is_its_own_canonical_form(diet: str) -> None:
    assert canonical_diet(diet) == diet
    assert answer("diet", diet, diet.upper()).correct


@pytest.mark.parametrize("commute", COMMUTES)
def test_every_pool_commute_is_its_own_canonical_form(commute: str) -> None:
    assert canonical_commute(commute) == commute
    assert answer("commute", commute, f"by {commute}").correct or commute == "walking"


@pytest.mark.parametrize(
    ("value_type", "gold", "written", "reason"),
    [
        ("diet", "vegan", "vegetarian", "value mismatch"),
        ("diet", "vegetarian", "plant-based", "value mismatch"),
        ("diet", "pescatarian", "fish but no meat", "match"),
        ("diet", "vegan", "keto", "unparseable value"),
        ("commute", "bike", "cycling", "match"),
        ("commute", "bike", "scooter", "value mismatch"),
        ("commute", "train", "bus", "value mismatch"),
        ("commute", "walking", "on foot", "match"),
        ("commute", "car", "teleport", "unparseable value"),
        ("commute", "car", ["car"], "wrong value shape"),
    ],
)
def test_diet_and_commute_scores(value_type: str, gold: str, written: object, reason: str) -> None:
    assert answer(value_type, gold, written) == Score(reason == "match", reason)


# --- statuses -----------------------------------------------------------------------------------

GOLD_BY_TYPE: dict[str, object] = {
    "entity": "Kestrel Labs",
    "timezone": "Europe/Lisbon",
    "diet": "vegetarian",
    "commute": "bike",
    "weekday_time": "Tuesday 10:00",
    "datetime": "2026-10-14 09:30",
    "date": "2026-10-20",
    "time_range": "09:00-17:30",
    "entity_set": ["Ana Silva", "Ben Ode"],
}


def test_gold_table_covers_every_value_type() -> None:
    assert set(GOLD_BY_TYPE) == set(VALUE_TYPES)


@pytest.mark.parametrize("value_type", VALUE_TYPES)
def test_gold_value_matches_itself(value_type: str) -> None:
    gold = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, "answer", gold, "answer", gold) == Score(True, "match")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
@pytest.mark.parametrize("answer_status", ["abstain", "blocked"])
def test_right_value_with_wrong_status_is_wrong(value_type: str, answer_status: str) -> None:
    gold = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, "answer", gold, answer_status, gold) == Score(False, "status mismatch")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
@pytest.mark.parametrize("gold_status", ["answer", "abstain", "blocked"])
def test_failed_is_never_correct(value_type: str, gold_status: str) -> None:
    gold = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, gold_status, gold, "failed", gold) == Score(False, "answer failed")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
def test_abstain_answered_with_a_value_is_wrong(value_type: str) -> None:
    value = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, "abstain", None, "answer", value) == Score(False, "status mismatch")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
@pytest.mark.parametrize("status", ["abstain", "blocked"])
@pytest.mark.parametrize("answer_value", [None, "null", '"anything"', "not json"])
def test_matching_non_answer_status_ignores_the_value(
    value_type: str, status: str, answer_value: str | None
) -> None:
    assert score(value_type, status, None, status, answer_value) == Score(True, "match")


@pytest.mark.parametrize(
    ("gold_status", "answer_status"), [("abstain", "blocked"), ("blocked", "abstain")]
)
def test_abstain_and_blocked_are_different(gold_status: str, answer_status: str) -> None:
    assert score("entity", gold_status, None, answer_status, None) == Score(
        False, "status mismatch"
    )


@pytest.mark.parametrize("answer_status", ["", "ANSWER", "yes", "unknown"])
def test_unknown_answer_status_is_wrong(answer_status: str) -> None:
    result = score("entity", "answer", '"Porto"', answer_status, '"Porto"')
    assert result == Score(False, "unknown answer status")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
def test_missing_answer_value_is_wrong(value_type: str) -> None:
    gold = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, "answer", gold, "answer", None) == Score(False, "missing value")


@pytest.mark.parametrize("value_type", VALUE_TYPES)
@pytest.mark.parametrize("bad_json", ["", "{", "Kestrel Labs", "[1,", "NaN]", "'x'"])
def test_invalid_answer_json_is_unparseable(value_type: str, bad_json: str) -> None:
    gold = json.dumps(GOLD_BY_TYPE[value_type])
    assert score(value_type, "answer", gold, "answer", bad_json) == Score(
        False, "unparseable value"
    )


def test_deeply_nested_answer_json_does_not_raise() -> None:
    result = score("entity", "answer", '"Porto"', "answer", "[" * 5000 + "]" * 5000)
    assert not result.correct


def test_oversized_answer_is_unparseable() -> None:
    huge = json.dumps("Porto" + " " * 20_000)
    assert score("entity", "answer", '"Porto"', "answer", huge) == Score(False, "unparseable value")


@pytest.mark.parametrize(
    ("value_type", "gold_status", "gold_value"),
    [
        ("number", "answer", '"1"'),
        ("entity", "maybe", '"Porto"'),
        ("entity", "answer", None),
        ("entity", "answer", "not json"),
        ("date", "answer", '"someday"'),
        ("entity_set", "answer", '"Ana Silva"'),
        ("entity", "answer", '""'),
        ("timezone", "answer", '"CET"'),
        ("timezone", "answer", '"UTC+1"'),
        ("datetime", "answer", '"2026-10-14T09:30Z"'),
    ],
)
def test_bad_gold_raises(value_type: str, gold_status: str, gold_value: str | None) -> None:
    with pytest.raises(ValueError):
        score(value_type, gold_status, gold_value, "answer", '"Porto"')


def test_kept_fork_value_compares_an_answer_after_the_fork_with_the_forks_gold():
    from memshift.scoring.scorer import kept_fork_value

    fork = {"gold_status": "answer", "gold_value": '"2026-10-20"'}
    probe = {"kind": "direct", "checkpoint": 2, "value_type": "date"}
    kept = {"status": "answer", "value": '"2026-10-20"'}
    moved = {"status": "answer", "value": '"2026-10-27"'}
    assert kept_fork_value(probe, kept, fork) is True
    assert kept_fork_value(probe, moved, fork) is False
    assert kept_fork_value(probe, {"status": "abstain", "value": None}, fork) is False
    assert kept_fork_value({**probe, "checkpoint": 0}, kept, fork) is None
    assert kept_fork_value({**probe, "kind": "premise"}, kept, fork) is None
    assert kept_fork_value(probe, kept, {"gold_status": "abstain", "gold_value": None}) is None
    assert kept_fork_value(probe, kept, None) is None
