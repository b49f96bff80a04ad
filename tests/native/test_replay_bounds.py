"""Class 10: the replay server reads only a regular file of bounded size as a recording, parses
it within bounds, answers a malformed request with HTTP 400 and a one-line message, and refuses
an embeddings request larger than one request may ask for before doing its work."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import finishes
from memshift_tools.localserver import (
    MAX_EMBEDDING_CHARACTERS,
    MAX_EMBEDDING_INPUTS,
    MAX_EMBEDDING_VALUES,
    LocalServer,
)
from memshift_tools.replay import (
    MAX_RECORDING_BYTES,
    RecordingError,
    Replayer,
    content_key,
    load,
)

KEY = "a" * 64
MESSAGES = [{"role": "user", "content": "Where does Ada live?"}]
RECORDED = {content_key("openai", MESSAGES, None): "In London."}
MEMORY_LIMIT = 4 * 1024**3


def refused_recording(path: Path) -> str:
    with pytest.raises(RecordingError) as caught:
        finishes(lambda: load(path))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


# --- The recording ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"key": ' + "9" * 5000 + ', "reply": "x"}', "a number of 5000 digits"),
        ('{"key": "' + KEY + '", "reply": "x", "n": ' + "9" * 5000 + "}", "5000 digits"),
        ('{"key": "' + KEY + '", "reply": NaN}', "NaN, which is not JSON"),
        ('{"key": "' + KEY + '", "reply": -Infinity}', "-Infinity, which is not JSON"),
        ('{"key": "' + KEY + '", "reply": 1e999}', "beyond what a float holds"),
        ('{"key": "' + KEY + '", "reply": "\\ud800"}', "lone surrogate"),
        ('{"key": "' + KEY + '", "reply": ' + "[" * 70 + "]" * 70 + "}", "deeper than 64"),
        ('{"key": "' + KEY + '", "reply": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deep"),
    ],
    ids=["number-key", "number-field", "nan", "infinity", "overflow", "surrogate", "deep",
         "deeper"],
)  # fmt: skip
def test_a_recording_line_no_parser_should_take_is_refused_naming_it(tmp_path, line, problem):
    path = tmp_path / "r.jsonl"
    good = json.dumps({"key": KEY, "reply": "ok"})
    path.write_text(f"{good}\n{line}\n")
    message = refused_recording(path)
    assert "line 2: " in message and problem in message


def test_a_fifo_recording_is_refused_at_once_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in refused_recording(fifo)


def in_bounded_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m memshift_tools.replay ARGS` with at most 4 GiB of address space and a
    minute: a reader that takes /dev/zero whole fails the test, not the machine."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "memshift_tools.replay", *args],
        capture_output=True, text=True, timeout=60, check=False, preexec_fn=bounded,
    )  # fmt: skip


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_recording_is_refused_before_a_byte_is_read(device):
    done = in_bounded_process("serve", device)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {device}: the recording is not a regular file"


def test_a_directory_recording_is_refused(tmp_path):
    assert "not a regular file" in refused_recording(tmp_path)


def test_a_recording_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as sparse:
        sparse.truncate(MAX_RECORDING_BYTES + 1)
    start = time.perf_counter()
    assert f"at most {MAX_RECORDING_BYTES:,}" in refused_recording(path)
    assert time.perf_counter() - start < 5


def test_serve_refuses_a_fifo_in_one_line_and_exits(tmp_path):
    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    done = in_bounded_process("serve", str(fifo))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {fifo}: the recording is not a regular file"


# --- Requests ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(Replayer(dict(RECORDED))) as running:
        yield running


def post(url: str, body: bytes, seconds: float = 30.0) -> tuple[int, dict[str, Any], float]:
    """(status, JSON reply, seconds taken) of one POST."""
    request = urllib.request.Request(url, body, {"content-type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=seconds) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, data = exc.code, exc.read()
    return status, json.loads(data), time.perf_counter() - start


def chat(**fields: Any) -> bytes:
    return json.dumps({"model": "m", "messages": MESSAGES, **fields}).encode()


ANSWERED = chat()
BAD_BODIES = {
    "deep": b'{"model": "m", "messages": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "deeper-than-64": chat(metadata=json.loads("[" * 70 + "]" * 70)),
    "huge-number": ANSWERED[:-1] + b', "seed": ' + b"9" * 5000 + b"}",
    "nan": ANSWERED[:-1] + b', "temperature": NaN}',
    "infinity": ANSWERED[:-1] + b', "temperature": 1e999}',
    "lone-surrogate": b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
    "not-utf8": b'{"model": "m\xff", "messages": []}',
    "tools-not-a-list": chat(tools=5, tool_choice={"type": "function", "function": {"name": "f"}}),
    "parameters-not-an-object": chat(
        tools=[{"type": "function", "function": {"name": "f", "parameters": [1]}}],
        tool_choice={"type": "function", "function": {"name": "f"}},
    ),
    "schema-not-an-object": chat(
        response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": 5}}
    ),
    "json-object-schema-a-list": chat(response_format={"type": "json_object", "schema": [1]}),
    "message-not-an-object": chat(messages=["hello"]),
}
ANTHROPIC_BAD = {
    "tools-not-a-list": {"tools": "x", "tool_choice": {"type": "tool", "name": "t"}},
    "input-schema-not-an-object": {
        "tools": [{"name": "t", "input_schema": "x"}],
        "tool_choice": {"type": "tool", "name": "t"},
    },
    "output-schema-not-an-object": {
        "output_config": {"format": {"type": "json_schema", "schema": [1]}}
    },
}


def one_line_400(status: int, reply: dict[str, Any]) -> str:
    assert status == 400
    message = reply["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_a_malformed_chat_request_is_answered_400_in_one_line_and_serving_goes_on(server, name):
    status, reply, _ = post(f"{server.url}/v1/chat/completions", BAD_BODIES[name])
    one_line_400(status, reply)
    status, reply, _ = post(f"{server.url}/v1/chat/completions", ANSWERED)
    assert status == 200 and reply["choices"][0]["message"]["content"] == "In London."


@pytest.mark.parametrize("name", sorted(ANTHROPIC_BAD))
def test_a_malformed_messages_request_is_answered_400(server, name):
    body = {"model": "m", "max_tokens": 5, "messages": MESSAGES, **ANTHROPIC_BAD[name]}
    status, reply, _ = post(f"{server.url}/v1/messages", json.dumps(body).encode())
    assert status == 400 and "\n" not in reply["error"]["message"]


def embeddings(texts: Any, **fields: Any) -> bytes:
    return json.dumps({"model": "e", "input": texts, **fields}).encode()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (embeddings(["a"] * 100_000, dimensions=4096), f"at most {MAX_EMBEDDING_INPUTS:,}"),
        (embeddings(["a"] * (MAX_EMBEDDING_INPUTS + 1)), "texts; at most"),
        (embeddings(["a"] * 1024, dimensions=4096), f"at most {MAX_EMBEDDING_VALUES:,}"),
        (embeddings(["word " * 2_000_000]), f"at most {MAX_EMBEDDING_CHARACTERS:,}"),
        (embeddings(["a"], dimensions=True), "`dimensions` must be an integer"),
        (embeddings(["a"], dimensions=0), "`dimensions` must be an integer"),
        (embeddings(["a"], dimensions=4097), "from 1 to 4096"),
        (embeddings(["a"], dimensions=64.0), "`dimensions` must be an integer"),
        (embeddings([1, 2]), "a string or a list of strings"),
        (b'{"input": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deep"),
        (b'{"input": ["a"], "dimensions": ' + b"9" * 5000 + b"}", "5000 digits"),
    ],
    ids=["410-kb-of-texts", "too-many-texts", "too-many-values", "too-many-characters",
         "boolean-dims", "zero-dims", "wide-dims", "float-dims", "not-strings", "deep",
         "huge-number"],
)  # fmt: skip
def test_an_embeddings_request_beyond_the_bounds_is_refused_before_any_work(server, body, problem):
    status, reply, seconds = post(f"{server.url}/v1/embeddings", body)
    assert problem in one_line_400(status, reply)
    assert seconds < 10


def test_an_embeddings_request_at_the_bounds_is_answered():
    dims = MAX_EMBEDDING_VALUES // MAX_EMBEDDING_INPUTS
    with LocalServer(Replayer({})) as running:
        status, reply, _ = post(
            f"{running.url}/v1/embeddings",
            embeddings([f"text {n}" for n in range(MAX_EMBEDDING_INPUTS)], dimensions=dims),
            seconds=60,
        )
    assert status == 200 and len(reply["data"]) == MAX_EMBEDDING_INPUTS
    assert {len(row["embedding"]) for row in reply["data"]} == {dims}


def test_the_serve_command_answers_a_malformed_request_400_and_goes_on(tmp_path):
    path = tmp_path / "r.jsonl"
    (key, reply), = RECORDED.items()  # fmt: skip
    path.write_text(json.dumps({"key": key, "reply": reply}) + "\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "memshift_tools.replay", "serve", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        for name in ("huge-number", "deep", "tools-not-a-list"):
            one_line_400(*post(f"{url}/v1/chat/completions", BAD_BODIES[name])[:2])
        status, answered, _ = post(f"{url}/v1/chat/completions", ANSWERED)
        assert status == 200 and answered["choices"][0]["message"]["content"] == "In London."
    finally:
        process.terminate()
        process.wait(timeout=30)
