"""The reply schema in each server's form (JSON read out of free text: test_extract.py),
refusals a server names in a 500, prompts that cannot fit the context window, and what a failed
reply said, kept."""

from __future__ import annotations

import dataclasses
import json
import re

import pyarrow as pa
import pytest

from memshift.errors import ConfigError
from memshift.models.backends import refused_parameter, status_failure
from memshift.models.calllog import CallLog
from memshift.models.check import check_requests, report, run_check, try_other_forms
from memshift.models.client import ModelClient, request_key
from memshift.models.http import HttpReply
from memshift.models.openai_backend import completion, request_body
from memshift.models.profiles import Profile, _check
from memshift.models.replies import RAW_CHARACTERS
from memshift.models.reply_schemas import SCHEMAS
from memshift.models.retry import ContextOverflow
from memshift.retrieval.budgets import check_budgets
from memshift.tokens import count_tokens
from memshift.world.parse import record_evidence
from memshift_tools.localserver import FaultRule, LocalServer, canned_answer, llamacpp_refusal

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def profile(url: str = "http://127.0.0.1:9/v1", **settings: object) -> Profile:
    raw = {"backend": "openai", "model": "m", "base_url": url, "decoding": {"max_tokens": 512}}
    return _check("p", {**raw, **settings})


def test_each_form_carries_the_schema_where_its_server_reads_it():
    as_schema = request_body(profile(), "reader", MESSAGES, SCHEMA)
    assert as_schema["response_format"]["json_schema"]["schema"] == SCHEMA
    as_object = request_body(profile(structured="json_object"), "reader", MESSAGES, SCHEMA)
    assert as_object["response_format"] == {"type": "json_object", "schema": SCHEMA}
    as_tool = request_body(profile(structured="tool"), "reader", MESSAGES, SCHEMA)
    assert as_tool["tools"][0]["function"]["parameters"] == SCHEMA
    assert as_tool["tool_choice"]["function"]["name"] == as_tool["tools"][0]["function"]["name"]
    as_text = request_body(profile(structured="text"), "reader", MESSAGES, SCHEMA)
    assert "response_format" not in as_text and "tools" not in as_text
    assert json.dumps(SCHEMA, separators=(",", ":")) in as_text["messages"][-1]["content"]
    assert as_text["messages"][0] == MESSAGES[0]


@pytest.mark.parametrize("structured", ["json_schema", "json_object", "tool", "text"])
def test_the_server_gets_each_schema_in_its_own_property_order(structured):
    """A server decoding under a schema writes its properties in the order it gets them: the
    auditor's premise comes before its verdict and current value, never alphabetically after."""
    chosen = profile(structured=structured)
    schema = SCHEMAS["auditor"]
    body = request_body(chosen, "auditor", MESSAGES, schema)
    _, sent = request_key(chosen, body)
    names = ["premise", "pass", "verdict", "current_value", "material"]
    assert list(schema["properties"]["premises"]["items"]["properties"]) == names
    where = [re.search(rf'\\?"{name}\\?":{{', sent) for name in names]
    assert all(where) and sorted(w.start() for w in where) == [w.start() for w in where]
    items = schema["properties"]["premises"]["items"]
    backwards = {**items, "properties": dict(reversed(items["properties"].items()))}
    turned = {
        **schema,
        "properties": {
            **schema["properties"],
            "premises": {**schema["properties"]["premises"], "items": backwards},
        },
    }
    other = request_body(chosen, "auditor", MESSAGES, turned)
    assert request_key(chosen, other)[0] != request_key(chosen, body)[0]


def test_a_role_can_take_its_own_form():
    chosen = profile(structured="json_object", roles={"reader": {"structured": "text"}})
    assert "response_format" not in request_body(chosen, "reader", MESSAGES, SCHEMA)
    assert request_body(chosen, "writer", MESSAGES, SCHEMA)["response_format"]["type"] == (
        "json_object"
    )


def test_a_form_the_backend_does_not_send_is_refused():
    with pytest.raises(ConfigError, match=r"roles\.reader\.structured 'json_object'"):
        _check(
            "p",
            {
                "backend": "anthropic",
                "model": "m",
                "base_url": "https://api.example.com",
                "decoding": {"max_tokens": 8},
                "roles": {"reader": {"structured": "json_object"}},
            },
        )


@pytest.mark.parametrize(
    "extra", [{"response_format": {"type": "text"}}, {"max_tokens": 5}, {"messages": []}]
)
def test_extra_body_may_not_replace_what_memshift_sets(extra):
    with pytest.raises(ConfigError, match=f"extra_body sets {next(iter(extra))}"):
        profile(extra_body=extra)


def test_extra_body_objects_merge_into_the_body():
    chosen = profile(extra_body={"chat_template_kwargs": {"enable_thinking": False}, "x": 1})
    body = request_body(chosen, "reader", MESSAGES, SCHEMA)
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["x"] == 1
    assert body["response_format"]["type"] == "json_schema"


def test_a_forced_tool_call_is_read_as_the_content():
    reply = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [{"function": {"name": "reply", "arguments": '{"a": "b"}'}}],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    assert completion(reply).content == '{"a": "b"}'


LLAMACPP_500 = json.dumps(llamacpp_refusal("json_schema")).encode()


def test_a_500_that_names_a_refused_field_is_named_and_not_retried():
    assert refused_parameter(LLAMACPP_500, frozenset()) == "response_format"
    failure = status_failure(HttpReply(500, LLAMACPP_500, None), ())
    assert "refused parameter 'response_format'" in failure.detail
    assert not failure.retryable
    fastapi = b'{"detail": [{"loc": ["body", "tools"], "msg": "not allowed"}]}'
    assert refused_parameter(fastapi, frozenset()) == "tools"
    plain = status_failure(HttpReply(500, b'{"error": {"message": "boom"}}', None), ())
    assert plain.retryable


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 8192 tokens. However, you requested 9000.",
        "Requested tokens (3000) exceed context window of 2048",
    ],
)
def test_a_server_saying_the_context_is_exceeded_is_a_context_overflow(message):
    body = json.dumps({"error": {"message": message}}).encode()
    failure = status_failure(HttpReply(400, body, None), ())
    assert isinstance(failure, ContextOverflow) and not failure.retryable


def test_a_prompt_that_cannot_fit_is_a_counted_failure_never_sent():
    requests = check_requests()
    with LocalServer(canned_answer) as server:
        small = profile(f"{server.url}/v1", context_length=1024, token_ratio=1.0)
        replies = ModelClient(small).generate(requests)
        asked = server.stats()["keys"]
    by_role = {r.role: r for r in replies}
    assert by_role["writer"].failure == "context_overflow"
    assert by_role["writer"].attempts == 0 and "context_length 1,024" in by_role["writer"].detail
    assert by_role["reader"].ok
    assert len(asked) == sum(r.ok for r in replies)


def test_what_a_failed_reply_said_is_kept_bounded_and_redacted(monkeypatch):
    key = "sk-kept-" + "x" * 24
    monkeypatch.setenv("MEMSHIFT_RAW_KEY", key)

    def rambling(api, messages, schema):
        return f"not json at all, {key}, " + "blah " * 2000

    with LocalServer(rambling) as server:
        chosen = profile(f"{server.url}/v1", api_key_env="MEMSHIFT_RAW_KEY")
        log = CallLog()
        (reply,) = ModelClient(chosen, log=log).generate(check_requests()[1:2])
    assert reply.failure == "unstorable"  # the reply holds the key
    assert key not in reply.raw and reply.raw.startswith("not json at all")
    assert len(reply.raw) <= RAW_CHARACTERS
    (row,) = log.to_table().to_pylist()
    assert row["raw"] == reply.raw
    assert log.to_table().schema.field("raw").type == pa.string()


def test_the_check_finds_the_form_llamacpp_takes_and_names_what_it_refused():
    with LocalServer(canned_answer, mode="llamacpp") as server:
        chosen = profile(f"{server.url}/v1")
        replies = run_check(chosen)
        tried = try_other_forms(chosen, replies)
    assert not any(r.ok for r in replies)
    assert all(r.attempts == 1 for r in replies)  # the 500 named the field: not retried
    assert {t.role for t in tried if t.reply.ok and t.mode == "json_object"} == {
        "writer",
        "reader",
        "program",
        "auditor",
    }
    said = report(chosen, replies, tried)
    assert "the server refused the parameter 'response_format'" in said
    assert "set in profile p: structured: json_object" in said


@pytest.mark.parametrize(
    ("mode", "structured"),
    [("openai", "json_schema"), ("openai", "tool"), ("llamacpp", "json_object"), ("text", "text")],
)
def test_the_check_passes_every_role_in_the_form_each_server_takes(mode, structured):
    with LocalServer(canned_answer, mode=mode) as server:
        chosen = profile(f"{server.url}/v1", structured=structured)
        replies = run_check(chosen)
    assert all(r.ok for r in replies), [(r.role, r.failure, r.detail) for r in replies]
    assert "4 of 4 roles work" in report(chosen, replies)


def test_a_server_that_ignores_the_schema_fails_json_schema_but_works_in_text():
    with LocalServer(canned_answer, mode="text") as server:
        schema_profile = profile(f"{server.url}/v1")
        replies = run_check(schema_profile)
        tried = try_other_forms(schema_profile, replies)
    # asked for json_schema, it answered "{}" in prose: not the reply's schema
    assert not any(r.ok for r in replies)
    assert all(
        any(t.role == r.role and t.mode == "text" and t.reply.ok for t in tried) for r in replies
    )


def test_a_schema_fault_keeps_the_raw_reply_in_the_log():
    rule = FaultRule("invalid_json", attempts=None)
    with LocalServer(canned_answer, faults=[rule]) as server:
        log = CallLog()
        ModelClient(profile(f"{server.url}/v1"), log=log).generate(check_requests()[1:2])
    (row,) = log.rows
    assert row["failure"] == "invalid_json" and row["raw"] == "{not json"


def test_budgeted_check_requests_fit_a_small_window():
    small = dataclasses.replace(profile(), context_length=2048, token_ratio=1.9)
    budgets = check_budgets(small)
    whole, cut = check_requests(), check_requests(budgets=budgets)
    assert len(cut[0].records) < len(whole[0].records)
    assert sum(count_tokens(record_evidence(r)) for r in cut[0].records) <= budgets["writer"]
    assert check_budgets(profile()) == {}
