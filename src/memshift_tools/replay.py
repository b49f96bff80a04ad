"""Record a model's replies to a memory library's prompts once, and replay them offline.

A reply is keyed by the content of its request (the API, the messages and the reply schema: not
the model name, the sampling settings or the order of calls), so a library that sends the same
prompts gets the same replies however its calls interleave. Recording appends one JSON line per
new reply and flushes it, so a killed recording keeps every reply it answered; replaying a request
that was never recorded is refused (HTTP 400 naming its key), which the library sees as a failed
call. Embeddings are not recorded: the local server's are hashed words, the same on every run.

    python -m memshift_tools.replay record --upstream http://127.0.0.1:8000/v1 --model M --out F
    python -m memshift_tools.replay record --stand-in lightrag --out F
    python -m memshift_tools.replay serve F

each serving the OpenAI API on 127.0.0.1 (`--port`, printed at start) for the library to call."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import stat
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from memshift.intake.storable import UnstorableError, parse_storable
from memshift_tools import stand_ins
from memshift_tools.localserver import Answer, Messages, serve_forever

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_RECORDING_BYTES = 512 * 1024 * 1024
STAND_INS: dict[str, Answer] = {
    "mem0": stand_ins.mem0_extraction,
    "lightrag": stand_ins.lightrag,
    "memos": stand_ins.memos_extraction,
    "cognee": stand_ins.cognee,
    "amem": stand_ins.amem,
    "hipporag": stand_ins.hipporag,
    "any": stand_ins.any_library,
}


class RecordingError(ValueError):
    """A recording file that cannot be read, naming the file and the line."""


def content_key(api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
    canonical = json.dumps(
        [api, messages, schema], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def read_recording(path: Path) -> bytes:
    """The bytes of a recording: a regular file of at most MAX_RECORDING_BYTES. It is opened
    without waiting and looked at before a byte is read, so a FIFO cannot hang the server and
    a device (/dev/zero) cannot fill its memory."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read the recording: {exc.strerror}") from None
    problem = _not_readable(os.fstat(handle))
    if problem is not None:
        os.close(handle)
        raise RecordingError(f"{path}: {problem}")
    try:
        with os.fdopen(handle, "rb") as recording:
            raw = recording.read(MAX_RECORDING_BYTES + 1)
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read the recording: {exc.strerror}") from None
    if len(raw) > MAX_RECORDING_BYTES:  # it grew while it was read
        raise RecordingError(f"{path}: the recording holds more than {MAX_RECORDING_BYTES:,} bytes")
    return raw


def _not_readable(info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        return "the recording is not a regular file"
    if info.st_size > MAX_RECORDING_BYTES:
        return f"the recording holds {info.st_size:,} bytes; at most {MAX_RECORDING_BYTES:,}"
    return None


def load(path: Path) -> dict[str, str]:
    """The replies a recording holds by key (a key recorded twice keeps its first reply)."""
    replies: dict[str, str] = {}
    raw = read_recording(path)
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        if len(line) > MAX_LINE_BYTES:
            raise RecordingError(f"{where}: over {MAX_LINE_BYTES:,} bytes")
        try:
            row = parse_storable(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise RecordingError(f"{where}: not UTF-8") from None
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{where}: not JSON ({exc})") from None
        except UnstorableError as exc:
            raise RecordingError(f"{where}: not a recorded reply: it holds {exc}") from None
        if not (
            isinstance(row, dict)
            and set(row) == {"key", "reply"}
            and isinstance(row["key"], str)
            and len(row["key"]) == 64
            and isinstance(row["reply"], str)
        ):
            raise RecordingError(f'{where}: expected {{"key": <64 hex digits>, "reply": <text>}}')
        replies.setdefault(row["key"], row["reply"])
    return replies


@dataclass
class Recorder:
    """Answers with `answer` and appends each new request's reply to `out`."""

    answer: Answer
    out: IO[str]
    seen: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
        reply = self.answer(api, messages, schema)
        key = content_key(api, messages, schema)
        with self._lock:
            if key not in self.seen:
                self.seen.add(key)
                self.out.write(json.dumps({"key": key, "reply": reply}, ensure_ascii=False) + "\n")
                self.out.flush()
        return reply


@dataclass
class Replayer:
    """Answers from a recording; a request it does not hold is a miss (the server's HTTP 400)."""

    replies: dict[str, str]
    misses: list[str] = field(default_factory=list)

    def __call__(self, api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
        key = content_key(api, messages, schema)
        if key not in self.replies:
            self.misses.append(key)
            raise KeyError(f"no recorded reply for the request with key {key}")
        return self.replies[key]


def upstream(base_url: str, model: str, api_key: str = "local", timeout_s: float = 600) -> Answer:
    """An OpenAI-compatible server's chat completions as an answer callback (temperature 0)."""

    def answer(api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
        body: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0.0}
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema},
            }
        request = urllib.request.Request(
            f"{base_url.rstrip('/')}/chat/completions",
            json.dumps(body).encode(),
            {"content-type": "application/json", "authorization": f"Bearer {api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                reply = json.loads(response.read())
        except (urllib.error.URLError, OSError) as exc:
            raise RuntimeError(f"the upstream server at {base_url} failed: {exc}") from exc
        return str(reply["choices"][0]["message"]["content"])

    return answer


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m memshift_tools.replay",
        description="Record a model's replies to a memory library's prompts, or replay them.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("record", help="answer and append each new reply to --out")
    source = record.add_mutually_exclusive_group(required=True)
    source.add_argument("--upstream", help="an OpenAI-compatible base URL (ends in /v1)")
    source.add_argument("--stand-in", choices=sorted(STAND_INS), help="a scripted stand-in")
    record.add_argument("--model", default="", help="the upstream model's name")
    record.add_argument("--api-key", default="local")
    record.add_argument("--out", type=Path, required=True, help="the recording (JSONL, appended)")
    serve = commands.add_parser("serve", help="answer from a recording; refuse what it lacks")
    serve.add_argument("recording", type=Path)
    for command in (record, serve):
        command.add_argument("--port", type=int, default=0, help="port to bind (0: a free port)")
    args = parser.parse_args(argv)
    if args.command == "record" and args.upstream and not args.model:
        parser.error("record --upstream needs --model")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    if args.command == "serve":
        try:
            answer: Callable[..., str] = Replayer(load(args.recording))
        except RecordingError as exc:
            raise SystemExit(f"error: {exc}") from None
        asyncio.run(serve_forever(answer, args.port, 0.0, (), ()))
        return
    source = (
        STAND_INS[args.stand_in]
        if args.stand_in
        else upstream(args.upstream, args.model, args.api_key)
    )
    with open(args.out, "a", encoding="utf-8") as out:
        asyncio.run(serve_forever(Recorder(source, out), args.port, 0.0, (), ()))


if __name__ == "__main__":
    main()
