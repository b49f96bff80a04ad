from __future__ import annotations

import re
from collections import Counter
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from gold_free_text import CALENDAR_WORDS, CANONICAL_WORDS, CITY_NAMES
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.world import pools
from memshift.world.phrasing import (
    ATTRIBUTES,
    OFFICES,
    PHRASES,
    USER,
    VALUE_PATTERNS,
    WEEKDAYS,
    Phrase,
    compile_pattern,
    find_statements,
    render,
)

CLOCK_OR_DATE = re.compile(r"\d{1,2}:\d{2}|\b(?:19|20)\d{2}\b|\d{4}-\d{2}|\b\d{1,2}/\d{1,2}\b")
SLOT = re.compile(r"\{(\w+)\}")


def _words(texts: tuple[str, ...] | list[str]) -> set[str]:
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]+", text)}


def _manager_names(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    firsts = rng.integers(0, len(pools.FIRST_NAMES), size=n)
    lasts = rng.integers(0, len(pools.LAST_NAMES), size=n)
    return [
        f"{pools.FIRST_NAMES[f]} {pools.LAST_NAMES[g]}" for f, g in zip(firsts, lasts, strict=True)
    ]


POOL_VALUES: dict[str, tuple[str, ...]] = {
    "employer": pools.ORGANIZATIONS,
    "manager": tuple(_manager_names(200)),
    "home_city": CITY_NAMES,
    "diet": pools.DIETS,
    "commute": pools.COMMUTES,
}

TEXT_POOLS: dict[str, tuple[str, ...]] = {
    "FIRST_NAMES": pools.FIRST_NAMES,
    "LAST_NAMES": pools.LAST_NAMES,
    "ORGANIZATIONS": pools.ORGANIZATIONS,
    "CITIES": CITY_NAMES,
    "PROJECT_NAMES": pools.PROJECT_NAMES,
    "MEETING_TOPICS": pools.MEETING_TOPICS,
    "SERIES_TITLES": pools.SERIES_TITLES,
    "TASK_TITLES": pools.TASK_TITLES,
    "CHANNEL_NAMES": pools.CHANNEL_NAMES,
    "NEWSLETTER_TITLES": pools.NEWSLETTER_TITLES,
}


# --- pools ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "minimum"),
    [
        ("FIRST_NAMES", 150),
        ("LAST_NAMES", 150),
        ("ORGANIZATIONS", 60),
        ("CITIES", 40),
        ("PROJECT_NAMES", 40),
        ("MEETING_TOPICS", 60),
        ("SERIES_TITLES", 20),
        ("TASK_TITLES", 120),
        ("CHANNEL_NAMES", 15),
        ("NEWSLETTER_TITLES", 12),
    ],
)
def test_pool_is_a_large_enough_tuple_of_distinct_ascii_entries(name: str, minimum: int) -> None:
    pool = getattr(pools, name)
    assert isinstance(pool, tuple)
    assert len(pool) >= minimum
    assert len(set(pool)) == len(pool)
    assert all(text.isascii() for text in TEXT_POOLS[name])


def test_canonical_values_are_exact() -> None:
    assert pools.DIETS == (
        "vegetarian",
        "vegan",
        "pescatarian",
        "omnivore",
        "gluten-free",
        "dairy-free",
    )
    assert pools.COMMUTES == ("bike", "train", "bus", "car", "walking", "scooter")


def test_names_are_single_capitalized_words() -> None:
    for name in (*pools.FIRST_NAMES, *pools.LAST_NAMES):
        assert re.fullmatch(r"[A-Z][a-z]+", name), name


def test_organizations_are_one_to_three_capitalized_words() -> None:
    for org in pools.ORGANIZATIONS:
        assert re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}", org), org


def test_project_names_are_two_capitalized_words() -> None:
    for project in pools.PROJECT_NAMES:
        assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", project), project


def test_cities_have_valid_time_zones_across_many_zones() -> None:
    assert len(set(CITY_NAMES)) == len(CITY_NAMES)
    for city, zone in pools.CITIES:
        assert re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?", city), city
        assert ZoneInfo(zone).key == zone
    assert len({zone for _, zone in pools.CITIES}) >= 8


def test_channel_names_look_like_channels() -> None:
    for channel in pools.CHANNEL_NAMES:
        assert re.fullmatch(r"#[a-z]+(?:-[a-z]+)*", channel), channel


def test_first_and_last_names_do_not_overlap_each_other_or_cities() -> None:
    first, last = _words(pools.FIRST_NAMES), _words(pools.LAST_NAMES)
    assert not first & last
    assert not (first | last) & _words(CITY_NAMES)


def test_organization_words_are_no_names_or_city_words() -> None:
    taken = _words(pools.FIRST_NAMES) | _words(pools.LAST_NAMES) | _words(CITY_NAMES)
    assert not _words(pools.ORGANIZATIONS) & taken


def test_project_words_appear_in_no_other_pool() -> None:
    others = [text for name, pool in TEXT_POOLS.items() if name != "PROJECT_NAMES" for text in pool]
    assert not _words(pools.PROJECT_NAMES) & _words(others)


@pytest.mark.parametrize("name", sorted(TEXT_POOLS))
def test_pools_hold_no_attribute_calendar_or_clock_words(name: str) -> None:
    for text in TEXT_POOLS[name]:
        assert not CANONICAL_WORDS.search(text), text
        assert not CALENDAR_WORDS.search(text), text
        assert not CLOCK_OR_DATE.search(text), text


# --- phrase table -----------------------------------------------------------------------------


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_each_attribute_has_enough_phrases_in_every_source(attribute: str) -> None:
    own = [p for p in PHRASES if p.attribute == attribute]
    kinds = Counter(p.kind for p in own)
    assert kinds["announce"] >= 4
    assert kinds["mention"] >= 4
    assert {p.source for p in own} == {"email", "chat", "notes"}


def test_phrases_are_distinct_and_ascii() -> None:
    assert len({p.body for p in PHRASES}) == len(PHRASES)
    for phrase in PHRASES:
        assert phrase.body.isascii()
        assert (phrase.subject or "").isascii()


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.body[:30])
def test_phrase_slots_follow_the_contract(phrase: Phrase) -> None:
    body_slots = SLOT.findall(phrase.body)
    subject_slots = SLOT.findall(phrase.subject or "")
    assert body_slots.count("value") == 1
    assert "value" not in subject_slots
    assert set(body_slots + subject_slots) <= {"value", "recipient", "sender", "weekday"}
    assert (phrase.subject is None) == (phrase.source == "chat")
    assert not phrase.body.startswith("{value}")
    assert not re.search(r"[\w'-]\{value\}|\{value\}[\w'-]", phrase.body)


def _sentences_in(body: str) -> int:
    without_sign_off = re.sub(r"(?:\s+[A-Z][a-z]+(?: [a-z]+)?,)?\s+\{sender\}$", "", body)
    terminated = len(re.findall(r"[.!?](?=\s|$)", without_sign_off))
    return terminated + (0 if re.search(r"[.!?]$", without_sign_off) else 1)


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.body[:30])
def test_phrase_bodies_are_one_to_four_sentences(phrase: Phrase) -> None:
    assert 1 <= _sentences_in(phrase.body) <= 4


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.body[:30])
def test_phrase_literal_text_names_no_pool_value_or_calendar_word(phrase: Phrase) -> None:
    literal = SLOT.sub(" ", f"{phrase.subject or ''} {phrase.body}")
    tokens = set(re.findall(r"[A-Za-z]+", literal))
    assert not CANONICAL_WORDS.search(literal)
    assert not CALENDAR_WORDS.search(literal)
    assert not CLOCK_OR_DATE.search(literal)
    assert not tokens & (set(pools.FIRST_NAMES) | set(pools.LAST_NAMES))
    for name in (*CITY_NAMES, *pools.ORGANIZATIONS):
        assert not re.search(rf"\b{name}\b", literal), name


# --- values and patterns ----------------------------------------------------------------------


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_value_patterns_accept_every_pool_value(attribute: str) -> None:
    for value in POOL_VALUES[attribute]:
        assert re.fullmatch(VALUE_PATTERNS[attribute], value), value


@pytest.mark.parametrize(
    ("attribute", "near_miss"),
    [
        ("diet", "veggie"),
        ("diet", "Vegan"),
        ("diet", "gluten free"),
        ("commute", "bicycle"),
        ("commute", "trains"),
        ("manager", "Anna"),
        ("home_city", "lisbon"),
        ("employer", "kestrel labs"),
    ],
)
def test_value_patterns_reject_near_misses(attribute: str, near_miss: str) -> None:
    assert not re.fullmatch(VALUE_PATTERNS[attribute], near_miss)


def test_value_patterns_have_no_groups() -> None:
    for pattern in VALUE_PATTERNS.values():
        assert re.compile(pattern).groups == 0


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.body[:30])
def test_every_pool_value_is_recovered_exactly(phrase: Phrase) -> None:
    pattern = compile_pattern(phrase)
    for value in POOL_VALUES[phrase.attribute]:
        subject, body = render(phrase, value, recipient="Nadia", weekday="Thursday", sender="Kenji")
        assert "{" not in body and "{" not in (subject or "")
        assert value not in (subject or "")
        assert body.count(value) == 1
        match = pattern.search(body)
        assert match is not None and match.group("value") == value
        assert find_statements(body) == ((phrase.attribute, value, 0),)


def test_compile_pattern_is_cached() -> None:
    assert compile_pattern(PHRASES[0]) is compile_pattern(PHRASES[0])


@settings(max_examples=60, deadline=None)
@given(
    index=st.integers(0, len(PHRASES) - 1),
    seed=st.integers(0, 2**32 - 1),
    recipient=st.sampled_from(pools.FIRST_NAMES),
    sender=st.sampled_from(pools.FIRST_NAMES),
    weekday=st.sampled_from(WEEKDAYS),
    prefix=st.sampled_from(["", "Forwarded note.\n\n", "Hello! ", "ok so\n"]),
    suffix=st.sampled_from(["", "\n\nSent from my phone", " :)", "\n-- \nKenji"]),
)
def test_a_statement_is_found_inside_surrounding_text(
    index: int, seed: int, recipient: str, sender: str, weekday: str, prefix: str, suffix: str
) -> None:
    phrase = PHRASES[index]
    values = POOL_VALUES[phrase.attribute]
    value = values[np.random.default_rng(seed).integers(0, len(values))]
    _, body = render(phrase, value, recipient=recipient, weekday=weekday, sender=sender)
    assert find_statements(prefix + body + suffix) == ((phrase.attribute, value, len(prefix)),)


@settings(max_examples=40, deadline=None)
@given(first=st.integers(0, len(PHRASES) - 1), second=st.integers(0, len(PHRASES) - 1))
def test_two_statements_in_one_text_are_both_found_in_order(first: int, second: int) -> None:
    a, b = PHRASES[first], PHRASES[second]
    _, body_a = render(
        a, POOL_VALUES[a.attribute][0], recipient="Omar", weekday="Monday", sender="Lena"
    )
    _, body_b = render(
        b, POOL_VALUES[b.attribute][1], recipient="Ines", weekday="Friday", sender="Lena"
    )
    text = body_a + "\n\n" + body_b
    expected = [
        (a.attribute, POOL_VALUES[a.attribute][0], 0),
        (b.attribute, POOL_VALUES[b.attribute][1], len(body_a) + 2),
    ]
    assert find_statements(text) == tuple(expected)
    assert find_statements(text, a.attribute) == tuple(s for s in expected if s[0] == a.attribute)


def test_find_statements_finds_nothing_in_plain_text() -> None:
    assert find_statements("Lunch was nice. The train of thought got lost in Lisbon.") == ()


@pytest.mark.parametrize(
    ("attribute", "value", "slots"),
    [
        ("diet", "veggie", {}),
        ("home_city", "lisbon", {}),
        ("commute", "bike", {"weekday": "Someday"}),
        ("commute", "bike", {"recipient": "nadia"}),
    ],
)
def test_render_rejects_values_that_could_not_be_found_again(
    attribute: str, value: str, slots: dict[str, str]
) -> None:
    phrase = next(p for p in PHRASES if p.attribute == attribute)
    fill = {"recipient": "Nadia", "weekday": "Monday", "sender": "Kenji", **slots}
    with pytest.raises(ValueError):
        render(phrase, value, **fill)


def test_phrase_rejects_a_body_without_exactly_one_value() -> None:
    with pytest.raises(ValueError):
        Phrase("diet", "chat", "mention", None, "no value here")
    with pytest.raises(ValueError):
        Phrase("diet", "chat", "mention", None, "{value} and {value}")
    with pytest.raises(ValueError):
        Phrase("diet", "email", "mention", "About {value}", "I eat {value} food")


# --- who writes to whom -----------------------------------------------------------------------


def test_the_user_writes_or_reads_every_phrase_and_greets_only_the_reader() -> None:
    for phrase in PHRASES:
        assert (phrase.sender == USER) != (phrase.reader == USER), phrase.body
        slots = set(SLOT.findall(f"{phrase.subject or ''} {phrase.body}"))
        if phrase.source == "notes":
            assert slots <= {"value", "weekday"}, phrase.body
        if "sender" in slots:
            assert (phrase.source, phrase.sender) == ("email", USER), phrase.body
        greeting = re.match(r"(?:Hi|Hello|Dear) (\{\w+\}|[a-z]+),", phrase.body)
        assert greeting is None or greeting.group(1) in ("{recipient}", "resident"), phrase.body


def test_mail_from_an_office_is_signed_by_nobody_or_by_the_office() -> None:
    for phrase in PHRASES:
        if phrase.sender in OFFICES:
            name = OFFICES[phrase.sender].name
            last_words = re.search(r"[.!?]\s+([A-Z][\w ]*)$", phrase.body)
            assert last_words is None or last_words.group(1) == name, phrase.body


def test_offices_have_distinct_names_that_are_no_pool_value() -> None:
    names = [o.name for o in OFFICES.values()]
    assert len(set(names)) == len(names)
    assert len({o.email for o in OFFICES.values()}) == len(names)
    pool_words = set(pools.FIRST_NAMES) | set(pools.LAST_NAMES)
    for name in names:
        assert name.isascii() and not set(name.split()) & pool_words
        assert not any(re.search(rf"\b{v}\b", name) for v in (*CITY_NAMES, *pools.ORGANIZATIONS))
    assert {o.category for o in OFFICES.values()} <= {"work", "personal"}


@pytest.mark.parametrize(
    ("source", "subject", "body", "voice"),
    [
        ("email", "Hi", "Hi {recipient}, I eat {value}.", {"sender": USER, "reader": USER}),
        ("email", "Hi", "Hi {recipient}, I eat {value}.", {"sender": "bank", "reader": "friend"}),
        ("chat", None, "we eat {value} now", {"sender": "bank", "reader": USER}),
        ("notes", "Food", "Tell {recipient}: {value}.", {"reader": "self"}),
        ("email", "Hi", "Noted: {value}. {sender}", {"sender": "bank", "reader": USER}),
        ("chat", None, "{value} now. {sender}", {}),
        ("chat", None, "{value} now", {"hours": "midnight"}),
        ("email", "Hi", "Noted: {value}.", {"sender": "landlord", "reader": USER}),
    ],
)
def test_phrase_rejects_a_voice_that_cannot_be_rendered_consistently(
    source: str, subject: str | None, body: str, voice: dict[str, str]
) -> None:
    with pytest.raises(ValueError):
        Phrase("diet", source, "mention", subject, body, **voice)


def test_render_needs_the_names_a_phrase_uses() -> None:
    phrase = next(p for p in PHRASES if "{sender}" in p.body)
    value = POOL_VALUES[phrase.attribute][0]
    with pytest.raises(ValueError, match="sender"):
        render(phrase, value, recipient="Nadia", weekday="Monday")
    _, body = render(phrase, value, recipient="Nadia", weekday="Monday", sender="Kenji")
    assert body.startswith("Hi Nadia,") and body.endswith("Kenji")
