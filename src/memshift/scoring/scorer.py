"""Score a reader's answer against the gold answer for one probe, deterministically.

Parsing is tolerant of how a model writes a value; the comparison is strict (no fuzzy matching).

Decisions on the points a reader may write ambiguously:

- Dates need a year. Slash dates with the year last are US month/day ("10/08/2026" is 8 October);
  slash or dot dates with the year first are year/month/day. A weekday written next to a date must
  be that date's weekday, otherwise the value is unparseable. A date serialized as an ISO datetime
  at midnight ("2026-10-08T00:00", "2026-10-08 00:00:00.000Z") is that date, whatever its offset;
  another time of day states a moment, which is not a date.
- Datetimes are wall-clock times, like the world's clock. An ISO datetime with an offset
  ("2026-10-14T09:30Z") is ambiguous: the gold has no offset to compare it with.
- Times: "15:00", "15.00", "15:00:00", "15:00:00.000", "15h00", "15h", "3pm", "3 p.m.",
  "3:00 PM", "noon", "midday", "midnight". A bare number ("15", "3") is unparseable: without a
  separator or am/pm it is ambiguous. "24:00" and seconds other than zero are rejected.
- Time ranges: "09:00-17:30", "9am–5:30pm", "9:00 to 17:30", "from 9 to 5:30 pm",
  "between 9am and 5:30pm". A start without am/pm takes the end's am/pm when that keeps the start
  before the end, else the other one ("9-5:30pm" is 09:00-17:30, "1-3pm" is 13:00-15:00).
- Entities: a one-element list whose element matches a scalar gold is accepted (readers sometimes
  wrap scalars); longer lists are a value mismatch. This applies to the entity type only: a list for
  a date, time, zone, diet or commute is the wrong shape.
- Sets: a JSON list, or a string split on commas, semicolons and newlines, and optionally also on
  "and"/"&" (both readings are tried, since a title may contain "and"). An empty set is [], "",
  "none", "no one" or "nobody". Elements that normalize to nothing are dropped.
- Time zones: an answer names a place's zone or it is not credited. IANA names (case-insensitive,
  spaces for underscores) of the pinned tzdata package, the LEGACY_NAMES of the pool's zones
  (Asia/Calcutta, US/Eastern, Japan) and the pool's cities ("Lisbon time") name a zone.
  Abbreviations, UTC offsets and offset names (CET, CEST, EST, GMT, UTC+1, Eastern Time) are
  ambiguous, never credited: several zones share each, so crediting one would credit a stale answer
  after a move between two of them (Berlin to Paris, both CET). UTC names the zone Etc/UTC.
- Commute: metro, subway, underground, tube, tram and light rail count as train.
- Diet: "lactose-free" is not "dairy-free" (lactose-free dairy exists).

A bad answer never raises; a bad gold (unknown type or status, unparseable or ambiguous gold
value) raises ValueError because it is a bug in the data, not in the reader. docs/memory.md
(Scoring) has a table of examples with the reason for each decision.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

GOLD_STATUSES = ("answer", "abstain", "blocked")
ANSWER_STATUSES = ("answer", "abstain", "blocked", "failed")
MAX_ANSWER_CHARS = 10_000
MAX_DATETIME_TOKENS = 24

Clock = tuple[int, int]
MIDNIGHT: Clock = (0, 0)


@dataclass(frozen=True)
class Score:
    correct: bool
    reason: str


MATCH = Score(True, "match")
STATUS_MISMATCH = Score(False, "status mismatch")
ANSWER_FAILED = Score(False, "answer failed")
UNKNOWN_ANSWER_STATUS = Score(False, "unknown answer status")
MISSING_VALUE = Score(False, "missing value")
UNPARSEABLE = Score(False, "unparseable value")
WRONG_SHAPE = Score(False, "wrong value shape")
VALUE_MISMATCH = Score(False, "value mismatch")
AMBIGUOUS_VALUE = Score(False, "ambiguous value")


@dataclass(frozen=True)
class Ambiguous:
    """An answer that was read but names more than one value: a time-zone abbreviation, offset or
    generic name (several zones share it), or a moment with an offset (the gold's local time has
    none to compare it with)."""


AMBIGUOUS = Ambiguous()


# --- text helpers -------------------------------------------------------------------------------

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u00b4\u0060"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
_FOLD_TABLE = str.maketrans(
    {
        **{c: "-" for c in _DASHES},
        **{c: "'" for c in _SINGLE_QUOTES},
        **{c: '"' for c in _DOUBLE_QUOTES},
        "\u00a0": " ",
    }
)


def _strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


# a study scores the same few thousand names hundreds of thousands of times
@functools.lru_cache(maxsize=1 << 16)
def _fold(text: str) -> str:
    """Lowercase, accent-free, dashes and quotes folded to ASCII, whitespace collapsed."""
    # Applied twice because NFKD can reveal upper case ("ℌ" -> "H") and casefold can reveal
    # combining marks ("İ" -> "i̇").
    for _ in range(2):
        text = _strip_accents(text).casefold()
    return " ".join(text.translate(_FOLD_TABLE).split())


def _clean(text: str) -> str:
    """Folded text without surrounding quotes, commas as spaces, no trailing full stop."""
    text = _fold(text).replace(",", " ")
    text = text.strip(" \"'`").rstrip(".!;").strip()
    return " ".join(text.split())


@functools.lru_cache(maxsize=1 << 16)
def normalize_entity(text: str) -> str:
    folded = _fold(text).replace("&", " and ").replace("'", "")
    return " ".join(re.sub(r"[\W_]+", " ", folded).split())


# --- dates --------------------------------------------------------------------------------------

_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9,
    "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12,
    "december": 12,
}  # fmt: skip
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_ABBREVIATIONS = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3,
    "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
_WEEKDAYS = {
    **{name: i for i, name in enumerate(_WEEKDAY_NAMES)},
    **{name + "s": i for i, name in enumerate(_WEEKDAY_NAMES)},
    **_WEEKDAY_ABBREVIATIONS,
}

_ISO_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_US_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_MONTH_FIRST = re.compile(r"([a-z]+)\.? (\d{1,2}) (\d{4})")
_DAY_FIRST = re.compile(r"(\d{1,2}) ([a-z]+)\.? (\d{4})")
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")


def _weekday_of(token: str) -> int | None:
    return _WEEKDAYS.get(token.rstrip("."))


def _split_weekdays(text: str) -> tuple[list[int], list[str]]:
    """The weekdays named in text, and the remaining words."""
    weekdays: list[int] = []
    rest: list[str] = []
    for token in text.split():
        weekday = _weekday_of(token)
        if weekday is None:
            rest.append(token)
        else:
            weekdays.append(weekday)
    return weekdays, rest


def _make_date(year: str, month: int | None, day: str) -> datetime.date | None:
    if month is None:
        return None
    try:
        return datetime.date(int(year), month, int(day))
    except (ValueError, OverflowError):
        return None


def _parse_bare_date(text: str) -> datetime.date | None:
    if match := _ISO_DATE.fullmatch(text):
        return _make_date(match[1], int(match[2]), match[3])
    if match := _US_DATE.fullmatch(text):
        return _make_date(match[3], int(match[1]), match[2])
    if match := _MONTH_FIRST.fullmatch(text):
        return _make_date(match[3], _MONTHS.get(match[1]), match[2])
    if match := _DAY_FIRST.fullmatch(text):
        return _make_date(match[3], _MONTHS.get(match[2]), match[1])
    return None


def _written_date(cleaned: str) -> datetime.date | None:
    weekdays, rest = _split_weekdays(_ORDINAL.sub(r"\1", cleaned))
    words = [word for word in rest if word not in ("of", "the", "on")]
    date = _parse_bare_date(" ".join(words))
    if date is None or len(weekdays) > 1:
        return None
    if weekdays and weekdays[0] != date.weekday():
        return None
    return date


def parse_date(text: str) -> datetime.date | None:
    """A date as a person writes it, or a date serialized as an ISO datetime at midnight
    ("2026-10-08T00:00:00Z"): any other time of day states a moment, not a date."""
    cleaned = _clean(text)
    iso = _iso_datetime(cleaned)
    if iso is not None:
        return iso.date if iso.clock == MIDNIGHT else None
    return _written_date(cleaned)


# --- times --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ClockToken:
    hour: int
    minute: int
    meridiem: str | None  # "am", "pm" or None
    has_separator: bool


_CLOCK = re.compile(
    r"(?P<h>\d{1,2})"
    r"(?:(?P<sep>[:.h])(?P<m>\d{2})?(?::(?P<s>\d{2})(?:\.(?P<fraction>\d+))?)?)?"
    r" ?(?:(?P<mer>[ap])\.? ?m\.?)?"
)
_NAMED_CLOCKS = {
    "noon": _ClockToken(12, 0, "pm", True),
    "midday": _ClockToken(12, 0, "pm", True),
    "12 noon": _ClockToken(12, 0, "pm", True),
    "midnight": _ClockToken(12, 0, "am", True),
    "12 midnight": _ClockToken(12, 0, "am", True),
}


def _clock_token(text: str) -> _ClockToken | None:
    text = _clean(text)
    if text in _NAMED_CLOCKS:
        return _NAMED_CLOCKS[text]
    match = _CLOCK.fullmatch(text)
    if match is None or match["s"] not in (None, "00") or (match["fraction"] or "0").strip("0"):
        return None
    separator, minutes = match["sep"], match["m"]
    if separator in (":", ".") and minutes is None:
        return None
    meridiem = f"{match['mer']}m" if match["mer"] else None
    return _ClockToken(int(match["h"]), int(minutes or 0), meridiem, separator is not None)


def _with_meridiem(hour: int, meridiem: str) -> int | None:
    if not 1 <= hour <= 12:
        return None
    return hour % 12 + (12 if meridiem == "pm" else 0)


def _resolve(token: _ClockToken, meridiem: str | None = None) -> Clock | None:
    meridiem = token.meridiem or meridiem
    if token.minute > 59:
        return None
    if meridiem is None:
        if not token.has_separator or token.hour > 23:
            return None
        return token.hour, token.minute
    hour = _with_meridiem(token.hour, meridiem)
    return None if hour is None else (hour, token.minute)


def parse_time(text: str) -> Clock | None:
    token = _clock_token(text)
    return None if token is None else _resolve(token)


# --- datetimes ----------------------------------------------------------------------------------

_ISO_DATETIME = re.compile(
    r"(?P<date>\d{4}-\d{1,2}-\d{1,2})[t ](?P<clock>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)"
    r" ?(?P<offset>z|[+-]\d{2}(?::?\d{2})?)?"
)
_ISO_T = re.compile(r"(\d)t(\d)")
_JOINERS = frozenset({"at", "on", "@", "-"})


@dataclass(frozen=True)
class _IsoDatetime:
    date: datetime.date
    clock: Clock
    has_offset: bool


def _iso_datetime(cleaned: str) -> _IsoDatetime | None:
    """A machine-written datetime: ISO date, "T" or a space, 24-hour time with optional seconds
    and zero fraction, optional offset ("Z", "+02:00", "-0500")."""
    match = _ISO_DATETIME.fullmatch(cleaned)
    if match is None:
        return None
    date, clock = _parse_bare_date(match["date"]), parse_time(match["clock"])
    if date is None or clock is None:
        return None
    return _IsoDatetime(date, clock, match["offset"] is not None)


def _date_time_splits(tokens: list[str]) -> Iterator[datetime.datetime]:
    for cut in range(1, len(tokens)):
        left, right = " ".join(tokens[:cut]), " ".join(tokens[cut:])
        for date_text, time_text in ((left, right), (right, left)):
            date, clock = _written_date(date_text), parse_time(time_text)
            if date is not None and clock is not None:
                yield datetime.datetime.combine(date, datetime.time(*clock))


def parse_datetime(text: str) -> datetime.datetime | Ambiguous | None:
    """A moment in the world's local wall-clock time. An ISO datetime with an offset is ambiguous:
    gold times carry no offset, so "09:30Z" is 09:30 local only if the user is on UTC."""
    cleaned = _clean(text)
    iso = _iso_datetime(cleaned)
    if iso is not None:
        moment = datetime.datetime.combine(iso.date, datetime.time(*iso.clock))
        return AMBIGUOUS if iso.has_offset else moment
    cleaned = _ISO_T.sub(r"\1 \2", cleaned)
    tokens = [token for token in cleaned.split() if token not in _JOINERS]
    if len(tokens) > MAX_DATETIME_TOKENS:
        return None
    readings = set(_date_time_splits(tokens))
    return readings.pop() if len(readings) == 1 else None


# --- weekday and time ---------------------------------------------------------------------------

_WEEKLY_FILLERS = frozenset({"every", "each", "on", "at", "@", "weekly", "-"})


def parse_weekday_time(text: str) -> tuple[int, Clock] | None:
    weekdays, rest = _split_weekdays(_clean(text))
    if len(weekdays) != 1:
        return None
    clock = parse_time(" ".join(word for word in rest if word not in _WEEKLY_FILLERS))
    return None if clock is None else (weekdays[0], clock)


# --- time ranges --------------------------------------------------------------------------------

_RANGE_PREFIX = re.compile(r"^(?:from|between)\s+")
_RANGE_SEPARATOR = re.compile(r"\s*(?:-|\bto\b|\buntil\b|\btill\b|\bthrough\b|\band\b)\s*")


def _resolve_start(start: _ClockToken, end: _ClockToken, end_clock: Clock) -> Clock | None:
    if start.meridiem is not None or end.meridiem is None or not 1 <= start.hour <= 12:
        return _resolve(start)
    other = "am" if end.meridiem == "pm" else "pm"
    for meridiem in (end.meridiem, other):
        clock = _resolve(start, meridiem)
        if clock is not None and clock < end_clock:
            return clock
    return None


def parse_time_range(text: str) -> tuple[Clock, Clock] | None:
    cleaned = _RANGE_PREFIX.sub("", _clean(text))
    parts = _RANGE_SEPARATOR.split(cleaned)
    if len(parts) != 2:
        return None
    start, end = _clock_token(parts[0]), _clock_token(parts[1])
    if start is None or end is None:
        return None
    end_clock = _resolve(end)
    if end_clock is None:
        return None
    start_clock = _resolve_start(start, end, end_clock)
    return None if start_clock is None else (start_clock, end_clock)


# --- time zones ---------------------------------------------------------------------------------

# Every IANA name of the pinned tzdata package (not zoneinfo.available_timezones(), which also
# reads the host's tz database and so differs between machines).
IANA_NAMES: frozenset[str] = frozenset(
    resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split()
)
UTC_ZONE = "Etc/UTC"
# Other IANA names of the pool's zones and of UTC that name the same place: renames and country or
# region names. The tz database's links are not followed as such: they also join places whose
# clocks agree since 1970 (Europe/Stockholm to Europe/Berlin), and a move between those places is
# a change of zone.
LEGACY_NAMES: dict[str, str] = {
    "Egypt": "Africa/Cairo",
    "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
    "US/Central": "America/Chicago",
    "US/Mountain": "America/Denver",
    "US/Pacific": "America/Los_Angeles",
    "Mexico/General": "America/Mexico_City",
    "US/Eastern": "America/New_York",
    "US/Arizona": "America/Phoenix",
    "Brazil/East": "America/Sao_Paulo",
    "Canada/Eastern": "America/Toronto",
    "Canada/Pacific": "America/Vancouver",
    "Asia/Calcutta": "Asia/Kolkata",
    "ROK": "Asia/Seoul",
    "Singapore": "Asia/Singapore",
    "Japan": "Asia/Tokyo",
    "Australia/Victoria": "Australia/Melbourne",
    "Australia/NSW": "Australia/Sydney",
    "Eire": "Europe/Dublin",
    "Asia/Istanbul": "Europe/Istanbul",
    "Turkey": "Europe/Istanbul",
    "Portugal": "Europe/Lisbon",
    "GB": "Europe/London",
    "Poland": "Europe/Warsaw",
    "NZ": "Pacific/Auckland",
    **dict.fromkeys(
        ("UTC", "UCT", "Universal", "Zulu", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/GMT",
         "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Etc/Greenwich"),
        UTC_ZONE,
    ),
}  # fmt: skip
# Abbreviations name an offset that several zones share (CET: Berlin, Paris, Madrid, ...), some
# only for half the year (CEST, BST, EDT). Those that are also IANA names (CET, EST, WET, GMT, ...)
# are read as abbreviations: that is what a reader means, and their IANA links (CET to
# Europe/Brussels) would credit "CET" for Brussels after a move from Berlin.
ZONE_ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "cet", "cest", "met", "mest", "eet", "eest", "wet", "west", "gmt", "bst", "ist", "msk",
        "trt", "est", "edt", "et", "cst", "cdt", "ct", "mst", "mdt", "mt", "pst", "pdt", "pt",
        "akst", "akdt", "hst", "ast", "adt", "nst", "ndt", "brt", "brst", "art", "cot", "clt",
        "pet", "jst", "kst", "sgt", "hkt", "ict", "wib", "pkt", "gst", "aest", "aedt", "acst",
        "acdt", "awst", "nzst", "nzdt", "eat", "wat", "cat", "sast", "z", "gmt0", "greenwich",
        "est5edt", "cst6cdt", "mst7mdt", "pst8pdt",
    }
)  # fmt: skip
_UTC_OFFSET = re.compile(r"(?:utc|gmt)? ?[+-] ?\d{1,2}(?::?\d{2})?")
_OFFSET_NAME = re.compile(
    r".* (?:standard|daylight|summer|mean|saving|savings) time"
    r"|(?:us |north american )?(?:eastern|central|mountain|pacific|atlantic|alaska|hawaii)"
    r"(?: time)?"
    r"|(?:central|eastern|western) europe(?:an)?(?: time)?"
)
# A city's name, alone or followed by "time", names the zone of that city.
CITY_ZONES: dict[str, str] = {
    "lisbon": "Europe/Lisbon", "porto": "Europe/Lisbon", "madrid": "Europe/Madrid",
    "barcelona": "Europe/Madrid", "paris": "Europe/Paris", "lyon": "Europe/Paris",
    "berlin": "Europe/Berlin", "munich": "Europe/Berlin", "hamburg": "Europe/Berlin",
    "amsterdam": "Europe/Amsterdam", "brussels": "Europe/Brussels", "zurich": "Europe/Zurich",
    "vienna": "Europe/Vienna", "prague": "Europe/Prague", "warsaw": "Europe/Warsaw",
    "stockholm": "Europe/Stockholm", "oslo": "Europe/Oslo", "copenhagen": "Europe/Copenhagen",
    "helsinki": "Europe/Helsinki", "dublin": "Europe/Dublin", "london": "Europe/London",
    "edinburgh": "Europe/London", "rome": "Europe/Rome", "athens": "Europe/Athens",
    "istanbul": "Europe/Istanbul", "new york": "America/New_York", "boston": "America/New_York",
    "toronto": "America/Toronto", "chicago": "America/Chicago", "denver": "America/Denver",
    "phoenix": "America/Phoenix", "seattle": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles", "los angeles": "America/Los_Angeles",
    "vancouver": "America/Vancouver", "mexico city": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo", "buenos aires": "America/Argentina/Buenos_Aires",
    "bogota": "America/Bogota", "tokyo": "Asia/Tokyo", "osaka": "Asia/Tokyo",
    "seoul": "Asia/Seoul", "singapore": "Asia/Singapore", "bangkok": "Asia/Bangkok",
    "mumbai": "Asia/Kolkata", "bangalore": "Asia/Kolkata", "dubai": "Asia/Dubai",
    "nairobi": "Africa/Nairobi", "lagos": "Africa/Lagos", "cape town": "Africa/Johannesburg",
    "cairo": "Africa/Cairo", "sydney": "Australia/Sydney", "melbourne": "Australia/Melbourne",
    "auckland": "Pacific/Auckland",
}  # fmt: skip
_ZONE_BY_NAME = {
    **{name.casefold(): name for name in IANA_NAMES},
    **{name.casefold(): zone for name, zone in LEGACY_NAMES.items()},
}
_ZONE_SUFFIX = re.compile(r"\s+(?:time zone|timezone|time|tz|zone)$")
_PARENTHESIZED = re.compile(r"\(([^()]*)\)")


def _names_an_offset(key: str) -> bool:
    """An abbreviation or UTC offset, or several joined by slashes ("cet/cest")."""
    return all(
        part.strip() in ZONE_ABBREVIATIONS or _UTC_OFFSET.fullmatch(part.strip()) is not None
        for part in key.split("/")
    )


def _named_zone(place: str) -> str | None:
    if place in CITY_ZONES:
        return CITY_ZONES[place]
    return _ZONE_BY_NAME.get("/".join(part.strip().replace(" ", "_") for part in place.split("/")))


def _zone_reading(key: str) -> str | Ambiguous | None:
    place = _ZONE_SUFFIX.sub("", key)
    if _names_an_offset(key) or _names_an_offset(place):
        return AMBIGUOUS
    zone = _named_zone(place)
    if zone is not None:
        return zone
    if _OFFSET_NAME.fullmatch(key) or _OFFSET_NAME.fullmatch(place):
        return AMBIGUOUS
    return None


def canonical_timezone(text: str) -> str | Ambiguous | None:
    """The IANA zone a text names, AMBIGUOUS for an offset or abbreviation, None if neither.

    A parenthesized part is read on its own: "Europe/Berlin (CET)" names Europe/Berlin, and so does
    "CET (Europe/Berlin)"; two different zones ("Europe/Berlin (Europe/Paris)") are ambiguous."""
    key = _clean(text)
    parts = [_PARENTHESIZED.sub(" ", key), *_PARENTHESIZED.findall(key)]
    readings = [_zone_reading(" ".join(part.split())) for part in parts]
    zones = {reading for reading in readings if isinstance(reading, str)}
    if len(zones) == 1:
        return zones.pop()
    return AMBIGUOUS if zones or AMBIGUOUS in readings else None


# --- diet and commute ---------------------------------------------------------------------------

DIET_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(
        ("vegetarian", "veggie", "veg", "no meat", "meat free", "meatless", "lacto ovo vegetarian",
         "ovo lacto vegetarian", "lacto vegetarian", "doesnt eat meat", "does not eat meat"),
        "vegetarian",
    ),
    **dict.fromkeys(
        ("vegan", "plant based", "fully plant based", "strict vegan", "strictly vegan",
         "no animal products"),
        "vegan",
    ),
    **dict.fromkeys(
        ("pescatarian", "pescetarian", "fish but no meat", "eats fish but no meat",
         "fish but not meat", "seafood but no meat"),
        "pescatarian",
    ),
    **dict.fromkeys(
        ("omnivore", "omnivorous", "eats everything", "everything", "no restrictions",
         "no dietary restrictions", "eats meat"),
        "omnivore",
    ),
    **dict.fromkeys(
        ("gluten free", "no gluten", "celiac", "coeliac", "gluten intolerant"), "gluten-free"
    ),
    **dict.fromkeys(("dairy free", "no dairy", "non dairy"), "dairy-free"),
}  # fmt: skip
COMMUTE_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(
        ("bike", "bikes", "bicycle", "cycling", "cycles", "cycle", "biking", "e bike", "ebike",
         "cyclist"),
        "bike",
    ),
    **dict.fromkeys(
        ("train", "trains", "rail", "commuter train", "commuter rail", "metro", "subway",
         "underground", "tube", "tram", "light rail"),
        "train",
    ),
    **dict.fromkeys(("bus", "buses", "coach bus"), "bus"),
    **dict.fromkeys(("car", "drives", "drive", "driving", "automobile"), "car"),
    **dict.fromkeys(("walking", "walks", "walk", "foot"), "walking"),
    **dict.fromkeys(
        ("scooter", "scooters", "e scooter", "escooter", "electric scooter", "kick scooter"),
        "scooter",
    ),
}  # fmt: skip
_PHRASE_PREFIXES = re.compile(
    r"^(?:(?:they|he|she|is|are|a|an|follows|eats|commutes?|goes|gets|travels|takes|rides|"
    r"uses|by|on|via|the|in|strictly|mostly)\s+)+"
)
_PHRASE_SUFFIXES = re.compile(r"(?:\s+(?:diet|eater|to work|to the office|commute|daily))+$")


def _phrase_key(text: str) -> str:
    key = normalize_entity(text).replace("-", " ")
    key = _PHRASE_SUFFIXES.sub("", _PHRASE_PREFIXES.sub("", key))
    return key


def _lookup(table: dict[str, str], text: str) -> str | None:
    key = _phrase_key(text)
    if key in table:
        return table[key]
    bare = normalize_entity(text)
    return table.get(bare)


def canonical_diet(text: str) -> str | None:
    return _lookup(DIET_SYNONYMS, text)


def canonical_commute(text: str) -> str | None:
    return _lookup(COMMUTE_SYNONYMS, text)


# --- sets ---------------------------------------------------------------------------------------

EMPTY_SET_WORDS = frozenset({"", "none", "no one", "nobody"})
_SET_SEPARATORS = re.compile(r"[,;\n]")
_SET_SEPARATORS_WITH_AND = re.compile(r"[,;\n&]|\band\b")
_LEADING_AND = re.compile(r"^\s*(?:and|&)\s+", re.IGNORECASE)


def _entity_set(names: list[str]) -> frozenset[str]:
    normalized = (normalize_entity(_LEADING_AND.sub("", name)) for name in names)
    return frozenset(name for name in normalized if name)


def _set_readings(value: Any) -> list[frozenset[str]] | None:
    if isinstance(value, list):
        if not all(isinstance(element, str) for element in value):
            return None
        return [_entity_set(value)]
    if not isinstance(value, str):
        return None
    if normalize_entity(value) in EMPTY_SET_WORDS:
        return [frozenset()]
    return [
        _entity_set(separators.split(value))
        for separators in (_SET_SEPARATORS, _SET_SEPARATORS_WITH_AND)
    ]


# --- scoring ------------------------------------------------------------------------------------

_SCALAR_PARSERS: dict[str, Callable[[str], object | None]] = {
    "timezone": canonical_timezone,
    "diet": canonical_diet,
    "commute": canonical_commute,
    "weekday_time": parse_weekday_time,
    "datetime": parse_datetime,
    "date": parse_date,
    "time_range": parse_time_range,
}

_NO_VALUE = object()


def _load_answer(value_json: str | None) -> Any:
    if value_json is None or len(value_json) > MAX_ANSWER_CHARS:
        return _NO_VALUE if value_json is None else UNPARSEABLE
    try:
        return json.loads(value_json)
    except (ValueError, RecursionError):
        return UNPARSEABLE


def _load_gold(value_json: str | None) -> Any:
    if value_json is None:
        raise ValueError("gold status 'answer' needs a value")
    return json.loads(value_json)


def _compare_entity(gold: Any, answer: Any) -> Score:
    if isinstance(answer, list) and len(answer) == 1:
        answer = answer[0]
    if isinstance(answer, list):
        return VALUE_MISMATCH
    if not isinstance(answer, str) or not normalize_entity(answer):
        return UNPARSEABLE
    return MATCH if normalize_entity(answer) == normalize_entity(gold) else VALUE_MISMATCH


def _compare_set(gold: Any, answer: Any) -> Score:
    gold_readings = _set_readings(gold)
    if gold_readings is None or not isinstance(gold, list):
        raise ValueError(f"entity_set gold must be a list of strings: {gold!r}")
    readings = _set_readings(answer)
    if readings is None:
        return UNPARSEABLE
    return MATCH if gold_readings[0] in readings else VALUE_MISMATCH


def _compare_scalar(value_type: str, gold: Any, answer: Any) -> Score:
    parse = _SCALAR_PARSERS[value_type]
    gold_value = parse(gold) if isinstance(gold, str) else None
    if gold_value is None or isinstance(gold_value, Ambiguous):
        raise ValueError(f"unparseable or ambiguous {value_type} gold value: {gold!r}")
    if isinstance(answer, list):
        return WRONG_SHAPE
    answer_value = parse(answer) if isinstance(answer, str) else None
    if answer_value is None:
        return UNPARSEABLE
    if isinstance(answer_value, Ambiguous):
        return AMBIGUOUS_VALUE
    return MATCH if answer_value == gold_value else VALUE_MISMATCH


def _compare_values(value_type: str, gold: Any, answer: Any) -> Score:
    if value_type == "entity":
        if not isinstance(gold, str) or not normalize_entity(gold):
            raise ValueError(f"entity gold must be a non-empty string: {gold!r}")
        return _compare_entity(gold, answer)
    if value_type == "entity_set":
        return _compare_set(gold, answer)
    return _compare_scalar(value_type, gold, answer)


def _check_gold(value_type: str, gold_status: str) -> None:
    if value_type != "entity" and value_type != "entity_set" and value_type not in _SCALAR_PARSERS:
        raise ValueError(f"unknown value type: {value_type!r}")
    if gold_status not in GOLD_STATUSES:
        raise ValueError(f"unknown gold status: {gold_status!r}")


def _status_score(gold_status: str, answer_status: str) -> Score | None:
    """The score decided by the statuses alone, or None when the values must be compared."""
    if answer_status == "failed":
        return ANSWER_FAILED
    if answer_status not in ANSWER_STATUSES:
        return UNKNOWN_ANSWER_STATUS
    if answer_status != gold_status:
        return STATUS_MISMATCH
    return None if gold_status == "answer" else MATCH


def score(
    value_type: str,
    gold_status: str,
    gold_value_json: str | None,
    answer_status: str,
    answer_value_json: str | None,
) -> Score:
    _check_gold(value_type, gold_status)
    by_status = _status_score(gold_status, answer_status)
    if by_status is not None:
        return by_status
    gold = _load_gold(gold_value_json)
    answer = _load_answer(answer_value_json)
    if answer is _NO_VALUE:
        return MISSING_VALUE
    if answer is UNPARSEABLE:
        return UNPARSEABLE
    return _compare_values(value_type, gold, answer)


def score_answer(probe: Mapping[str, Any], answer: Mapping[str, Any]) -> Score:
    """An answer row scored against its probe row (columns as in PROBES and ANSWERS)."""
    return score(
        probe["value_type"],
        probe["gold_status"],
        probe["gold_value"],
        answer["status"],
        answer["value"],
    )


def accepted_premise(probe: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    """Whether a premise probe was answered with the fork value it presupposed (always False for
    a direct probe): the answer scored against that value as if it were gold."""
    premise = probe.get("premise_value")
    if probe.get("kind") != "premise" or premise is None:
        return False
    return score(probe["value_type"], "answer", premise, answer["status"], answer["value"]).correct


def kept_fork_value(
    probe: Mapping[str, Any], answer: Mapping[str, Any], fork: Mapping[str, Any] | None
) -> bool | None:
    """For a direct probe after the fork whose item's gold at the fork (`fork`, that direct
    probe's row) was an answer: whether the answer still gives that value; None otherwise."""
    if probe.get("kind") != "direct" or probe["checkpoint"] == 0 or fork is None:
        return None
    if fork["gold_status"] != "answer" or fork["gold_value"] is None:
        return None
    return score(
        probe["value_type"], "answer", fork["gold_value"], answer["status"], answer["value"]
    ).correct
