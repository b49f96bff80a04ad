"""The local model server, driven through the official openai and anthropic client libraries."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import jsonschema
import openai
import pytest
from pydantic import BaseModel

from memshift.models.reply_schemas import SCHEMAS
from memshift_tools.localserver import (
    FaultRule,
    LocalServer,
    Messages,
    canned_answer,
    estimate_tokens,
    minimal_instance,
    parse_faults,
    request_key,
)

SRC = Path(__file__).resolve().parents[2] / "src"
READER_SCHEMA = SCHEMAS["reader"]
LISBON = '{"status": "answer", "value": "Lisbon"}'
USER = [{"role": "user", "content": "Where does the user live?"}]


class Recorder:
    """An Answer that replies with fixed content and remembers what it was asked."""

    def __init__(self, content: str = LISBON) -> None:
        self.content = content
        self.calls: list[tuple[str, Messages, dict[str, Any] | None]] = []

    def __call__(self, api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
        self.calls.append((api, messages, schema))
        return self.content


def unknown(api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
    raise KeyError(messages[-1]["content"])


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def server(recorder: Recorder) -> Iterator[LocalServer]:
    with LocalServer(recorder) as running:
        yield running


def openai_client(server: LocalServer, timeout: float = 5.0) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=timeout
    )


def anthropic_client(server: LocalServer, timeout: float = 5.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0, timeout=timeout)


def reader_format() -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": "reader", "schema": READER_SCHEMA, "strict": True},
    }


def ask_openai(server: LocalServer, content: str = USER[0]["content"], **kwargs: Any) -> Any:
    with openai_client(server) as client:
        messages = [{"role": "user", "content": content}]
        return client.chat.completions.create(model="gpt-test", messages=messages, **kwargs)


def ask_anthropic(server: LocalServer, content: str = USER[0]["content"], **kwargs: Any) -> Any:
    with anthropic_client(server) as client:
        messages = [{"role": "user", "content": content}]
        return client.messages.create(
            model="claude-test", max_tokens=256, messages=messages, **kwargs
        )


# --- OpenAI chat completions -----------------------------------------------------------------


def test_openai_reply_carries_the_answer_usage_and_finish_reason(
    server: LocalServer, recorder: Recorder
) -> None:
    parts = [{"type": "text", "text": "Where "}, {"type": "text", "text": "now?"}]
    with openai_client(server) as client:
        completion = client.chat.completions.create(
            model="gpt-test",
            messages=[
                {"role": "system", "content": "You answer questions."},
                {"role": "user", "content": parts},
            ],
            response_format=reader_format(),
            temperature=0,
            top_p=1,
            max_completion_tokens=64,
            seed=7,
        )

    choice = completion.choices[0]
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "gpt-test"
    assert json.loads(choice.message.content) == {"status": "answer", "value": "Lisbon"}
    assert choice.message.refusal is None
    assert choice.finish_reason == "stop"
    assert completion.usage.completion_tokens == estimate_tokens(LISBON)
    assert completion.usage.prompt_tokens == estimate_tokens("You answer questions.") + 3
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )
    assert recorder.calls == [
        (
            "openai",
            [
                {"role": "system", "content": "You answer questions."},
                {"role": "user", "content": "Where now?"},
            ],
            READER_SCHEMA,
        )
    ]


def test_openai_parse_reads_the_canned_answer_into_a_pydantic_model() -> None:
    class Reading(BaseModel):
        status: str
        value: str | None
        sources: list[str]

    with LocalServer(canned_answer) as server, openai_client(server) as client:
        completion = client.chat.completions.parse(
            model="gpt-test", messages=USER, response_format=Reading
        )
    assert completion.choices[0].message.parsed == Reading(status="", value="", sources=[])


def test_requests_without_a_schema_pass_none_to_the_answer(
    server: LocalServer, recorder: Recorder
) -> None:
    ask_openai(server)
    ask_anthropic(server)
    assert [schema for _, _, schema in recorder.calls] == [None, None]


# --- Anthropic messages ----------------------------------------------------------------------


def test_anthropic_reply_is_a_text_block_and_the_system_prompt_leads(
    server: LocalServer, recorder: Recorder
) -> None:
    with anthropic_client(server) as client:
        message = client.messages.create(
            model="claude-test",
            max_tokens=256,
            system=[
                {"type": "text", "text": "You answer "},
                {"type": "text", "text": "questions."},
            ],
            messages=[{"role": "user", "content": [{"type": "text", "text": "Where now?"}]}],
            output_config={"format": {"type": "json_schema", "schema": READER_SCHEMA}},
            thinking={"type": "disabled"},
        )

    assert message.id.startswith("msg_")
    assert message.model == "claude-test"
    assert [block.type for block in message.content] == ["text"]
    assert json.loads(message.content[0].text) == {"status": "answer", "value": "Lisbon"}
    assert message.stop_reason == "end_turn"
    assert message.stop_sequence is None
    assert message.usage.output_tokens == estimate_tokens(LISBON)
    assert message.usage.input_tokens == estimate_tokens("You answer questions.") + 3
    assert recorder.calls == [
        (
            "anthropic",
            [
                {"role": "system", "content": "You answer questions."},
                {"role": "user", "content": "Where now?"},
            ],
            READER_SCHEMA,
        )
    ]


def test_anthropic_forced_tool_replies_with_a_tool_use_block(
    server: LocalServer, recorder: Recorder
) -> None:
    tool = {"name": "answer", "description": "Record the answer.", "input_schema": READER_SCHEMA}
    message = ask_anthropic(server, tools=[tool], tool_choice={"type": "tool", "name": "answer"})

    (block,) = message.content
    assert block.type == "tool_use"
    assert block.id.startswith("toolu_")
    assert block.name == "answer"
    assert block.input == {"status": "answer", "value": "Lisbon"}
    assert message.stop_reason == "tool_use"
    assert recorder.calls[0][2] == READER_SCHEMA


# --- Errors ----------------------------------------------------------------------------------


def test_an_unknown_request_is_a_bad_request_in_both_apis() -> None:
    with LocalServer(unknown) as server:
        with pytest.raises(openai.BadRequestError, match="unknown to the local server"):
            ask_openai(server)
        with pytest.raises(
            anthropic.BadRequestError, match="unknown to the local server"
        ) as caught:
            ask_anthropic(server)
    assert caught.value.body["error"]["type"] == "invalid_request_error"


def test_a_malformed_request_is_a_bad_request(server: LocalServer) -> None:
    with pytest.raises(anthropic.BadRequestError, match="max_tokens"):
        ask_anthropic(server, extra_body={"max_tokens": None})
    response = httpx.post(server.url + "/v1/chat/completions", content=b"[1, 2")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("kind", "openai_error", "anthropic_error", "anthropic_type"),
    [
        ("rate_limit", openai.RateLimitError, anthropic.RateLimitError, "rate_limit_error"),
        ("server_error", openai.InternalServerError, anthropic.InternalServerError, "api_error"),
    ],
)
def test_error_faults_raise_the_client_error_with_retry_after_once_per_request(
    server: LocalServer,
    kind: str,
    openai_error: type[Exception],
    anthropic_error: type[Exception],
    anthropic_type: str,
) -> None:
    server.set_faults([FaultRule(kind, retry_after=2)])

    with pytest.raises(openai_error) as from_openai:
        ask_openai(server)
    with pytest.raises(anthropic_error) as from_anthropic:
        ask_anthropic(server)

    assert from_openai.value.response.headers["retry-after"] == "2"
    assert from_anthropic.value.response.headers["retry-after"] == "2"
    assert from_anthropic.value.body["error"]["type"] == anthropic_type
    assert ask_openai(server).choices[0].message.content == LISBON
    assert ask_anthropic(server).content[0].text == LISBON


def test_error_without_retry_after_sends_no_header(server: LocalServer) -> None:
    server.set_faults([FaultRule("server_error")])
    with pytest.raises(openai.InternalServerError) as caught:
        ask_openai(server)
    assert "retry-after" not in caught.value.response.headers
    assert caught.value.body["type"] == "server_error"


def test_drop_connection_is_a_connection_error(server: LocalServer) -> None:
    server.set_faults([FaultRule("drop_connection", attempts=None)])
    with pytest.raises(openai.APIConnectionError):
        ask_openai(server)
    with pytest.raises(anthropic.APIConnectionError):
        ask_anthropic(server)
    stats = server.stats()
    assert stats["requests"] == 2
    assert stats["completed"] == 0


def test_a_slow_reply_times_out_a_client_with_a_short_timeout(server: LocalServer) -> None:
    server.set_faults([FaultRule("slow", delay=2.0, attempts=None)])
    with openai_client(server, timeout=0.2) as client, pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="gpt-test", messages=USER)
    with anthropic_client(server, timeout=0.2) as client, pytest.raises(anthropic.APITimeoutError):
        client.messages.create(model="claude-test", max_tokens=16, messages=USER)


def test_a_slow_reply_arrives_after_its_delay(server: LocalServer) -> None:
    server.set_faults([FaultRule("slow", delay=0.3)])
    started = time.perf_counter()
    assert ask_openai(server).choices[0].message.content == LISBON
    assert time.perf_counter() - started >= 0.3


# --- Content faults --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "content", "finish_reason"),
    [
        ("truncated", LISBON[: len(LISBON) // 2], "length"),
        ("invalid_json", "{not json", "stop"),
        ("empty", "", "stop"),
        ("ignore_schema", '{"unexpected": true}', "stop"),
    ],
)
def test_openai_content_faults(
    server: LocalServer, kind: str, content: str, finish_reason: str
) -> None:
    server.set_faults([FaultRule(kind)])
    choice = ask_openai(server, response_format=reader_format()).choices[0]
    assert (choice.message.content, choice.finish_reason) == (content, finish_reason)


def test_openai_refusal(server: LocalServer) -> None:
    server.set_faults([FaultRule("refusal")])
    choice = ask_openai(server).choices[0]
    assert choice.message.content is None
    assert choice.message.refusal == "I can't help with that."
    assert choice.finish_reason == "stop"


@pytest.mark.parametrize(
    ("kind", "text", "stop_reason"),
    [
        ("truncated", LISBON[: len(LISBON) // 2], "max_tokens"),
        ("invalid_json", "{not json", "end_turn"),
        ("empty", "", "end_turn"),
        ("ignore_schema", '{"unexpected": true}', "end_turn"),
        ("refusal", "", "refusal"),
    ],
)
def test_anthropic_content_faults(
    server: LocalServer, kind: str, text: str, stop_reason: str
) -> None:
    server.set_faults([FaultRule(kind)])
    message = ask_anthropic(server)
    assert [(block.type, block.text) for block in message.content] == [("text", text)]
    assert message.stop_reason == stop_reason


def test_ignore_schema_with_a_forced_tool_sends_off_schema_input(server: LocalServer) -> None:
    server.set_faults([FaultRule("ignore_schema")])
    tool = {"name": "answer", "input_schema": READER_SCHEMA}
    message = ask_anthropic(server, tools=[tool], tool_choice={"type": "tool", "name": "answer"})
    assert message.content[0].input == {"unexpected": True}


# --- Fault plans -----------------------------------------------------------------------------


def test_attempt_budgets_count_per_distinct_request(server: LocalServer) -> None:
    server.set_faults([FaultRule("rate_limit", attempts=2)])
    for _ in range(2):
        with pytest.raises(openai.RateLimitError):
            ask_openai(server, "first question")
    with pytest.raises(openai.RateLimitError):
        ask_openai(server, "second question")
    assert ask_openai(server, "first question").choices[0].message.content == LISBON


def test_rules_apply_in_order_once_each_budget_is_spent(server: LocalServer) -> None:
    server.set_faults([FaultRule("rate_limit"), FaultRule("server_error"), FaultRule("empty")])
    with pytest.raises(openai.RateLimitError):
        ask_openai(server)
    with pytest.raises(openai.InternalServerError):
        ask_openai(server)
    assert ask_openai(server).choices[0].message.content == ""
    assert ask_openai(server).choices[0].message.content == LISBON


def test_a_rule_without_a_budget_always_applies(server: LocalServer) -> None:
    server.set_faults([FaultRule("invalid_json", attempts=None)])
    contents = {ask_openai(server).choices[0].message.content for _ in range(3)}
    assert contents == {"{not json"}


def test_match_limits_a_rule_to_matching_last_user_messages(server: LocalServer) -> None:
    server.set_faults([FaultRule("server_error", attempts=None, match="Lisbon")])
    assert ask_openai(server, "Where is Porto?").choices[0].message.content == LISBON
    with pytest.raises(openai.InternalServerError):
        ask_openai(server, "Is Lisbon home?")
    with pytest.raises(anthropic.InternalServerError):
        ask_anthropic(server, "Is Lisbon home?")


def test_faults_given_at_start_apply(recorder: Recorder) -> None:
    with LocalServer(recorder, faults=[FaultRule("refusal")]) as server:
        assert ask_anthropic(server).stop_reason == "refusal"


def test_fault_plans_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        FaultRule("gremlins")
    with pytest.raises(ValueError, match="unknown fault rule fields"):
        parse_faults('[{"kind": "empty", "times": 2}]')
    assert parse_faults('[{"kind": "slow", "delay": 0.5, "attempts": null}]') == (
        FaultRule("slow", attempts=None, delay=0.5),
    )


def test_faults_endpoint_replaces_the_plan(server: LocalServer) -> None:
    plan = [{"kind": "rate_limit", "retry_after": 0.5}]
    assert httpx.post(server.url + "/_faults", json=plan).json() == {"faults": 1}
    with pytest.raises(openai.RateLimitError) as caught:
        ask_openai(server)
    assert caught.value.response.headers["retry-after"] == "0.5"
    rejected = httpx.post(server.url + "/_faults", json=[{"kind": "gremlins"}])
    assert rejected.status_code == 400


# --- Stats -----------------------------------------------------------------------------------


def test_stats_count_requests_replies_and_distinct_requests(server: LocalServer) -> None:
    server.set_faults([FaultRule("rate_limit", match="home")])
    with pytest.raises(openai.RateLimitError):
        ask_openai(server, "home?")
    ask_openai(server, "home?")
    ask_anthropic(server)

    stats = server.stats()
    assert stats["requests"] == 3
    assert stats["completed"] == 3
    assert stats["paths"] == {"/v1/chat/completions": 2, "/v1/messages": 1}
    assert sorted(stats["keys"].values()) == [1, 2]
    assert sorted(stats["ok"].values()) == [1, 1]
    assert stats["faults"] == {"rate_limit": 1}
    openai_key = request_key(
        {"messages": [{"role": "user", "content": "home?"}], "model": "gpt-test"}
    )
    assert (stats["keys"][openai_key], stats["ok"][openai_key]) == (2, 1)
    assert httpx.get(server.url + "/_stats").json() == stats


def test_reset_clears_the_counters(server: LocalServer) -> None:
    ask_openai(server)
    server.reset()
    assert server.stats()["requests"] == 0
    ask_openai(server)
    assert httpx.post(server.url + "/_reset").status_code == 200
    stats = server.stats()
    assert (stats["requests"], stats["completed"], stats["keys"], stats["paths"]) == (0, 0, {}, {})


def test_extra_fields_and_any_api_key_are_accepted_and_recorded(server: LocalServer) -> None:
    template = {"enable_thinking": False}
    ask_openai(server, extra_body={"chat_template_kwargs": template})
    with anthropic.Anthropic(
        base_url=server.url, api_key="sk-ant-anything", max_retries=0
    ) as client:
        client.messages.create(
            model="claude-test",
            max_tokens=16,
            messages=USER,
            extra_body={"container": "c-1"},
        )
    stats = server.stats()
    assert stats["extra_fields"] == {"chat_template_kwargs": 1, "container": 1}
    assert stats["last_extra"] == {"chat_template_kwargs": template, "container": "c-1"}


# --- Latency and concurrency -----------------------------------------------------------------


def test_latency_delays_every_reply_but_requests_overlap(recorder: Recorder) -> None:
    async def ask_many(server: LocalServer, count: int) -> list[str | None]:
        async with openai.AsyncOpenAI(
            base_url=server.url + "/v1",
            api_key="test",
            max_retries=0,
            http_client=openai.DefaultAioHttpClient(),
        ) as client:
            replies = await asyncio.gather(
                *(
                    client.chat.completions.create(model="gpt-test", messages=USER)
                    for _ in range(count)
                )
            )
        return [reply.choices[0].message.content for reply in replies]

    with LocalServer(recorder, latency=0.25) as server:
        started = time.perf_counter()
        contents = asyncio.run(ask_many(server, 16))
        elapsed = time.perf_counter() - started
        server_stats = server.stats()
    assert contents == [LISBON] * 16
    # every reply waited out the latency, and all 16 were in flight at once: the overlap is
    # counted by the server, not inferred from a wall-clock bound a loaded machine can break
    assert elapsed >= 0.25
    assert server_stats["most_in_flight"] == 16


def test_async_anthropic_client(server: LocalServer) -> None:
    async def ask() -> str:
        async with anthropic.AsyncAnthropic(
            base_url=server.url, api_key="test", max_retries=0
        ) as client:
            message = await client.messages.create(
                model="claude-test", max_tokens=16, messages=USER
            )
        return message.content[0].text

    assert asyncio.run(ask()) == LISBON


# --- Canned answers --------------------------------------------------------------------------


@pytest.mark.parametrize("role", sorted(SCHEMAS))
def test_canned_answer_follows_each_role_schema(role: str) -> None:
    jsonschema.validate(json.loads(canned_answer("openai", USER, SCHEMAS[role])), SCHEMAS[role])


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "integer", "minimum": 3},
        {"type": "number"},
        {"type": "string", "minLength": 2},
        {"enum": ["b", "a"]},
        {"const": 5},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": ["string", "null"]},
        {"type": "array", "items": {"type": "string"}},
        {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["a"],
                                                   "properties": {"a": {"type": "integer"}}}},
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
         "required": ["b"], "additionalProperties": False},
    ],
)  # fmt: skip
def test_minimal_instance_satisfies_its_schema(schema: dict[str, Any]) -> None:
    jsonschema.validate(minimal_instance(schema), schema)


def test_canned_answer_through_both_clients_validates() -> None:
    tool = {"name": "write", "input_schema": SCHEMAS["writer"]}
    with LocalServer(canned_answer) as server:
        reader = ask_openai(server, response_format=reader_format()).choices[0].message.content
        writer = ask_anthropic(server, tools=[tool], tool_choice={"type": "tool", "name": "write"})
        plain = ask_anthropic(server).content[0].text
    jsonschema.validate(json.loads(reader), READER_SCHEMA)
    jsonschema.validate(writer.content[0].input, SCHEMAS["writer"])
    assert json.loads(plain) == {}


# --- Running it ------------------------------------------------------------------------------


def test_only_loopback_is_ever_bound(recorder: Recorder) -> None:
    with pytest.raises(ValueError, match="only 127"):
        LocalServer(recorder, host="0.0.0.0")


def test_the_server_stops_cleanly_and_frees_its_port(recorder: Recorder) -> None:
    with LocalServer(recorder) as server:
        url = server.url
        ask_openai(server)
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/_stats")


def test_command_line_serves_canned_answers_until_terminated() -> None:
    command = [sys.executable, "-m", "memshift_tools.localserver", "--port", "0"]
    command += ["--latency", "0.01", "--faults", '[{"kind": "rate_limit"}]']
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=environment)
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("serving on http://127.0.0.1:")
        url = line.removeprefix("serving on ")
        with openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0) as client:
            ask = {"model": "gpt-test", "messages": USER, "response_format": reader_format()}
            with pytest.raises(openai.RateLimitError):
                client.chat.completions.create(**ask)
            completion = client.chat.completions.create(**ask)
        jsonschema.validate(json.loads(completion.choices[0].message.content), READER_SCHEMA)
    finally:
        process.terminate()
        returncode = process.wait(timeout=10)
    assert returncode == 0


def test_the_embeddings_route_serves_the_openai_client_deterministic_unit_vectors():
    from memshift_tools.localserver import LocalServer as Server

    with Server(lambda api, messages, schema: "{}") as server:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="local")
        first = client.embeddings.create(model="m", input=["Lyon in spring", "lyon IN spring"])
        vectors = [d.embedding for d in first.data]
        assert len(vectors[0]) == 64 and vectors[0] == vectors[1]  # words, case-folded
        assert abs(sum(v * v for v in vectors[0]) - 1.0) < 1e-9
        wide = client.embeddings.create(model="m", input="Lyon", dimensions=384)
        assert len(wide.data[0].embedding) == 384
        with pytest.raises(openai.BadRequestError, match="input"):
            client.embeddings.create(model="m", input=[1, 2])  # type: ignore[list-item]
        assert server.stats()["paths"]["/v1/embeddings"] == 3
