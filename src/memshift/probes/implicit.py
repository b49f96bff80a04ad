"""Implicit-dependency probes: questions whose answer follows from one item's value without
naming the item.

A draft that relies on a stale fact seldom says which fact it relies on ("book the vegetarian
menu" depends on the user's diet without saying so). An implicit probe asks such a question: its
gold is a deterministic function of the item's gold, so a memory that kept a stale value answers
it wrong even though the question never names the item.

A relation reads values in gold's formats (what gold, the rule-based reader and the rule-based
auditor hold: a weekly slot "Monday 09:30", a moment "YYYY-MM-DD HH:MM", a date "YYYY-MM-DD") and
writes its answers in them, so the scorer can compare them; it does not read free wording (a
model answering an implicit question reasons on its own). It imports nothing from the scorer, so
changing the scorer reruns no model job.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from memshift.gold.evaluator import ABSTAIN, ANSWER, Value
from memshift.timeutil import WEEKDAYS, fmt, fmt_date, parse
from memshift.world.items import Item

Derive = Callable[[Value, datetime], Value]
Subject = Callable[[Item], str]

SUBJECT = "{subject}"
# the head `probes.question_text` puts before every question
_AS_OF_HEAD = re.compile(r"^As of \d{4}-\d{2}-\d{2} \d{2}:\d{2}: ")
WEEK = timedelta(days=7)

# Every city of `pools.CITIES`, by the short English name a reader most likely writes: the entity
# scorer has no aliases, so "Czech Republic" for Czechia or "USA" for United States is a mismatch.
COUNTRY: dict[str, str] = {
    "Lisbon": "Portugal", "Porto": "Portugal", "Madrid": "Spain", "Barcelona": "Spain",
    "Paris": "France", "Lyon": "France", "Berlin": "Germany", "Munich": "Germany",
    "Hamburg": "Germany", "Amsterdam": "Netherlands", "Brussels": "Belgium",
    "Zurich": "Switzerland", "Vienna": "Austria", "Prague": "Czechia", "Warsaw": "Poland",
    "Stockholm": "Sweden", "Oslo": "Norway", "Copenhagen": "Denmark", "Helsinki": "Finland",
    "Dublin": "Ireland", "London": "United Kingdom", "Edinburgh": "United Kingdom",
    "Rome": "Italy", "Athens": "Greece", "Istanbul": "Turkey", "New York": "United States",
    "Boston": "United States", "Toronto": "Canada", "Chicago": "United States",
    "Denver": "United States", "Phoenix": "United States", "Seattle": "United States",
    "San Francisco": "United States", "Los Angeles": "United States", "Vancouver": "Canada",
    "Mexico City": "Mexico", "Sao Paulo": "Brazil", "Buenos Aires": "Argentina",
    "Bogota": "Colombia", "Tokyo": "Japan", "Osaka": "Japan", "Seoul": "South Korea",
    "Singapore": "Singapore", "Bangkok": "Thailand", "Mumbai": "India", "Bangalore": "India",
    "Dubai": "United Arab Emirates", "Nairobi": "Kenya", "Lagos": "Nigeria",
    "Cape Town": "South Africa", "Cairo": "Egypt", "Sydney": "Australia",
    "Melbourne": "Australia", "Auckland": "New Zealand",
}  # fmt: skip
_COUNTRY_BY_KEY = {city.casefold(): country for city, country in COUNTRY.items()}
_WEEKLY = re.compile(rf"({'|'.join(WEEKDAYS)}) (\d{{2}}):(\d{{2}})")
DATE_FORMAT = "%Y-%m-%d"
COUNTRY_FORMAT = (
    "a country's short English name (e.g. United States, United Kingdom, Czechia, South Korea)"
)


@dataclass(frozen=True)
class Relation:
    """An implicit question about every item of one class and attribute, and how its answer
    follows from the item's value. `template` holds SUBJECT where the item's subject goes (a
    contact's name, a series' or task's title, an appointment's kind)."""

    name: str
    item_class: str
    attribute: str
    value_type: str
    answer_format: str
    template: str
    derive: Derive
    subject: Subject

    def applies_to(self, item: Item) -> bool:
        return (item.item_class, item.attribute) == (self.item_class, self.attribute)

    def question(self, item: Item) -> str:
        return self.template.replace(SUBJECT, self.subject(item))


# --- subjects -----------------------------------------------------------------------------------


def _no_subject(item: Item) -> str:
    return ""


def _contact_name(item: Item) -> str:
    # a contact's label is "<full name>'s <attribute>"
    return item.label.removesuffix(f"'s {item.attribute}")


def _quoted_title(item: Item) -> str:
    # a series' or task's label holds its title in single quotes; a title may hold one too
    return item.label[item.label.index("'") + 1 : item.label.rindex("'")]


def _appointment_kind(item: Item) -> str:
    return item.target


# --- derivations --------------------------------------------------------------------------------


def _text(value: Value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def same_value(value: Value, at: datetime) -> Value:
    """The value itself: the answer is the item's own value, asked without naming it."""
    return _text(value)


def country_of_city(value: Value, at: datetime) -> Value:
    text = _text(value)
    return None if text is None else _COUNTRY_BY_KEY.get(text.casefold())


def next_occurrence(value: Value, at: datetime) -> Value:
    """The first start of a weekly slot ("Monday 09:30", gold's format) strictly after `at`, in
    gold's naive wall-clock time."""
    text = _text(value)
    slot = None if text is None else _WEEKLY.fullmatch(text)
    if slot is None:
        return None
    if at.tzinfo is not None:
        raise ValueError(f"probe times are naive wall-clock times, got {at!r}")
    weekday, hour, minute = WEEKDAYS.index(slot[1]), int(slot[2]), int(slot[3])
    if hour > 23 or minute > 59:
        return None
    ahead = (weekday - at.weekday()) % 7
    start = (at + timedelta(days=ahead)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return fmt(start if start > at else start + WEEK)


def date_of_moment(value: Value, at: datetime) -> Value:
    """The date of a moment in gold's format ("YYYY-MM-DD HH:MM")."""
    text = _text(value)
    try:
        return None if text is None else fmt_date(parse(text))
    except ValueError:
        return None


def day_before(value: Value, at: datetime) -> Value:
    """The day before a date in gold's format ("YYYY-MM-DD")."""
    text = _text(value)
    try:
        day = None if text is None else datetime.strptime(text, DATE_FORMAT)
    except ValueError:
        return None
    return None if day is None else fmt_date(day - timedelta(days=1))


# --- the relations ------------------------------------------------------------------------------

RELATIONS: tuple[Relation, ...] = (
    Relation(
        "country_of_home",
        "person",
        "home_city",
        "entity",
        COUNTRY_FORMAT,
        "In which country does the user live?",
        country_of_city,
        _no_subject,
    ),
    Relation(
        "invitation_zone",
        "person",
        "time_zone",
        "timezone",
        "an IANA time zone name",
        "In which IANA zone should the user's next meeting invitation be scheduled?",
        same_value,
        _no_subject,
    ),
    Relation(
        "vacation_approver",
        "person",
        "manager",
        "entity",
        "a full name",
        "Who should approve the user's vacation request?",
        same_value,
        _no_subject,
    ),
    Relation(
        "team_dinner_meal",
        "person",
        "diet",
        "diet",
        "one word or phrase",
        "Which meal option should be ordered for the user at a team dinner?",
        same_value,
        _no_subject,
    ),
    Relation(
        "contact_country",
        "contact",
        "city",
        "entity",
        COUNTRY_FORMAT,
        f"In which country does {SUBJECT} live?",
        country_of_city,
        _contact_name,
    ),
    Relation(
        "next_series_meeting",
        "series",
        "",
        "datetime",
        "a date and time YYYY-MM-DD HH:MM",
        f"On which date and at what time does the user next attend '{SUBJECT}'?",
        next_occurrence,
        _quoted_title,
    ),
    Relation(
        "appointment_day_off",
        "appointment",
        "",
        "date",
        "a date YYYY-MM-DD",
        f"On which date does the user need time off to see the {SUBJECT}?",
        date_of_moment,
        _appointment_kind,
    ),
    Relation(
        "task_day_early",
        "task",
        "due",
        "date",
        "a date YYYY-MM-DD",
        f"By which date must the user finish the task '{SUBJECT}' to be done a day early?",
        day_before,
        _quoted_title,
    ),
)


# --- the probe's question and gold --------------------------------------------------------------


def relation_for(item: Item) -> Relation | None:
    return next((r for r in RELATIONS if r.applies_to(item)), None)


def _required_relation(item: Item) -> Relation:
    relation = relation_for(item)
    if relation is None:
        raise ValueError(f"item {item.item_id} has no implicit relation")
    return relation


def implicit_question(item: Item, time: datetime) -> str:
    return f"As of {fmt(time)}: {_required_relation(item).question(item)}"


def implicit_gold(item: Item, status: str, value: Value, time: datetime) -> tuple[str, Value]:
    """The implicit probe's gold from the item's: an abstention or a block stays one, and a value
    the relation cannot map makes gold abstain."""
    relation = _required_relation(item)
    if status != ANSWER:
        return status, None
    derived = relation.derive(value, time)
    return (ABSTAIN, None) if derived is None else (ANSWER, derived)


@cache
def _pattern(template: str) -> re.Pattern[str]:
    before, marker, after = template.partition(SUBJECT)
    subject = "(?P<subject>.+)" if marker else ""
    return re.compile(re.escape(before) + subject + re.escape(after))


def relation_of_question(question: str, item: Item) -> Relation | None:
    """The relation whose wording the question has, if that relation concerns this item and the
    question names this item's subject; None for any other question (a direct one among them).
    The wording alone picks the candidates; the item only confirms one of them."""
    body = _AS_OF_HEAD.sub("", question.strip(), count=1)
    for relation in RELATIONS:
        match = _pattern(relation.template).fullmatch(body)
        named = None if match is None else match.groupdict().get("subject", "")
        if relation.applies_to(item) and named == relation.subject(item):
            return relation
    return None
