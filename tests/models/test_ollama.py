"""The `ollama` backend: Ollama's own /api/chat with the schema in `format` (or asked for in the
text), decoding parameters in `options`, and its reply read without trusting its shape; run end
to end against the local server in mode `ollama`."""

from __future__ import annotations

import json

import pytest

from memshift.errors import ConfigError
from memshift.models.backends import refused_parameter
from memshift.models.check import check_requests, report, run_check
from memshift.models.client import ModelClient
from memshift.models.ollama_backend import completion, request_body
from memshift.models.profiles import Profile, _check
from memshift.models.retry import MalformedReply
from memshift_tools.localserver import FaultRule, LocalServer, canned_answer

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def profile(url: str = "http://127.0.0.1:9", **settings: object) -> Profile:
    raw = {
        "backend": "ollama",
        "model": "llama3.2",
        "base_url": url,
        "decoding": {"temperature": 0.0, "seed": 0, "max_tokens": 256},
    }
    return _check("local-ollama", {**raw, **settings})


def test_the_schema_goes_in_format_and_decoding_in_options():
    body = request_body(profile(), "reader", MESSAGES, SCHEMA)
    assert body["format"] == SCHEMA and body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "seed": 0, "num_predict": 256}
    assert body["messages"] == MESSAGES and body["model"] == "llama3.2"
    for decoded in ("temperature", "max_tokens", "response_format", "tools"):
        assert decoded not in body


def test_the_text_form_sends_no_format_and_asks_in_the_prompt():
    body = request_body(profile(structured="text"), "reader", MESSAGES, SCHEMA)
    assert "format" not in body
    assert json.dumps(SCHEMA, separators=(",", ":")) in body["messages"][-1]["content"]


def test_num_predict_is_a_token_limit_of_its_own():
    chosen = profile(decoding={"num_predict": 64, "num_ctx": 4096})
    assert chosen.reply_tokens("writer") == 64
    assert request_body(chosen, "writer", MESSAGES, SCHEMA)["options"] == {
        "num_predict": 64,
        "num_ctx": 4096,
    }


def test_extra_options_merge_key_by_key():
    chosen = profile(extra_body={"options": {"num_ctx": 8192}, "keep_alive": "5m"})
    body = request_body(chosen, "reader", MESSAGES, SCHEMA)
    assert body["options"]["num_ctx"] == 8192 and body["options"]["num_predict"] == 256
    assert body["keep_alive"] == "5m"


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"options": {"temperature": 1.0}}, "options.temperature"),
        ({"options": {"num_predict": 9}}, "options.num_predict"),
        ({"options": 3}, "options"),
        ({"format": "json"}, "format"),
        ({"stream": True}, "stream"),
        ({"seed": 1}, "seed"),
    ],
)
def test_extra_body_may_not_replace_what_memshift_sets(extra, named):
    with pytest.raises(ConfigError, match=f"extra_body sets {named}") as raised:
        profile(extra_body=extra)
    assert "`structured`" in str(raised.value) and "`decoding`" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_form_of_another_backend_is_refused():
    with pytest.raises(ConfigError, match="structured 'json_schema' is not a form the ollama"):
        profile(structured="json_schema")


def test_a_window_beyond_the_num_ctx_sent_is_refused():
    with pytest.raises(ConfigError, match="context_length 8192 is more than the num_ctx 2048"):
        profile(context_length=8192, extra_body={"options": {"num_ctx": 2048}})
    assert profile(context_length=2048, extra_body={"options": {"num_ctx": 2048}})


def test_the_reply_is_read_with_its_counts_and_done_reason():
    done = completion(
        {
            "message": {"role": "assistant", "content": '{"a": "b"}'},
            "done": True,
            "done_reason": "length",
            "prompt_eval_count": 12,
            "eval_count": 3,
        }
    )
    assert done.content == '{"a": "b"}' and done.finish_reason == "length"
    assert (done.usage.tokens_in, done.usage.tokens_out) == (12, 3)


@pytest.mark.parametrize(
    "reply",
    [
        {"done": True},
        {"message": "text"},
        {"message": {"content": 3}},
        {"message": {"content": "{}"}, "eval_count": "many"},
        {"message": {"content": "{}"}, "done_reason": {"why": "stop"}},
    ],
)
def test_a_reply_in_another_shape_is_malformed(reply):
    with pytest.raises(MalformedReply):
        completion(reply)


def test_an_ollama_error_naming_a_field_is_read():
    body = b'{"error": "invalid request: \'format\' is not supported"}'
    assert refused_parameter(body, frozenset({"format"})) == "format"


@pytest.mark.parametrize("structured", ["format", "text"])
def test_every_role_works_end_to_end(structured):
    with LocalServer(canned_answer, mode="ollama") as server:
        chosen = profile(server.url, structured=structured)
        replies = run_check(chosen)
        stats = server.stats()
    assert all(r.ok for r in replies), [(r.role, r.failure, r.detail) for r in replies]
    assert stats["paths"] == {"/api/chat": 4}
    assert all(r.usage.tokens_in > 0 and r.usage.tokens_out > 0 for r in replies)
    said = report(chosen, replies)
    assert "4 of 4 roles work" in said and "per token of memshift's count" in said


def test_a_reply_cut_at_num_predict_is_truncated_and_its_text_kept():
    rule = FaultRule("truncated", attempts=None)
    with LocalServer(canned_answer, mode="ollama", faults=[rule]) as server:
        (reply,) = ModelClient(profile(server.url)).generate(check_requests()[1:2])
    assert reply.failure == "truncated" and reply.finish_reason == "length"
    assert reply.raw and reply.attempts == 1


def test_a_malformed_envelope_is_a_failure_of_that_call():
    rule = FaultRule("malformed", attempts=None, variant="message_string")
    with LocalServer(canned_answer, mode="ollama", faults=[rule]) as server:
        (reply,) = ModelClient(profile(server.url)).generate(check_requests()[1:2])
    assert reply.failure == "malformed_reply" and reply.attempts == 1


def test_a_server_without_the_native_api_is_an_http_error_named_in_the_check():
    with LocalServer(canned_answer) as server:  # an OpenAI-compatible server only
        chosen = profile(server.url, max_attempts=1)
        replies = run_check(chosen)
    assert all(r.failure == "transport_error" and r.detail.startswith("HTTP 404") for r in replies)
