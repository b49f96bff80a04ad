"""Reading a reply's JSON object out of free text (the `text` structured form): an object in
prose, in a fence or alone is recovered, and extraction never raises, whatever the text."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.models.extract import extract_json

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**9), 10**9),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.text(max_size=8), VALUES, min_size=1, max_size=4)
# Prose holds no braces (a brace in prose could open an object of its own before ours) and no
# backticks (which could open a fence); everything else is allowed, newlines included.
PROSE = st.text(alphabet=st.characters(blacklist_characters="{}`"), max_size=60)
FENCE_TAGS = st.sampled_from(["json", "JSON", "", "javascript"])


@given(OBJECTS, PROSE, PROSE, st.booleans(), st.booleans(), FENCE_TAGS)
def test_an_object_in_prose_or_a_fence_is_recovered(obj, before, after, fenced, indent, tag):
    text = json.dumps(obj, indent=2 if indent else None)
    wrapped = f"{before}\n```{tag}\n{text}\n```\n{after}" if fenced else f"{before} {text} {after}"
    assert json.loads(extract_json(wrapped)) == obj


@given(OBJECTS, PROSE)
def test_the_whole_text_is_taken_when_it_is_json(obj, padding):
    text = json.dumps(obj)
    assert extract_json(f"  {text}\n") == text
    assert extract_json(text) == text
    del padding


@given(OBJECTS, OBJECTS, PROSE)
def test_the_first_object_wins(first, second, between):
    text = f"Reply: {json.dumps(first)} {between} and also {json.dumps(second)}"
    assert json.loads(extract_json(text)) == first


@given(OBJECTS, PROSE)
def test_a_fenced_object_is_preferred_to_a_broken_one_before_it(obj, prose):
    text = f'{prose} {{"broken": \n```json\n{json.dumps(obj)}\n```'
    assert json.loads(extract_json(text)) == obj


@given(st.text(max_size=300))
def test_extraction_never_raises_and_gives_json_or_the_text(text):
    found = extract_json(text)
    if found != text:
        json.loads(found)


@settings(max_examples=50)
@given(st.text(alphabet='{}[]",:`\\ab1\n ', max_size=300))
def test_extraction_never_raises_on_bracket_soup(text):
    found = extract_json(text)
    assert found == text or isinstance(json.loads(found), (dict, list, str, int, float, bool))


def test_text_without_an_object_is_returned_as_it_is():
    assert extract_json("I cannot answer that.") == "I cannot answer that."
    assert extract_json("") == ""
    assert extract_json("```json\nnot json\n```") == "```json\nnot json\n```"


def test_json_that_is_no_object_is_kept_for_the_schema_check():
    # an array is JSON: it is returned whole and fails the reply's schema, not read into
    assert extract_json('[{"a": 1}]') == '[{"a": 1}]'


def test_deep_or_long_text_is_read_in_bounded_time():
    cases = [
        "{" * 200_000,
        '{"a":' * 50_000,
        '{"a":[' * 500_000,
        '{"' * 500_000,
        "[" * 100_000 + "]" * 100_000,
        "```" * 20_000,
        "x" * 1_000_000 + '{"a": 1}',
    ]
    for text in cases:
        start = time.perf_counter()
        extract_json(text)
        assert time.perf_counter() - start < 5.0
