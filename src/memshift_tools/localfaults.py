"""The local server's adversarial faults: replies whose content or envelope no client should
trust. Each builds what a misbehaving server or proxy could send; `localserver` applies them
per request through its fault plan.

- `malformed`: the reply envelope in another shape (`variant` names which, `MALFORMED`);
- `deep_nesting`: content that is JSON nested `size` deep (default 100,000);
- `huge_number`: content whose last string is replaced by a number of `size` digits (5,000);
- `lone_surrogate`: content whose last string is "\\ud800", as a JSON escape in the content
  (`variant` "escaped", the default) or as the character itself ("raw");
- `oversized`: the right content followed by `size` bytes of JSON whitespace (64 MiB), with a
  Content-Length, or streamed without one (`variant` "chunked");
- `echo_key`: HTTP 401 whose body repeats the credentials the request carried;
- `gzip`: the reply gzip-coded (`Content-Encoding: gzip`): whole (the default), in two members
  (`variant` "members"), padded with `size` bytes of JSON whitespace (64 MiB, "bomb"), or
  damaged: cut in half ("cut"), its checksum wrong ("damaged"), not gzip at all ("not_gzip"),
  followed by other bytes ("trailing"), or empty ("empty");
- `rate_limit` (in `localserver`): Retry-After as seconds, as an HTTP date (`variant`
  "http_date") or as `retry-after-ms` ("ms").
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from aiohttp import web

LONE_SURROGATE = "\ud800"
DEFAULT_SIZES = {
    "deep_nesting": 100_000,
    "huge_number": 5_000,
    "oversized": 64 * 1024 * 1024,
    "gzip": 64 * 1024 * 1024,
}
_NUMBER_MARK = "\x00number\x00"

Envelope = dict[str, Any]
Mutation = Callable[[Envelope, str], Envelope]


def _set(path: tuple[str | int, ...], value: Any) -> Mutation:
    def mutate(envelope: Envelope, content: str) -> Envelope:
        node: Any = envelope
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value(content) if callable(value) else value
        return envelope

    return mutate


def _drop(name: str) -> Mutation:
    def mutate(envelope: Envelope, content: str) -> Envelope:
        envelope.pop(name, None)
        return envelope

    return mutate


_OPENAI_MESSAGE = ("choices", 0, "message")
_OPENAI: dict[str, Mutation] = {
    "message_string": _set(_OPENAI_MESSAGE, lambda content: content),
    "usage_string": _set(("usage",), "many"),
    "content_object": _set((*_OPENAI_MESSAGE, "content"), lambda content: {"text": content}),
    "blocks_not_objects": _set(("choices",), lambda content: [content]),
    "no_choices": _drop("choices"),
    "text_not_string": _set((*_OPENAI_MESSAGE, "content"), 42),
    "usage_huge": _set(("usage", "prompt_tokens"), 10**12),
    "usage_nan": _set(("usage", "prompt_tokens"), float("nan")),
    "finish_reason_object": _set(("choices", 0, "finish_reason"), {"why": "stop"}),
}
_ANTHROPIC: dict[str, Mutation] = {
    "message_string": _set(("content",), lambda content: content),
    "usage_string": _set(("usage",), "many"),
    "content_object": _set(("content",), lambda content: {"type": "text", "text": content}),
    "blocks_not_objects": _set(("content",), lambda content: [content]),
    "no_choices": _drop("content"),
    "text_not_string": _set(("content",), [{"type": "text", "text": 42}]),
    "usage_huge": _set(("usage", "input_tokens"), 10**12),
    "usage_nan": _set(("usage", "input_tokens"), float("nan")),
    "finish_reason_object": _set(("stop_reason",), {"why": "end_turn"}),
}
_OLLAMA_MESSAGE = ("message",)
_OLLAMA: dict[str, Mutation] = {
    "message_string": _set(_OLLAMA_MESSAGE, lambda content: content),
    "usage_string": _set(("prompt_eval_count",), "many"),
    "content_object": _set((*_OLLAMA_MESSAGE, "content"), lambda content: {"text": content}),
    "blocks_not_objects": _set(_OLLAMA_MESSAGE, lambda content: [content]),
    "no_choices": _drop("message"),
    "text_not_string": _set((*_OLLAMA_MESSAGE, "content"), 42),
    "usage_huge": _set(("prompt_eval_count",), 10**12),
    "usage_nan": _set(("prompt_eval_count",), float("nan")),
    "finish_reason_object": _set(("done_reason",), {"why": "stop"}),
}
_MUTATIONS = {"openai": _OPENAI, "anthropic": _ANTHROPIC, "ollama": _OLLAMA}
_RAW: dict[str, Callable[[], bytes]] = {
    "not_json": lambda: b"<html><body>502 Bad Gateway</body></html>",
    "not_object": lambda: b"[1, 2, 3]",
    "deep_envelope": lambda: b'{"usage": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}
MALFORMED = (*_OPENAI, *_RAW)
SURROGATE_VARIANTS = ("escaped", "raw")
OVERSIZED_VARIANTS = ("chunked",)
RETRY_AFTER_VARIANTS = ("seconds", "http_date", "ms")
GZIP_VARIANTS = ("whole", "members", "bomb", "cut", "damaged", "not_gzip", "trailing", "empty")
VARIANTS: dict[str, tuple[str, ...]] = {
    "malformed": MALFORMED,
    "lone_surrogate": SURROGATE_VARIANTS,
    "oversized": OVERSIZED_VARIANTS,
    "rate_limit": RETRY_AFTER_VARIANTS,
    "gzip": GZIP_VARIANTS,
}


def check_variant(kind: str, variant: str | None) -> None:
    allowed = VARIANTS.get(kind, ())
    if kind == "malformed" and variant is None:
        raise ValueError(f"a malformed fault needs a variant, one of {MALFORMED}")
    if variant is not None and variant not in allowed:
        raise ValueError(f"fault {kind!r} has no variant {variant!r}; expected one of {allowed}")


def malformed_body(api: str, variant: str, envelope: Envelope, content: str) -> Envelope | bytes:
    """The reply in the shape `variant` names: a changed envelope, or raw bytes."""
    if variant in _RAW:
        return _RAW[variant]()
    return _MUTATIONS[api][variant](envelope, content)


def _replace_last_string(value: Any, new: Any) -> tuple[Any, bool]:
    if isinstance(value, str):
        return new, True
    if isinstance(value, list):
        for n in reversed(range(len(value))):
            value[n], done = _replace_last_string(value[n], new)
            if done:
                return value, True
    if isinstance(value, dict):
        for name in reversed(list(value)):
            value[name], done = _replace_last_string(value[name], new)
            if done:
                return value, True
    return value, False


def _last_string_replaced(content: str, new: Any) -> Any:
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        value = {}
    value, done = _replace_last_string(value, new)
    return value if done else {"value": new}


def with_lone_surrogate(content: str, variant: str | None) -> str:
    value = _last_string_replaced(content, LONE_SURROGATE)
    return json.dumps(value, ensure_ascii=variant != "raw")


def with_huge_number(content: str, digits: int) -> str:
    text = json.dumps(_last_string_replaced(content, _NUMBER_MARK))
    return text.replace(json.dumps(_NUMBER_MARK), "9" * digits)


def deeply_nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def padded(content: str, size: int) -> str:
    """The same JSON value, `size` characters longer: whitespace is insignificant in JSON."""
    return content + " " * size


def sent_credentials(request: web.Request) -> str:
    authorization = request.headers.get("Authorization", "")
    return authorization.removeprefix("Bearer ") or request.headers.get("x-api-key", "")


def echo_key_body(request: web.Request) -> dict[str, Any]:
    """What a careless server or proxy answers to a key it does not take: the key itself."""
    credentials = sent_credentials(request)
    headers = {
        name: request.headers[name]
        for name in ("Authorization", "x-api-key")
        if name in request.headers
    }
    message = f"Incorrect API key provided: {credentials}. You can find your key in settings."
    return {"error": {"message": message, "type": "authentication_error", "headers": headers}}


def retry_headers(retry_after: float, variant: str | None) -> dict[str, str]:
    if variant == "ms":
        return {"retry-after-ms": f"{retry_after * 1000:g}"}
    if variant == "http_date":
        # An HTTP date has whole seconds: rounded up, so the wait is never shorter than asked.
        when = datetime.now(UTC) + timedelta(seconds=retry_after + 1)
        return {"Retry-After": format_datetime(when.replace(microsecond=0), usegmt=True)}
    return {"Retry-After": f"{retry_after:g}"}


def gzipped(body: bytes, variant: str | None, size: int) -> bytes:
    """`body` gzip-coded as `variant` says (GZIP_VARIANTS; None: whole)."""
    packed = gzip.compress(body, mtime=0)
    if variant == "members":
        half = len(body) // 2
        return gzip.compress(body[:half], mtime=0) + gzip.compress(body[half:], mtime=0)
    if variant == "bomb":
        return gzip.compress(body + b" " * size, compresslevel=9, mtime=0)
    if variant == "cut":
        return packed[: len(packed) // 2]
    if variant == "damaged":  # the CRC-32 of the trailer inverted
        return packed[:-8] + bytes(b ^ 0xFF for b in packed[-8:-4]) + packed[-4:]
    if variant == "not_gzip":
        return body
    if variant == "trailing":
        return packed + b"<html>502 Bad Gateway</html>"
    if variant == "empty":
        return b""
    return packed
