"""The response cache: what goes into a key, what does not, and how entries are stored."""

from __future__ import annotations

import dataclasses

import pytest

from memshift.models import prompts
from memshift.models.anthropic_backend import request_body as anthropic_body
from memshift.models.cache import CachedReply, ResponseCache, canonical, explain
from memshift.models.check import check_requests
from memshift.models.client import key_meta, request_key
from memshift.models.openai_backend import request_body as openai_body
from memshift.models.profiles import Profile
from memshift.models.schemas import SCHEMAS

OPENAI = Profile(
    "p", "openai", model="m", revision="abc", base_url="http://h/v1",
    decoding={"temperature": 0.0, "top_p": 1.0, "max_tokens": 100, "seed": 0},
    extra_body={"chat_template_kwargs": {"enable_thinking": False}},
)  # fmt: skip
ANTHROPIC = Profile("a", "anthropic", model="c", base_url="http://h", decoding={"max_tokens": 10})


@pytest.fixture(scope="module")
def writer_request():
    return check_requests()[0]


def key(profile, request, *, schema=None, messages=None, structured="json_schema"):
    messages = messages or prompts.build(request)
    schema = schema or SCHEMAS[request.role]
    if profile.backend == "openai":
        body = openai_body(profile, request.role, messages, schema)
    else:
        body = anthropic_body(profile, request.role, messages, schema, structured)
    return request_key(profile, body)[0]


OUTPUT_CHANGES = {
    "model": {"model": "m2"},
    "revision": {"revision": "def"},
    "base_url": {"base_url": "http://other/v1"},
    "temperature": {"decoding": {**OPENAI.decoding, "temperature": 0.7}},
    "top_p": {"decoding": {**OPENAI.decoding, "top_p": 0.9}},
    "max_tokens": {"decoding": {**OPENAI.decoding, "max_tokens": 101}},
    "seed": {"decoding": {**OPENAI.decoding, "seed": 1}},
    "extra_body": {"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}},
    "role override": {"roles": {"writer": {"decoding": {"max_tokens": 5}}}},
}
NO_OUTPUT_CHANGES = {
    "name": {"name": "renamed"},
    "concurrency": {"concurrency": 3},
    "timeout": {"timeout_s": 5.0},
    "attempts": {"max_attempts": 2},
    "api key variable": {"api_key_env": "SOME_KEY"},
    "description": {"description": "words"},
    "another role's override": {"roles": {"reader": {"decoding": {"max_tokens": 5}}}},
}


@pytest.mark.parametrize("field", OUTPUT_CHANGES)
def test_an_output_affecting_field_changes_the_key(writer_request, field):
    changed = dataclasses.replace(OPENAI, **OUTPUT_CHANGES[field])
    assert key(changed, writer_request) != key(OPENAI, writer_request)


@pytest.mark.parametrize("field", NO_OUTPUT_CHANGES)
def test_a_field_that_cannot_change_output_leaves_the_key(writer_request, field):
    changed = dataclasses.replace(OPENAI, **NO_OUTPUT_CHANGES[field])
    assert key(changed, writer_request) == key(OPENAI, writer_request)


def test_messages_schema_and_backend_are_in_the_key(writer_request):
    base = key(OPENAI, writer_request)
    messages = prompts.build(writer_request)
    edited = [messages[0], {**messages[1], "content": messages[1]["content"] + " "}]
    assert key(OPENAI, writer_request, messages=edited) != base
    assert key(OPENAI, writer_request, schema={**SCHEMAS["writer"], "title": "x"}) != base
    as_anthropic = dataclasses.replace(OPENAI, backend="anthropic")
    assert key(as_anthropic, writer_request) != base
    assert key(ANTHROPIC, writer_request) != key(ANTHROPIC, writer_request, structured="tool")
    thinking = dataclasses.replace(ANTHROPIC, thinking={"type": "enabled", "budget_tokens": 5})
    assert key(thinking, writer_request) != key(ANTHROPIC, writer_request)


def test_the_request_context_is_not_in_the_key(writer_request):
    from memshift.models.requests import CallContext

    other = dataclasses.replace(writer_request, context=CallContext(run="r", world=3, item="x"))
    assert key(OPENAI, other) == key(OPENAI, writer_request)


def test_entries_round_trip_and_explain_names_the_differing_field(tmp_path):
    store = ResponseCache(tmp_path)
    reply = CachedReply('{"value": null}', "stop", 12, 3)
    body = openai_body(OPENAI, "writer", [{"role": "user", "content": "hi"}], {})
    k, body_json = request_key(OPENAI, body)
    assert store.get(k) is None
    store.put(k, key_meta(OPENAI), body_json, reply)
    assert store.get(k) == reply
    assert store.path(k).parent.parent == tmp_path
    other = dataclasses.replace(OPENAI, revision="zzz")
    k2, body_json2 = request_key(other, body)
    store.put(k2, key_meta(other), body_json2, reply)
    assert store.components(k)["body"] == body
    assert explain(store.components(k), store.components(k2)) == ['revision: "abc" != "zzz"']
    assert any(line.startswith("body.messages[0].content") for line in explain(store.components(k)))


def test_a_damaged_entry_is_a_miss(tmp_path):
    store = ResponseCache(tmp_path)
    k, body_json = request_key(OPENAI, {"x": 1})
    store.put(k, key_meta(OPENAI), body_json, CachedReply("{}", "stop", 1, 1))
    store.path(k).write_text("{half")
    assert store.get(k) is None
    assert canonical({"b": 1, "a": 2}) == '{"a":2,"b":1}'
