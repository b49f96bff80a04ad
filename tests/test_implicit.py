"""Implicit-dependency probes: questions that depend on an item without naming it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import unshifted
from memshift.gold.evaluator import ABSTAIN, ANSWER, BLOCKED, Value
from memshift.gold.tables import value_json
from memshift.probes.implicit import (
    COUNTRY,
    RELATIONS,
    Relation,
    implicit_gold,
    implicit_question,
    next_occurrence,
    relation_for,
    relation_of_question,
    same_value,
)
from memshift.scoring.scorer import score
from memshift.timeutil import WEEKDAYS, fmt, fmt_date, parse
from memshift.world import pools
from memshift.world.cast import draw_cast
from memshift.world.items import VALUE_TYPES, Item, build_items

FAST = settings(max_examples=200, deadline=None)
CATALOGUES: tuple[tuple[Item, ...], ...] = tuple(
    build_items(draw_cast(np.random.default_rng(seed))) for seed in (0, 1, 2, 1000)
)
ITEMS: tuple[Item, ...] = tuple(item for catalogue in CATALOGUES for item in catalogue)
RELATED: tuple[Item, ...] = tuple(item for item in ITEMS if relation_for(item) is not None)
# the word or phrase that names each item's attribute: an implicit question must not use it
ATTRIBUTE_WORDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("person", "home_city"): ("city",),
    ("person", "time_zone"): ("time zone", "calendar"),
    ("person", "manager"): ("manager",),
    ("person", "diet"): ("diet",),
    ("contact", "city"): ("city",),
    ("series", ""): ("recurring", "weekday"),
    ("appointment", ""): ("appointment",),
    ("task", "due"): ("due",),
}
TIMES = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2027, 12, 31))
CLOCKS = st.tuples(st.integers(0, 23), st.integers(0, 59))
SLOTS = st.builds(
    lambda day, clock: f"{day} {clock[0]:02d}:{clock[1]:02d}", st.sampled_from(WEEKDAYS), CLOCKS
)
DAYS = st.dates(min_value=date(2025, 1, 1), max_value=date(2027, 12, 31))
COUNTRY_RELATIONS = ("country_of_home", "contact_country")
CITY_NAMES = tuple(city for city, _ in pools.CITIES)
# values of the kind gold gives each relation's item
INPUTS: dict[str, st.SearchStrategy[str]] = {
    "country_of_home": st.sampled_from(CITY_NAMES),
    "contact_country": st.sampled_from(CITY_NAMES),
    "invitation_zone": st.sampled_from(sorted({zone for _, zone in pools.CITIES})),
    "vacation_approver": st.builds(
        "{} {}".format, st.sampled_from(pools.FIRST_NAMES), st.sampled_from(pools.LAST_NAMES)
    ),
    "team_dinner_meal": st.sampled_from(pools.DIETS),
    "next_series_meeting": SLOTS,
    "appointment_day_off": TIMES.map(fmt),
    "task_day_early": DAYS.map(fmt_date),
}


def _relation(item: Item) -> Relation:
    relation = relation_for(item)
    assert relation is not None, item.item_id
    return relation


def _contains_phrase(text: str, phrase: str) -> bool:
    return re.search(rf"\b{re.escape(phrase)}\b", text, re.IGNORECASE) is not None


def _scores(value_type: str, gold: Value, answer: Value) -> bool:
    return score(value_type, ANSWER, value_json(gold), ANSWER, value_json(answer)).correct


# --- which items have a relation ----------------------------------------------------------------


def test_at_least_six_item_types_have_a_relation():
    kinds = {(item.item_class, item.attribute) for item in RELATED}
    value_types = {item.value_type for item in RELATED}
    assert len(kinds) >= 6 and len(value_types) >= 6, (kinds, value_types)
    assert kinds == set(ATTRIBUTE_WORDS)


def test_every_item_of_a_related_kind_has_exactly_one_relation_of_a_scored_type():
    for item in ITEMS:
        matching = [r for r in RELATIONS if r.applies_to(item)]
        related = (item.item_class, item.attribute) in ATTRIBUTE_WORDS
        assert len(matching) == (1 if related else 0), item.item_id
        assert all(r.value_type in VALUE_TYPES for r in matching)


def test_relation_names_are_unique_and_every_relation_has_inputs():
    names = [r.name for r in RELATIONS]
    assert len(set(names)) == len(names) and set(names) == set(INPUTS)


# --- the questions ------------------------------------------------------------------------------


def test_no_question_names_its_item():
    for item in RELATED:
        question = _relation(item).question(item)
        assert item.label.casefold() not in question.casefold(), (item.item_id, question)
        for phrase in ATTRIBUTE_WORDS[(item.item_class, item.attribute)]:
            assert not _contains_phrase(question, phrase), (item.item_id, phrase, question)


def test_a_question_names_its_contact_title_or_kind():
    for item in RELATED:
        question = _relation(item).question(item)
        if item.item_class == "contact":
            assert item.question.split(" does ")[1].split(" ")[0] in question
        if item.item_class in ("series", "task"):
            title = item.label.split("'")[1]
            assert f"'{title}'" in question
        if item.item_class == "appointment":
            assert item.target in question


def test_questions_are_distinct_within_a_catalogue():
    for catalogue in CATALOGUES:
        questions = [
            implicit_question(i, datetime(2026, 10, 1)) for i in catalogue if relation_for(i)
        ]
        assert len(set(questions)) == len(questions)


def test_the_question_has_the_direct_probes_head():
    for probe in unshifted(1000).probes[:48]:
        item, when = probe.point.item, probe.point.time
        if relation_for(item) is None:
            continue
        head = f"As of {fmt(when)}: "
        assert probe.question.startswith(head)
        assert implicit_question(item, when) == head + _relation(item).question(item)


def test_an_item_without_a_relation_has_no_implicit_question():
    definition = next(item for item in ITEMS if item.is_definition)
    assert relation_for(definition) is None
    with pytest.raises(ValueError):
        implicit_question(definition, datetime(2026, 10, 1))
    with pytest.raises(ValueError):
        implicit_gold(definition, ANSWER, ("a",), datetime(2026, 10, 1))


# --- reading a question back --------------------------------------------------------------------


def test_the_relation_is_read_back_from_the_question_alone():
    when = datetime(2026, 10, 8)
    for item in RELATED:
        relation = _relation(item)
        assert relation_of_question(implicit_question(item, when), item) is relation
        assert relation_of_question(relation.question(item), item) is relation


def test_a_direct_question_is_not_an_implicit_one():
    when = datetime(2026, 10, 8)
    for item in ITEMS:
        assert relation_of_question(item.question, item) is None, item.item_id
        assert relation_of_question(f"As of {fmt(when)}: {item.question}", item) is None


def test_another_items_implicit_question_is_not_this_items():
    for catalogue in CATALOGUES:
        related = [item for item in catalogue if relation_for(item) is not None]
        for asked in related:
            question = implicit_question(asked, datetime(2026, 10, 8))
            for item in catalogue:
                expected = _relation(item) if item.item_id == asked.item_id else None
                assert relation_of_question(question, item) is expected, (asked, item)


# --- derivations --------------------------------------------------------------------------------


def test_every_pool_city_has_a_country():
    assert set(COUNTRY) == set(CITY_NAMES)
    countries = next(r for r in RELATIONS if r.name == "country_of_home").derive
    for city, _ in pools.CITIES:
        assert countries(city, datetime(2026, 10, 1)) == COUNTRY[city]


def test_cities_that_share_a_zone_share_a_country():
    by_zone: dict[str, set[str]] = {}
    for city, zone in pools.CITIES:
        by_zone.setdefault(zone, set()).add(COUNTRY[city])
    assert all(len(countries) == 1 for countries in by_zone.values()), by_zone


@pytest.mark.parametrize(
    ("city", "country"),
    [
        ("Lisbon", "Portugal"),
        ("Toronto", "Canada"),
        ("Istanbul", "Turkey"),
        ("Cape Town", "South Africa"),
        ("Sao Paulo", "Brazil"),
        ("São Paulo", None),  # not gold's spelling: a relation reads gold's forms only
        ("new york", "United States"),
        ("Atlantis", None),
        ("", None),
    ],
)
def test_a_city_in_golds_spelling_maps_to_its_country(city: str, country: str | None):
    contact_country = next(r for r in RELATIONS if r.name == "contact_country")
    assert contact_country.derive(city, datetime(2026, 10, 1)) == country


@FAST
@given(st.sampled_from(RELATIONS).flatmap(lambda r: st.tuples(st.just(r), INPUTS[r.name])), TIMES)
def test_derive_is_deterministic_and_gives_an_answer_for_every_gold_value(
    drawn: tuple[Relation, str], when: datetime
):
    relation, value = drawn
    derived = relation.derive(value, when)
    assert isinstance(derived, str) and derived
    assert relation.derive(value, when) == derived


@FAST
@given(
    st.sampled_from(RELATIONS).flatmap(lambda r: st.tuples(st.just(r), INPUTS[r.name])),
    TIMES,
    TIMES,
)
def test_only_the_next_meeting_depends_on_the_probe_time(
    drawn: tuple[Relation, str], first: datetime, second: datetime
):
    relation, value = drawn
    if relation.name != "next_series_meeting":
        assert relation.derive(value, first) == relation.derive(value, second)


@pytest.mark.parametrize("relation", RELATIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("value", [None, ("a", "b"), (), "", "   "])
def test_no_value_gives_none(relation: Relation, value: Value):
    assert relation.derive(value, datetime(2026, 10, 1)) is None


@pytest.mark.parametrize("relation", [r for r in RELATIONS if r.derive is not same_value])
def test_a_value_of_no_known_form_gives_none(relation: Relation):
    # the item's own value passes as it is; a lookup or a date or slot in gold's form can fail
    for value in ("not a value at all 99:99", "Atlantis", "Blursday 25:00"):
        assert relation.derive(value, datetime(2026, 10, 1)) is None, (relation.name, value)


def _two_inputs(relation: Relation) -> st.SearchStrategy[tuple[Relation, str, str]]:
    return st.tuples(st.just(relation), INPUTS[relation.name], INPUTS[relation.name])


@FAST
@given(st.sampled_from(RELATIONS).flatmap(_two_inputs), TIMES)
def test_the_scorer_credits_a_derived_value_and_only_that_one(
    drawn: tuple[Relation, str, str], when: datetime
):
    relation, first, second = drawn
    gold, other = relation.derive(first, when), relation.derive(second, when)
    assert _scores(relation.value_type, gold, gold)
    assert _scores(relation.value_type, gold, other) == (gold == other)


def test_the_scorer_tells_apart_derived_values_of_different_inputs():
    # fixed pairs, so a derivation that collapsed every input to one value would fail here
    when = datetime(2026, 10, 7, 12, 0)  # a Wednesday
    pairs = {
        "country_of_home": ("Lisbon", "Madrid"),
        "contact_country": ("Toronto", "Boston"),
        "invitation_zone": ("Europe/Berlin", "Europe/Paris"),
        "vacation_approver": ("Wei Carvalho", "Mia Weiss"),
        "team_dinner_meal": ("vegan", "vegetarian"),
        "signature_organization": ("Kestrel Labs", "Bluefin Systems"),
        "workday_transport": ("bike", "train"),
        "business_letter_organization": ("Kestrel Labs", "Bluefin Systems"),
        "next_series_meeting": ("Monday 09:30", "Monday 10:30"),
        "appointment_day_off": ("2026-10-08 09:00", "2026-10-09 09:00"),
        "task_day_early": ("2026-10-08", "2026-10-09"),
    }
    for relation in RELATIONS:
        first, second = (relation.derive(v, when) for v in pairs[relation.name])
        assert first != second, relation.name
        assert _scores(relation.value_type, first, first)
        assert not _scores(relation.value_type, first, second), relation.name


def test_worked_examples():
    wednesday_noon = datetime(2026, 10, 7, 12, 0)
    by_name = {r.name: r.derive for r in RELATIONS}
    assert by_name["next_series_meeting"]("Wednesday 12:00", wednesday_noon) == "2026-10-14 12:00"
    assert by_name["next_series_meeting"]("Wednesday 12:01", wednesday_noon) == "2026-10-07 12:01"
    assert by_name["next_series_meeting"]("Tuesday 09:00", wednesday_noon) == "2026-10-13 09:00"
    assert by_name["appointment_day_off"]("2026-12-31 23:30", wednesday_noon) == "2026-12-31"
    assert by_name["task_day_early"]("2027-01-01", wednesday_noon) == "2026-12-31"
    assert by_name["task_day_early"]("2028-03-01", wednesday_noon) == "2028-02-29"
    assert by_name["invitation_zone"]("Europe/Lisbon", wednesday_noon) == "Europe/Lisbon"
    assert by_name["appointment_day_off"]("31 Dec 2026", wednesday_noon) is None  # not gold's


# --- the series' next meeting -------------------------------------------------------------------


@FAST
@given(TIMES, st.sampled_from(WEEKDAYS), CLOCKS)
def test_the_next_meeting_is_the_first_slot_strictly_after_the_probe_time(
    when: datetime, weekday: str, clock: tuple[int, int]
):
    start_time = f"{clock[0]:02d}:{clock[1]:02d}"
    derived = next_occurrence(f"{weekday} {start_time}", when)
    assert isinstance(derived, str)
    start = parse(derived)
    assert fmt(start) == derived and start.tzinfo is None
    assert when < start <= when + timedelta(days=7)
    assert start - timedelta(days=7) <= when  # the next one, not a later one
    assert WEEKDAYS[start.weekday()] == weekday and start.strftime("%H:%M") == start_time


def test_the_next_meeting_needs_a_naive_probe_time():
    with pytest.raises(ValueError):
        next_occurrence("Monday 09:00", datetime(2026, 10, 7, tzinfo=UTC))


# --- gold ---------------------------------------------------------------------------------------


def test_gold_abstains_where_the_item_does_and_where_the_value_cannot_be_mapped():
    when = datetime(2026, 10, 7)
    home = next(item for item in ITEMS if item.item_id == "person.home_city")
    assert implicit_gold(home, ABSTAIN, None, when) == (ABSTAIN, None)
    assert implicit_gold(home, BLOCKED, None, when) == (BLOCKED, None)
    assert implicit_gold(home, ANSWER, "Atlantis", when) == (ABSTAIN, None)
    assert implicit_gold(home, ANSWER, None, when) == (ABSTAIN, None)
    assert implicit_gold(home, ANSWER, "Oslo", when) == (ANSWER, "Norway")


def test_every_gold_point_of_a_world_gives_gold_the_scorer_accepts():
    answered = 0
    for point in unshifted(1000).gold.points:
        if relation_for(point.item) is None:
            continue
        relation = _relation(point.item)
        status, value = implicit_gold(point.item, point.gold.status, point.gold.value, point.time)
        if point.gold.status != ANSWER:
            assert (status, value) == (point.gold.status, None)
            continue
        # every gold value of the world is one a relation maps
        assert status == ANSWER, (point.item.item_id, point.gold.value)
        answered += 1
        gold_json = value_json(value)
        assert score(relation.value_type, status, gold_json, ANSWER, gold_json).correct
    assert answered >= 100
