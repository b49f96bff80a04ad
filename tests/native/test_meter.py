"""The meter between a native library and its server (`native/meter.py`): it forwards every
request and reply unchanged, counts each call with the tokens the server's usage reports, and
counts a refused or unanswered call as failed, the library seeing the failure as it would from
the server itself. Real HTTP: OpenAI's Python client through the meter to the local server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import openai
import pytest

from memshift.native.meter import MAX_BODY, Meter
from memshift_tools.localserver import FaultRule, LocalServer


def answer(api, messages, schema):
    return json.dumps({"echo": messages[-1]["content"]})


def client(meter: Meter, route: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=meter.url(route), api_key="sk-meter", max_retries=0)


def test_calls_are_forwarded_unchanged_and_counted_with_their_tokens():
    with LocalServer(answer) as server, Meter(f"{server.url}/v1", f"{server.url}/v1") as meter:
        reply = client(meter, "chat").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "héllo\u2028there"}]
        )
        vectors = client(meter, "embed").embeddings.create(model="e", input=["a b", "c"])
    assert json.loads(reply.choices[0].message.content) == {"echo": "héllo\u2028there"}
    assert len(vectors.data) == 2
    chat, embed = meter.calls
    assert (chat.route, chat.path, chat.status, chat.failure) == (
        "chat", "/chat/completions", 200, None,
    )  # fmt: skip
    assert (chat.tokens_in, chat.tokens_out) == (
        reply.usage.prompt_tokens, reply.usage.completion_tokens,
    )  # fmt: skip
    assert chat.tokens_in > 0 and chat.tokens_out > 0
    assert (embed.route, embed.tokens_in) == ("embed", vectors.usage.prompt_tokens)


def test_a_refused_call_is_counted_failed_and_the_library_sees_the_refusal():
    faults = [FaultRule("server_error", attempts=None)]
    with (
        LocalServer(answer, faults=faults) as server,
        Meter(f"{server.url}/v1", f"{server.url}/v1") as meter,
        pytest.raises(openai.InternalServerError),
    ):
        client(meter, "chat").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
    (call,) = meter.calls
    assert call.failure == "http_error" and call.status >= 500 and call.detail.startswith("HTTP")
    assert (call.tokens_in, call.tokens_out) == (0, 0)


def test_a_server_that_is_not_there_is_a_transport_failure():
    with LocalServer(answer) as server:
        gone = f"{server.url}/v1"
    with Meter(gone, gone) as meter, pytest.raises(openai.APIStatusError) as raised:
        client(meter, "chat").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
    assert raised.value.status_code == 502
    (call,) = meter.calls
    assert (call.status, call.failure) == (0, "transport_error")


@pytest.mark.parametrize(
    ("path", "length", "status"),
    [
        ("/elsewhere/v1/chat/completions", 2, 404),
        ("/chat/completions", 2, 404),
        ("/chat/v1/chat/completions", MAX_BODY + 1, 413),
    ],
)
def test_a_request_off_the_routes_or_too_large_is_refused_without_forwarding(path, length, status):
    with LocalServer(answer) as server, Meter(f"{server.url}/v1", f"{server.url}/v1") as meter:
        request = urllib.request.Request(
            meter.url("chat").removesuffix("/chat/v1") + path,
            data=b"{}",
            headers={"Content-Length": str(length), "Content-Type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(request, timeout=10)
        assert raised.value.code == status
        assert server.stats()["requests"] == 0
    assert meter.calls == []
