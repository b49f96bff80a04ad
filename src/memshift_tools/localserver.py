"""A loopback HTTP server that speaks enough of the OpenAI chat-completions API and the Anthropic
messages API for the official client libraries (and, in mode `ollama`, Ollama's own chat API),
used by tests and benchmarks in place of a real model provider. Replies come from a callback;
faults (rate limits, server errors, slow, truncated or malformed replies, dropped connections,
and the adversarial ones of `localfaults`) are injected per request by a fault plan. A server can
also be told to refuse request parameters (`unsupported`), as some models refuse `temperature`,
to take the reply schema only in the forms a given kind of server takes (`mode`), and to answer a
prompt longer than a context window with the error that kind of server sends (`context_length`).
A request body is parsed within bounds and one the server cannot take is answered HTTP 400 with
a one-line message, as is an embeddings request larger than MAX_EMBEDDING_* allow.

Run `python -m memshift_tools.localserver --port P --latency S [--faults JSON]
[--unsupported temperature,top_p] [--mode llamacpp] [--context-length N]` to serve
`canned_answer` in the foreground.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import math
import re
import signal
import threading
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from types import TracebackType
from typing import Any

from aiohttp import web

from memshift.intake.storable import UnstorableError, parse_storable
from memshift.models.structured import SCHEMA_LEAD
from memshift_tools import localfaults

Messages = list[dict[str, str]]
Answer = Callable[[str, Messages, dict[str, Any] | None], str]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LOOPBACK = "127.0.0.1"
OPENAI_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
MODELS_PATH = "/v1/models"
EMBEDDING_DIMS = 64
ANTHROPIC_PATH = "/v1/messages"
OLLAMA_PATH = "/api/chat"
FAULT_KINDS = (
    "rate_limit",
    "server_error",
    "slow",
    "truncated",
    "invalid_json",
    "empty",
    "ignore_schema",
    "refusal",
    "drop_connection",
    "malformed",
    "deep_nesting",
    "huge_number",
    "lone_surrogate",
    "oversized",
    "echo_key",
    "gzip",
)
REFUSAL_TEXT = "I can't help with that."
INVALID_JSON_CONTENT = "{not json"
OFF_SCHEMA_CONTENT = '{"unexpected": true}'
MAX_BODY_BYTES = 64 * 1024 * 1024
# What one embeddings request may ask for, checked before any work: OpenAI's own limit of texts,
# and replies of at most about 40 MB of JSON.
MAX_EMBEDDING_INPUTS = 2048
MAX_DIMENSIONS = 4096
MAX_EMBEDDING_VALUES = 2**21
MAX_EMBEDDING_CHARACTERS = 8 * 1024 * 1024
STREAM_CHUNK = 256 * 1024
SHUTDOWN_TIMEOUT = 2.0

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FaultRule:
    """One entry of a fault plan. `attempts` counts per distinct request (None: every time);
    `variant` and `size` refine some kinds (`localfaults`); `share` picks that share of the
    distinct requests by a hash of the request and the rule, so a whole study can meet every
    fault on a few calls each, the same calls on every run."""

    kind: str
    attempts: int | None = 1
    retry_after: float | None = None
    delay: float = 0.0
    match: str | None = None
    variant: str | None = None
    size: int | None = None
    share: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {FAULT_KINDS}")
        if self.attempts is not None and self.attempts < 1:
            raise ValueError("attempts must be at least 1, or None for every attempt")
        if self.delay < 0 or (self.retry_after is not None and self.retry_after < 0):
            raise ValueError("delay and retry_after must not be negative")
        if self.size is not None and self.size < 1:
            raise ValueError("size must be at least 1")
        if self.share is not None and not 0.0 < self.share <= 1.0:
            raise ValueError("share must be in (0, 1]")
        localfaults.check_variant(self.kind, self.variant)

    @property
    def amount(self) -> int:
        """The rule's size, or its kind's default."""
        return self.size if self.size is not None else localfaults.DEFAULT_SIZES[self.kind]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FaultRule:
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown fault rule fields: {sorted(unknown)}")
        return cls(**data)

    def applies_to(self, key: str, last_user: str) -> bool:
        if self.match is not None and self.match not in last_user:
            return False
        return self.share is None or _unit_hash(f"{self.kind}:{self.variant}:{key}") < self.share


def _unit_hash(text: str) -> float:
    """A number in [0, 1) fixed by the text."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2.0**64


def parse_faults(text: str) -> tuple[FaultRule, ...]:
    """A fault plan from JSON text: a list of FaultRule dicts."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("a fault plan is a JSON list of fault rules")
    return tuple(FaultRule.from_dict(rule) for rule in data)


def hashed_embedding(text: str, dims: int) -> list[float]:
    """A unit vector of the text's lower-cased words hashed into `dims` buckets."""
    vector = [0.0] * dims
    for word in re.findall(r"\w+", text.lower()):
        bucket = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % dims
        vector[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def estimate_tokens(text: str) -> int:
    """Usage figures are estimates at four characters a token: exact counting would cost more than
    the rest of a request."""
    return (len(text) + 3) // 4


def request_key(body: Any) -> str:
    """The identity of a distinct request: sha256 of the canonical JSON of its body."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Canned answers: a minimal instance of whatever schema the request asks for.


def minimal_instance(schema: Mapping[str, Any]) -> Any:
    """A small value that satisfies `schema`: required properties only, arrays as short as allowed,
    the first enum value, the first anyOf/oneOf branch."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return minimal_instance(schema[combinator][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    return _MINIMAL_BY_TYPE.get(kind, _minimal_untyped)(schema)


def _minimal_object(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties", {})
    return {name: minimal_instance(properties.get(name, {})) for name in schema.get("required", ())}


def _minimal_array(schema: Mapping[str, Any]) -> list[Any]:
    count = schema.get("minItems", 0)
    return [minimal_instance(schema.get("items", {})) for _ in range(count)]


def _minimal_string(schema: Mapping[str, Any]) -> str:
    return "x" * schema.get("minLength", 0)


def _minimal_number(schema: Mapping[str, Any]) -> int | float:
    return schema.get("minimum", 0)


def _minimal_untyped(schema: Mapping[str, Any]) -> Any:
    if "properties" in schema or "required" in schema:
        return _minimal_object(schema)
    return None


_MINIMAL_BY_TYPE: dict[str | None, Callable[[Mapping[str, Any]], Any]] = {
    "object": _minimal_object,
    "array": _minimal_array,
    "string": _minimal_string,
    "integer": _minimal_number,
    "number": _minimal_number,
    "boolean": lambda _schema: False,
    "null": lambda _schema: None,
}


# How the server takes a reply's schema: `openai` (a json_schema response format, llama.cpp's
# json_object with a schema, or a forced function call, all honoured as before modes existed);
# `vllm` (the same three, as vLLM honours them); `llamacpp` (llama.cpp's Python server: any
# response format other than text or json_object is refused with HTTP 500 and a validation
# error); `ollama` (also Ollama's own /api/chat, its schema in `format`; nothing refused);
# `text` (a server that ignores every schema parameter: it answers the schema the prompt
# states, wrapped in prose and a fence).
MODES = ("openai", "vllm", "llamacpp", "ollama", "text")


def context_refusal(mode: str, prompt: int, limit: int, window: int) -> dict[str, Any]:
    """The error body a server of `mode` answers (with HTTP 400) to a prompt that does not fit
    its context window: vLLM's words, and llama.cpp's Python server's, which names `messages`."""
    message = (
        f"This model's maximum context length is {window} tokens. However, you requested "
        f"{prompt + limit} tokens ({prompt} in the messages, {limit} in the completion). "
        "Please reduce the length of the messages or completion."
    )
    if mode == "llamacpp":
        error = {"type": "invalid_request_error", "param": "messages"}
        return {"error": {"message": message, **error, "code": "context_length_exceeded"}}
    return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}


def llamacpp_refusal(kind: str) -> dict[str, Any]:
    """The body llama.cpp's Python server (0.3.x) answers to a response format it does not
    take: its request validation error, reported as an internal server error."""
    message = (
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
        f"'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}"
    )
    return {
        "error": {"message": message, "type": "internal_server_error", "param": None, "code": None}
    }


def schema_in_prompt(text: str) -> dict[str, Any] | None:
    """The JSON schema a prompt states the way memshift asks for one in the text, if it does."""
    _, found, rest = text.rpartition(SCHEMA_LEAD)
    if not found:
        return None
    try:
        schema = json.loads(rest.strip())
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def canned_answer(api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
    """An Answer for benchmarks: the minimal valid instance of the requested schema, as JSON."""
    if schema is None:
        return "{}"
    return json.dumps(minimal_instance(schema))


# ---------------------------------------------------------------------------------------------
# The two API dialects: request parsing, reply and error bodies.


class _BadRequest(Exception):
    """The request body is not something this server (or the real API) accepts."""


@dataclass(frozen=True)
class _Call:
    model: str
    messages: Messages
    schema: dict[str, Any] | None
    forced_tool: str | None = None

    @property
    def last_user(self) -> str:
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")

    @property
    def prompt_tokens(self) -> int:
        return sum(estimate_tokens(m["content"]) for m in self.messages)


@dataclass(frozen=True)
class _Outcome:
    """The content to send, after any content fault."""

    content: str
    truncated: bool = False
    refused: bool = False


@dataclass(frozen=True)
class _Dialect:
    api: str
    known_fields: frozenset[str]
    parse: Callable[[dict[str, Any]], _Call]
    reply: Callable[[_Call, _Outcome], dict[str, Any]]
    error: Callable[[str, str], dict[str, Any]]  # (error kind, message) -> body
    unsupported: Callable[[str], dict[str, Any]]  # a refused parameter's name -> body


def _require(body: Mapping[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _BadRequest(f"`{name}` is required and must be a {kind.__name__}")
    return value


def _join_text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise _BadRequest("message content must be a string or a list of text parts")
    return "".join(_text_of(part) for part in content)


def _text_of(part: Any) -> str:
    if not isinstance(part, dict) or part.get("type") != "text":
        raise _BadRequest("only text content parts are supported by the local server")
    return _require(part, "text", str)


def _message(role: str, content: Any) -> dict[str, str]:
    return {"role": role, "content": _join_text(content)}


def _refuse_streaming(body: Mapping[str, Any]) -> None:
    if body.get("stream"):
        raise _BadRequest("streaming is not supported by the local server")


_OPENAI_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}


def _openai_message(message: Any) -> dict[str, str]:
    if not isinstance(message, dict) or message.get("role") not in _OPENAI_ROLES:
        raise _BadRequest("each message needs a role of system, developer, user or assistant")
    return _message(_OPENAI_ROLES[message["role"]], message.get("content"))


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _BadRequest(f"`{where}` must be an object")
    return value


def _listed(body: Mapping[str, Any], name: str) -> list[Any]:
    """An optional list of the request (`tools`): absent or null is empty."""
    value = body.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _BadRequest(f"`{name}` must be a list")
    return value


def _openai_schema(response_format: Any) -> dict[str, Any] | None:
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    spec = _object(response_format.get("json_schema"), "response_format.json_schema")
    return _object(spec.get("schema", {}), "response_format.json_schema.schema")


def _openai_forced_function(body: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(name, parameters) of the function a request forces the model to call, if it does."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None
    name = _require(_require(choice, "function", dict), "name", str)
    for tool in _listed(body, "tools"):
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == name:
            return name, _object(function.get("parameters", {}), "function.parameters")
    raise _BadRequest(f"`tool_choice` names the function {name!r}, which `tools` does not hold")


def _openai_call(body: dict[str, Any]) -> _Call:
    _refuse_streaming(body)
    model = _require(body, "model", str)
    messages = [_openai_message(m) for m in _require(body, "messages", list)]
    forced = _openai_forced_function(body)
    if forced is not None:
        return _Call(model, messages, forced[1], forced_tool=forced[0])
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_object":
        # llama.cpp's server takes the schema inside a json_object response format
        schema = response_format.get("schema")
        return _Call(model, messages, None if schema is None else _object(schema, "schema"))
    return _Call(model, messages, _openai_schema(response_format))


def _openai_reply(call: _Call, outcome: _Outcome) -> dict[str, Any]:
    completion_tokens = estimate_tokens(REFUSAL_TEXT if outcome.refused else outcome.content)
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if outcome.refused else outcome.content,
        "refusal": REFUSAL_TEXT if outcome.refused else None,
    }
    finish = "length" if outcome.truncated else "stop"
    if call.forced_tool is not None and not outcome.refused:
        function = {"name": call.forced_tool, "arguments": outcome.content}
        message["content"] = None
        message["tool_calls"] = [{"id": "call_0", "type": "function", "function": function}]
        finish = "length" if outcome.truncated else "tool_calls"
    prompt_tokens = call.prompt_tokens
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": 0,
        "model": call.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


_OPENAI_ERRORS = {
    "invalid_request": ("invalid_request_error", None),
    "unknown_request": ("invalid_request_error", "unknown_request"),
    "rate_limit": ("requests", "rate_limit_exceeded"),
    "server_error": ("server_error", None),
}


def _openai_error(kind: str, message: str) -> dict[str, Any]:
    error_type, code = _OPENAI_ERRORS[kind]
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def _openai_unsupported(name: str) -> dict[str, Any]:
    # The shape of the API's own refusal (`param` names the parameter); the wording is ours.
    message = f"Unsupported parameter: '{name}' is not supported with this model."
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": name,
            "code": "unsupported_parameter",
        }
    }


OPENAI = _Dialect(
    api="openai",
    known_fields=frozenset(
        {"model", "messages", "response_format", "temperature", "top_p", "max_tokens"}
        | {"max_completion_tokens", "seed", "stream", "tools", "tool_choice"}
    ),
    parse=_openai_call,
    reply=_openai_reply,
    error=_openai_error,
    unsupported=_openai_unsupported,
)


def _anthropic_message(message: Any) -> dict[str, str]:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        raise _BadRequest("each message needs a role of user or assistant")
    return _message(message["role"], message.get("content"))


def _forced_tool(body: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") != "tool":
        return None
    name = _require(choice, "name", str)
    tools = _listed(body, "tools")
    tool = next((t for t in tools if isinstance(t, dict) and t.get("name") == name), None)
    if tool is None:
        raise _BadRequest(f"tool_choice names tool {name!r}, which is not in `tools`")
    return name, _object(tool.get("input_schema", {}), "input_schema")


def _anthropic_format_schema(body: Mapping[str, Any]) -> dict[str, Any] | None:
    config = body.get("output_config")
    output_format = config.get("format") if isinstance(config, dict) else body.get("output_format")
    if isinstance(output_format, dict) and output_format.get("type") == "json_schema":
        return _object(output_format.get("schema", {}), "output_format.schema")
    return None


def _anthropic_call(body: dict[str, Any]) -> _Call:
    _refuse_streaming(body)
    model = _require(body, "model", str)
    _require(body, "max_tokens", int)
    system = body.get("system")
    leading = [_message("system", system)] if system else []
    messages = leading + [_anthropic_message(m) for m in _require(body, "messages", list)]
    tool = _forced_tool(body)
    if tool is not None:
        return _Call(model, messages, tool[1], forced_tool=tool[0])
    return _Call(model, messages, _anthropic_format_schema(body))


def _anthropic_content(call: _Call, outcome: _Outcome) -> list[dict[str, Any]]:
    tool_input = _json_object(outcome.content) if call.forced_tool and not outcome.refused else None
    if tool_input is None:
        return [{"type": "text", "text": "" if outcome.refused else outcome.content}]
    tool_id = f"toolu_{uuid.uuid4().hex}"
    return [{"type": "tool_use", "id": tool_id, "name": call.forced_tool, "input": tool_input}]


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _anthropic_stop_reason(content: list[dict[str, Any]], outcome: _Outcome) -> str:
    if outcome.refused:
        return "refusal"
    if outcome.truncated:
        return "max_tokens"
    return "tool_use" if content[0]["type"] == "tool_use" else "end_turn"


def _anthropic_reply(call: _Call, outcome: _Outcome) -> dict[str, Any]:
    content = _anthropic_content(call, outcome)
    return {
        "id": f"msg_{uuid.uuid4().hex}",
        "type": "message",
        "role": "assistant",
        "model": call.model,
        "content": content,
        "stop_reason": _anthropic_stop_reason(content, outcome),
        "stop_sequence": None,
        "usage": {
            "input_tokens": call.prompt_tokens,
            "output_tokens": 0 if outcome.refused else estimate_tokens(outcome.content),
        },
    }


_ANTHROPIC_ERRORS = {
    "invalid_request": "invalid_request_error",
    "unknown_request": "invalid_request_error",
    "rate_limit": "rate_limit_error",
    "server_error": "api_error",
}


def _anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": _ANTHROPIC_ERRORS[kind], "message": message}}


def _anthropic_unsupported(name: str) -> dict[str, Any]:
    # The API names a refused parameter in its message only.
    message = f"`{name}` is not supported for this model."
    return _anthropic_error("invalid_request", message)


ANTHROPIC = _Dialect(
    api="anthropic",
    known_fields=frozenset(
        {"model", "max_tokens", "system", "messages", "output_config", "output_format", "tools"}
        | {"tool_choice", "thinking", "temperature", "top_p", "top_k", "stop_sequences"}
        | {"metadata", "stream"}
    ),
    parse=_anthropic_call,
    reply=_anthropic_reply,
    error=_anthropic_error,
    unsupported=_anthropic_unsupported,
)


_OLLAMA_ROLES = frozenset({"system", "user", "assistant", "tool"})


def _ollama_message(message: Any) -> dict[str, str]:
    if not isinstance(message, dict) or message.get("role") not in _OLLAMA_ROLES:
        raise _BadRequest("each message needs a role of system, user, assistant or tool")
    content = message.get("content", "")
    if not isinstance(content, str):
        raise _BadRequest("a message's content must be a string")
    return {"role": message["role"], "content": content}


def _ollama_call(body: dict[str, Any]) -> _Call:
    # Ollama streams unless told not to; this server answers only whole replies.
    if body.get("stream", True) is not False:
        raise _BadRequest("streaming is not supported by the local server: send stream false")
    model = _require(body, "model", str)
    messages = [_ollama_message(m) for m in _require(body, "messages", list)]
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise _BadRequest("`options` must be an object")
    schema = body.get("format")
    if schema is not None and schema != "json" and not isinstance(schema, dict):
        raise _BadRequest('`format` must be "json" or a JSON schema')
    return _Call(model, messages, schema if isinstance(schema, dict) else None)


def _ollama_reply(call: _Call, outcome: _Outcome) -> dict[str, Any]:
    # Ollama has no refusal field: a refusing model says so in its text.
    content = REFUSAL_TEXT if outcome.refused else outcome.content
    return {
        "model": call.model,
        "created_at": "1970-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "length" if outcome.truncated else "stop",
        "total_duration": 0,
        "prompt_eval_count": call.prompt_tokens,
        "eval_count": estimate_tokens(content),
    }


def _ollama_error(kind: str, message: str) -> dict[str, Any]:
    return {"error": message}


def _ollama_unsupported(name: str) -> dict[str, Any]:
    return {"error": f"invalid request: '{name}' is not supported"}


OLLAMA = _Dialect(
    api="ollama",
    known_fields=frozenset(
        {"model", "messages", "format", "options", "stream", "keep_alive", "think", "tools"}
    ),
    parse=_ollama_call,
    reply=_ollama_reply,
    error=_ollama_error,
    unsupported=_ollama_unsupported,
)


def _content_fault(rule: FaultRule | None, content: str) -> _Outcome:
    kind = rule.kind if rule else None
    if kind == "truncated":
        return _Outcome(content[: len(content) // 2], truncated=True)
    if kind == "refusal":
        return _Outcome("", refused=True)
    replacements = {
        "invalid_json": INVALID_JSON_CONTENT,
        "empty": "",
        "ignore_schema": OFF_SCHEMA_CONTENT,
    }
    if kind in replacements:
        return _Outcome(replacements[kind])
    return _Outcome(_adversarial_content(rule, content) if rule else content)


def _adversarial_content(rule: FaultRule, content: str) -> str:
    if rule.kind == "deep_nesting":
        return localfaults.deeply_nested(rule.amount)
    if rule.kind == "huge_number":
        return localfaults.with_huge_number(content, rule.amount)
    if rule.kind == "lone_surrogate":
        return localfaults.with_lone_surrogate(content, rule.variant)
    if rule.kind == "oversized":
        return localfaults.padded(content, rule.amount)
    return content


_ERROR_FAULTS = {
    "rate_limit": (429, "Rate limit reached (injected by the local server)."),
    "server_error": (500, "The server had an error while processing your request (injected)."),
}


# ---------------------------------------------------------------------------------------------
# Shared state: counters and the fault plan, read from other threads under a lock.


class _State:
    """Counters and fault budgets. Handlers run on the server's loop; stats() may come from any
    thread, so every access holds the lock (held for microseconds, never across an await)."""

    def __init__(self, faults: Sequence[FaultRule]) -> None:
        self._lock = threading.Lock()
        self._faults = tuple(faults)
        self._spent: Counter[tuple[int, str]] = Counter()
        self._in_flight = 0
        self._clear()

    def _clear(self) -> None:
        self._requests = 0
        self._completed = 0
        self._most_in_flight = self._in_flight  # requests in flight across a reset still count
        self._paths: Counter[str] = Counter()
        self._keys: Counter[str] = Counter()
        self._ok: Counter[str] = Counter()
        self._faults_applied: Counter[str] = Counter()
        self._extra_fields: Counter[str] = Counter()
        self._last_extra: dict[str, Any] = {}

    def received(self, path: str) -> None:
        with self._lock:
            self._requests += 1
            self._paths[path] += 1
            self._in_flight += 1
            self._most_in_flight = max(self._most_in_flight, self._in_flight)

    def finished(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def identified(self, key: str, extra: Mapping[str, Any]) -> None:
        with self._lock:
            self._keys[key] += 1
            self._extra_fields.update(extra.keys())
            self._last_extra.update(extra)

    def take_fault(self, key: str, last_user: str) -> FaultRule | None:
        """The first matching rule with budget left for this request; spends one attempt."""
        with self._lock:
            for index, rule in enumerate(self._faults):
                spent = self._spent[index, key]
                if rule.applies_to(key, last_user) and (
                    rule.attempts is None or spent < rule.attempts
                ):
                    self._spent[index, key] = spent + 1
                    self._faults_applied[rule.kind] += 1
                    return rule
        return None

    def replied(self, key: str | None, status: int) -> None:
        with self._lock:
            self._completed += 1
            if key is not None and status == 200:
                self._ok[key] += 1

    def set_faults(self, faults: Sequence[FaultRule]) -> None:
        with self._lock:
            self._faults = tuple(faults)
            self._spent.clear()

    def reset(self) -> None:
        with self._lock:
            self._clear()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "requests": self._requests,
                "completed": self._completed,
                "most_in_flight": self._most_in_flight,
                "paths": dict(self._paths),
                "keys": dict(self._keys),
                "ok": dict(self._ok),
                "faults": dict(self._faults_applied),
                "extra_fields": dict(self._extra_fields),
                "last_extra": dict(self._last_extra),
                "fault_plan": [asdict(rule) for rule in self._faults],
            }


# ---------------------------------------------------------------------------------------------
# The aiohttp application.


class _App:
    def __init__(
        self,
        answer: Answer,
        latency: float,
        state: _State,
        unsupported: Sequence[str] = (),
        mode: str = "openai",
        context_length: int = 0,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; modes are {', '.join(MODES)}")
        self._answer = answer
        self._latency = latency
        self._state = state
        self._unsupported = tuple(unsupported)
        self._mode = mode
        self._context_length = context_length

    def build(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.router.add_post(OPENAI_PATH, self._api_handler(OPENAI))
        app.router.add_post(ANTHROPIC_PATH, self._api_handler(ANTHROPIC))
        if self._mode == "ollama":
            app.router.add_post(OLLAMA_PATH, self._api_handler(OLLAMA))
        app.router.add_post(EMBEDDINGS_PATH, self._embeddings)
        # what clients and launchers poll to see that a server is up
        app.router.add_get(MODELS_PATH, self._models)
        app.router.add_get("/_stats", self._stats)
        app.router.add_post("/_reset", self._reset)
        app.router.add_post("/_faults", self._faults)
        return app

    def _api_handler(self, dialect: _Dialect) -> Handler:
        async def handle(request: web.Request) -> web.StreamResponse:
            self._state.received(request.path)
            try:
                return await answer(request)
            finally:
                self._state.finished()

        async def answer(request: web.Request) -> web.StreamResponse:
            try:
                body = await _json_body(request)
                call = dialect.parse(body)
            except _BadRequest as exc:
                return await self._send(
                    request, None, 400, dialect.error("invalid_request", str(exc))
                )
            key = request_key(body)
            self._state.identified(
                key, {k: v for k, v in body.items() if k not in dialect.known_fields}
            )
            refused = next((name for name in self._unsupported if name in body), None)
            if refused is not None:
                return await self._send(request, key, 400, dialect.unsupported(refused))
            if self._mode == "llamacpp" and dialect.api == "openai":
                kind = (body.get("response_format") or {}).get("type", "text")
                if kind not in ("text", "json_object"):
                    return await self._send(request, key, 500, llamacpp_refusal(kind))
            too_long = self._too_long(dialect, body, call)
            if too_long is not None:
                return await self._send(request, key, 400, too_long)
            if self._mode == "text":
                call = dataclasses.replace(
                    call, schema=schema_in_prompt(call.last_user), forced_tool=None
                )
            elif dialect is OLLAMA and call.schema is None:
                # without `format`, the model follows what its prompt asks for, if anything
                call = dataclasses.replace(call, schema=schema_in_prompt(call.last_user))
            return await self._serve(request, dialect, call, key)

        return handle

    def _too_long(
        self, dialect: _Dialect, body: Mapping[str, Any], call: _Call
    ) -> dict[str, Any] | None:
        """The error for a prompt that, with the reply's token limit, exceeds the window the
        server was given (chat completions only: Ollama cuts such a prompt without a word)."""
        if not self._context_length or dialect.api != "openai":
            return None
        limit = body.get("max_tokens") or body.get("max_completion_tokens") or 0
        limit = limit if isinstance(limit, int) else 0
        if call.prompt_tokens + limit <= self._context_length:
            return None
        return context_refusal(self._mode, call.prompt_tokens, limit, self._context_length)

    async def _serve(
        self, request: web.Request, dialect: _Dialect, call: _Call, key: str
    ) -> web.StreamResponse:
        rule = self._state.take_fault(key, call.last_user)
        delay = self._latency + (rule.delay if rule else 0.0)
        if delay > 0:
            await asyncio.sleep(delay)
        kind = rule.kind if rule else None
        if kind == "drop_connection":
            return _drop(request)
        if kind in _ERROR_FAULTS:
            return await self._send_fault_error(request, dialect, key, rule)
        if kind == "echo_key":
            return await self._send(request, key, 401, localfaults.echo_key_body(request))
        try:
            content = self._answer(dialect.api, call.messages, call.schema)
            if self._mode == "text":
                content = f"Here is the reply.\n```json\n{content}\n```\nThat is all."
        except KeyError as exc:
            message = f"request unknown to the local server: {exc}"
            return await self._send(request, key, 400, dialect.error("unknown_request", message))
        except Exception as exc:
            _log.exception("the answer callback failed")
            message = f"the answer callback failed: {exc!r}"
            return await self._send(request, key, 500, dialect.error("server_error", message))
        reply = dialect.reply(call, _content_fault(rule, content))
        if rule is not None and rule.kind == "malformed":
            assert rule.variant is not None
            body = localfaults.malformed_body(dialect.api, rule.variant, reply, content)
            return await self._send(request, key, 200, body)
        if rule is not None and rule.kind == "oversized" and rule.variant == "chunked":
            return await self._stream(request, key, reply)
        if rule is not None and rule.kind == "gzip":
            coded = localfaults.gzipped(json.dumps(reply).encode(), rule.variant, rule.amount)
            return await self._send(request, key, 200, coded, {"Content-Encoding": "gzip"})
        return await self._send(request, key, 200, reply)

    async def _send_fault_error(
        self, request: web.Request, dialect: _Dialect, key: str, rule: FaultRule
    ) -> web.StreamResponse:
        status, message = _ERROR_FAULTS[rule.kind]
        headers = (
            {}
            if rule.retry_after is None
            else localfaults.retry_headers(rule.retry_after, rule.variant)
        )
        return await self._send(request, key, status, dialect.error(rule.kind, message), headers)

    async def _send(
        self,
        request: web.Request,
        key: str | None,
        status: int,
        body: Any,
        headers: Mapping[str, str] | None = None,
    ) -> web.StreamResponse:
        if isinstance(body, bytes):
            response = web.Response(
                body=body, status=status, headers=headers, content_type="application/json"
            )
        else:
            response = web.json_response(body, status=status, headers=headers)
        await response.prepare(request)
        # Counted before the write: a client on another thread may read the reply (and then the
        # stats) while this thread is still inside the socket send.
        if request.transport is not None and not request.transport.is_closing():
            self._state.replied(key, status)
        with contextlib.suppress(ConnectionError):  # a client that stopped reading a huge reply
            await response.write_eof()
        return response

    async def _stream(
        self, request: web.Request, key: str, body: dict[str, Any]
    ) -> web.StreamResponse:
        """A reply sent in chunks, without a Content-Length."""
        response = web.StreamResponse(status=200)
        response.content_type = "application/json"
        response.enable_chunked_encoding()
        await response.prepare(request)
        self._state.replied(key, 200)
        data = json.dumps(body).encode()
        with contextlib.suppress(ConnectionError):
            for start in range(0, len(data), STREAM_CHUNK):
                await response.write(data[start : start + STREAM_CHUNK])
            await response.write_eof()
        return response

    async def _embeddings(self, request: web.Request) -> web.Response:
        """OpenAI's embeddings API with a deterministic stand-in embedder (hashed words): it lets
        a client that embeds (a memory library) run offline; its vectors mean nothing more."""
        self._state.received(request.path)
        try:
            body = await _json_body(request)
            texts, dims = _embedding_request(body)
        except _BadRequest as exc:
            self._state.replied(None, 400)
            self._state.finished()
            return web.json_response(_openai_error("invalid_request", str(exc)), status=400)
        except BaseException:
            self._state.finished()
            raise
        tokens = sum(estimate_tokens(t) for t in texts)
        self._state.replied(None, 200)
        self._state.finished()
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": hashed_embedding(t, dims)}
                    for i, t in enumerate(texts)
                ],
                "model": body.get("model", "local"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "list", "data": [{"id": "local-model", "object": "model"}]}
        )

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(self._state.snapshot())

    async def _reset(self, request: web.Request) -> web.Response:
        self._state.reset()
        return web.json_response({"reset": True})

    async def _faults(self, request: web.Request) -> web.Response:
        try:
            plan = parse_faults(await request.text())
        except (ValueError, TypeError) as exc:
            return web.json_response({"error": {"message": str(exc)}}, status=400)
        self._state.set_faults(plan)
        return web.json_response({"faults": len(plan)})


def _embedding_request(body: Mapping[str, Any]) -> tuple[list[str], int]:
    """The texts and dimensions an embeddings request asks for, refused before any work when
    their reply would be larger than one request may ask (MAX_EMBEDDING_*)."""
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _BadRequest("`input` must be a string or a list of strings")
    dims = body.get("dimensions", EMBEDDING_DIMS)
    if not isinstance(dims, int) or isinstance(dims, bool) or not 1 <= dims <= MAX_DIMENSIONS:
        raise _BadRequest(f"`dimensions` must be an integer from 1 to {MAX_DIMENSIONS}")
    if len(texts) > MAX_EMBEDDING_INPUTS:
        raise _BadRequest(
            f"`input` holds {len(texts):,} texts; at most {MAX_EMBEDDING_INPUTS:,} a request"
        )
    if len(texts) * dims > MAX_EMBEDDING_VALUES:
        raise _BadRequest(
            f"{len(texts):,} texts of {dims:,} dimensions make {len(texts) * dims:,} values; "
            f"at most {MAX_EMBEDDING_VALUES:,} a request"
        )
    characters = sum(len(t) for t in texts)
    if characters > MAX_EMBEDDING_CHARACTERS:
        raise _BadRequest(
            f"`input` holds {characters:,} characters; at most {MAX_EMBEDDING_CHARACTERS:,} a "
            "request"
        )
    return texts, dims


async def _json_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object, parsed within bounds (`parse_storable`: no nesting past 64
    levels, no number of thousands of digits, no NaN, no lone surrogate), so that no body can
    cost the server more than its size or reach a handler it would crash."""
    try:
        body = parse_storable((await request.read()).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _BadRequest(f"the request body is not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _BadRequest(f"the request body is not JSON: {exc}") from None
    except UnstorableError as exc:
        raise _BadRequest(f"the request body holds {exc}") from None
    if not isinstance(body, dict):
        raise _BadRequest("the request body must be a JSON object")
    return body


def _drop(request: web.Request) -> web.Response:
    if request.transport is not None:
        request.transport.close()
    # aiohttp writes nothing to a closed transport, so this response never reaches the client.
    return web.Response()


async def _start(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve `app` on host:port (0 picks a free port); returns the runner and the bound port."""
    if host != LOOPBACK:
        raise ValueError(f"the local server binds only {LOOPBACK}, not {host!r}")
    runner = web.AppRunner(
        app, access_log=None, handler_cancellation=True, shutdown_timeout=SHUTDOWN_TIMEOUT
    )
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port, backlog=1024).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, runner.addresses[0][1]


# ---------------------------------------------------------------------------------------------
# Running it in a background thread, or in the foreground from the command line.


class LocalServer:
    """The server on a background thread with its own event loop, for the span of a `with`."""

    def __init__(
        self,
        answer: Answer,
        *,
        latency: float = 0.0,
        faults: Sequence[FaultRule] = (),
        host: str = LOOPBACK,
        port: int = 0,
        unsupported: Sequence[str] = (),
        mode: str = "openai",
        context_length: int = 0,
    ) -> None:
        """`unsupported`: request parameters answered with HTTP 400 naming the parameter;
        `mode`: how the server takes a reply schema (`MODES`); `context_length`: the window, in
        the server's estimated tokens, past which a chat completion is refused (0: none)."""
        if host != LOOPBACK:
            raise ValueError(f"the local server binds only {LOOPBACK}, not {host!r}")
        self._state = _State(faults)
        self._app = _App(answer, latency, self._state, unsupported, mode, context_length)
        self._host = host
        self._requested_port = port
        self._port: int | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LocalServer:
        if self._thread is not None:
            raise RuntimeError("the local server is already running")
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="memshift-localserver", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise self._startup_error
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._thread is None:
            return
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()
        self._thread = None
        self._port = None

    @property
    def url(self) -> str:
        if self._port is None:
            raise RuntimeError("the local server is not running")
        return f"http://{self._host}:{self._port}"

    def set_faults(self, faults: Sequence[FaultRule]) -> None:
        """Replace the fault plan; every rule starts with its full attempt budget."""
        self._state.set_faults(faults)

    def stats(self) -> dict[str, Any]:
        """Counters since the start or the last reset, over the two API paths only:
        `requests` received, `completed` replies handed to the transport, `most_in_flight`
        requests handled at once at the peak, `paths` {path: n},
        `keys` {request key: n}, `ok` {request key: HTTP 200 replies}, `faults` {kind: n applied},
        `extra_fields` {field: n} and `last_extra` {field: last value}, and the `fault_plan`."""
        return self._state.snapshot()

    def reset(self) -> None:
        """Clear the counters; the fault plan and its spent budgets stay."""
        self._state.reset()

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            runner, self._port = await _start(self._app.build(), self._host, self._requested_port)
        except BaseException as exc:
            self._startup_error = exc
            return
        finally:
            self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await runner.cleanup()


async def serve_forever(
    answer: Answer,
    port: int,
    latency: float,
    faults: Sequence[FaultRule],
    unsupported: Sequence[str] = (),
    mode: str = "openai",
    context_length: int = 0,
) -> None:
    """Serve in the foreground until SIGTERM or SIGINT; announces the URL on stdout when ready."""
    app = _App(answer, latency, _State(faults), unsupported, mode, context_length).build()
    runner, bound = await _start(app, LOOPBACK, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(f"serving on http://{LOOPBACK}:{bound}", flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


@dataclass(frozen=True)
class _Arguments:
    port: int
    latency: float
    faults: tuple[FaultRule, ...]
    unsupported: tuple[str, ...]
    mode: str
    context_length: int


def _arguments(argv: Sequence[str] | None) -> _Arguments:
    parser = argparse.ArgumentParser(
        prog="python -m memshift_tools.localserver",
        description="Serve canned OpenAI- and Anthropic-style replies on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: a free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--faults", default="[]", help="fault plan: a JSON list of fault rules")
    parser.add_argument(
        "--unsupported", default="", help="comma-separated request parameters to refuse (400)"
    )
    parser.add_argument(
        "--mode", choices=MODES, default="openai", help="how the server takes a reply schema"
    )
    parser.add_argument(
        "--context-length",
        type=int,
        default=0,
        help="refuse a chat completion whose prompt and token limit exceed this (0: never)",
    )
    args = parser.parse_args(argv)
    try:
        faults = parse_faults(args.faults)
    except (ValueError, TypeError) as exc:
        parser.error(f"--faults: {exc}")
    unsupported = tuple(name for name in args.unsupported.split(",") if name)
    return _Arguments(
        args.port, args.latency, faults, unsupported, args.mode, max(0, args.context_length)
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    asyncio.run(
        serve_forever(
            canned_answer,
            args.port,
            args.latency,
            args.faults,
            args.unsupported,
            args.mode,
            args.context_length,
        )
    )


if __name__ == "__main__":
    main()
