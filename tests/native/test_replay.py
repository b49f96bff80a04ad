"""The replay server: replies recorded by request content, replayed whatever the order of calls,
a killed recording keeps what it answered, a request never recorded is refused, and a damaged
recording is refused naming its line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from openai import OpenAI

from memshift_tools.replay import (
    STAND_INS,
    Recorder,
    RecordingError,
    Replayer,
    content_key,
    load,
)

EXTRACTION = [
    {
        "role": "system",
        "content": "You are a Knowledge Graph Specialist responsible for extracting entities.",
    },
    {
        "role": "user",
        "content": "---Input Text---\n```\nAda Lovelace met Charles Babbage in London.\n```\n",
    },
]
KEYWORDS = [
    {
        "role": "user",
        "content": "You are an expert keyword extractor.\nUser Query: Where does Ada live?\n",
    }
]


def test_a_recording_replays_the_same_replies_in_any_order(tmp_path):
    path = tmp_path / "r.jsonl"
    with path.open("w") as out:
        recorder = Recorder(STAND_INS["lightrag"], out)
        first = [recorder("openai", m, None) for m in (EXTRACTION, KEYWORDS, EXTRACTION)]
    assert len(path.read_text().splitlines()) == 2  # a repeated request is recorded once
    replayer = Replayer(load(path))
    assert [replayer("openai", m, None) for m in (KEYWORDS, EXTRACTION)] == first[1::-1]
    assert replayer.misses == []
    assert "Ada Lovelace" in first[0] and first[0].endswith("<|COMPLETE|>")


def test_the_key_is_the_content_not_the_model_or_the_schema_less_call():
    assert content_key("openai", EXTRACTION, None) != content_key("openai", KEYWORDS, None)
    assert content_key("openai", KEYWORDS, None) != content_key(
        "openai", KEYWORDS, {"type": "object"}
    )
    assert content_key("openai", KEYWORDS, None) != content_key("anthropic", KEYWORDS, None)


def test_a_request_never_recorded_is_a_miss_naming_its_key():
    replayer = Replayer({})
    with pytest.raises(KeyError, match=content_key("openai", KEYWORDS, None)):
        replayer("openai", KEYWORDS, None)
    assert replayer.misses == [content_key("openai", KEYWORDS, None)]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"key": "' + b"a" * 64 + b'", "reply": "ok"}\n{not json\n', "line 2: not JSON"),
        (b'{"key": "abc", "reply": "ok"}\n', "line 1: expected"),
        (b'{"key": "' + b"a" * 64 + b'", "reply": 3}\n', "line 1: expected"),
        (b'{"key": "' + b"a" * 64 + b'", "reply": "x", "extra": 1}\n', "line 1: expected"),
        (b'["key", "reply"]\n', "line 1: expected"),
        (b"\xff\xfe\n", "line 1: not UTF-8"),
        (
            b"[" * 100_000 + b"]" * 100_000 + b"\n",
            "line 1: not a recorded reply: it holds JSON nested",
        ),
    ],
    ids=[
        "malformed",
        "short-key",
        "non-text-reply",
        "unknown-field",
        "not-an-object",
        "non-utf8",
        "deep-nesting",
    ],
)
def test_a_damaged_recording_is_refused_naming_the_line(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=problem):
        load(path)


def test_a_missing_recording_is_refused_naming_the_file(tmp_path):
    with pytest.raises(RecordingError, match="cannot read the recording"):
        load(tmp_path / "absent.jsonl")


def _start(*args: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "memshift_tools.replay", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("serving on "), process.stderr.read() if process.stderr else line
    return process, line.split()[-1]


def test_the_command_records_then_serves_through_the_openai_client(tmp_path):
    path = tmp_path / "cli.jsonl"
    recording, url = _start("record", "--stand-in", "lightrag", "--out", str(path))
    try:
        client = OpenAI(base_url=f"{url}/v1", api_key="local", max_retries=0)
        said = client.chat.completions.create(model="m", messages=KEYWORDS)
    finally:
        os.kill(recording.pid, signal.SIGKILL)  # a killed recording keeps what it answered
        recording.wait()
    assert json.loads(path.read_text().splitlines()[0])["reply"] == said.choices[0].message.content
    serving, url = _start("serve", str(path))
    try:
        client = OpenAI(base_url=f"{url}/v1", api_key="local", max_retries=0)
        again = client.chat.completions.create(model="other", messages=KEYWORDS)
        assert again.choices[0].message.content == said.choices[0].message.content
        with pytest.raises(Exception, match="no recorded reply"):
            client.chat.completions.create(model="m", messages=EXTRACTION)
    finally:
        serving.terminate()
        serving.wait()


def test_serving_a_damaged_recording_fails_at_once_naming_it(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    done = subprocess.run(
        [sys.executable, "-m", "memshift_tools.replay", "serve", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "bad.jsonl, line 1: not JSON" in done.stderr
