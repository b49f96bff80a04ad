"""What background text must never carry: a fact's words, a place or company outside the
newsletters, a date or a clock time. Shared by the filler and newsletter tests."""

from __future__ import annotations

import re

from memshift.world import pools
from memshift.world.phrasing import WEEKDAYS, find_statements

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
ABBREVIATIONS = (
    "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
    "Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Sun",
)  # fmt: skip
CITY_NAMES = tuple(city for city, _ in pools.CITIES)

CANONICAL_WORDS = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w in (*pools.DIETS, *pools.COMMUTES)) + r")\b",
    re.IGNORECASE,
)
CALENDAR_WORDS = re.compile(r"\b(?:" + "|".join((*MONTHS, *WEEKDAYS)) + r")\b", re.IGNORECASE)
CALENDAR_ABBREVIATIONS = re.compile(r"\b(?:" + "|".join(ABBREVIATIONS) + r")\b")
CLOCK_OR_DATE = re.compile(
    r"\d{1,2}:\d{2}"
    r"|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\b(?:19|20)\d{2}\b"
    r"|\d{4}-\d{2}"
    r"|\b\d{1,2}/\d{1,2}\b"
    r"|\b(?:noon|midnight|o'clock)\b",
    re.IGNORECASE,
)
FIRST_PERSON = re.compile(r"\b(?:I|me|my|mine|we|us|our|ours)\b", re.IGNORECASE)
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
NEWS_NAMES = re.compile(r"\b(?:" + "|".join((*pools.ORGANIZATIONS, *CITY_NAMES)) + r")\b")
PERSON_NAMES = set(pools.FIRST_NAMES) | set(pools.LAST_NAMES)


def assert_carries_no_gold(text: str) -> None:
    assert text.isascii()
    assert find_statements(text) == ()
    assert not CANONICAL_WORDS.search(text), CANONICAL_WORDS.search(text)
    assert not CALENDAR_WORDS.search(text), CALENDAR_WORDS.search(text)
    assert not CALENDAR_ABBREVIATIONS.search(text), CALENDAR_ABBREVIATIONS.search(text)
    assert not CLOCK_OR_DATE.search(text), CLOCK_OR_DATE.search(text)
