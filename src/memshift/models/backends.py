"""The backends behind one interface.

The HTTP backends turn the request's messages
into one API's request body, send it and return the raw completion; the client around them does
caching, retries, validation and logging, the same for every backend.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memshift.errors import ConfigError
from memshift.intake.storable import UnstorableError, parse_json
from memshift.models.field_checks import check_secret
from memshift.models.profiles import Profile
from memshift.models.redaction import redact
from memshift.models.replies import Usage
from memshift.models.requests import ModelRequest
from memshift.models.retry import (
    RETRYABLE_STATUS,
    CallFailure,
    ContextOverflow,
    MalformedReply,
    TransportFailure,
    server_wait,
)

if TYPE_CHECKING:
    from memshift.models.http import HttpReply

Messages = list[dict[str, str]]
ERROR_QUOTE_BYTES = 4096


@dataclass(frozen=True)
class Completion:
    content: str | None
    finish_reason: str
    usage: Usage
    refused: bool = False


class DirectBackend(Protocol):
    """A backend that answers a typed request in-process (the offline simulator)."""

    name: str

    def answer(self, request: ModelRequest) -> dict[str, Any]: ...


class HttpBackend(Protocol):
    name: str
    profile: Profile
    secrets: tuple[str, ...]  # what to redact from anything stored, logged or raised

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]: ...

    async def complete(self, data: bytes) -> Completion: ...

    async def aclose(self) -> None: ...


def api_key(profile: Profile, default: str) -> str:
    if not profile.api_key_env:
        return default
    key = os.environ.get(profile.api_key_env)
    if not key:
        raise ConfigError(
            f"model profile {profile.name!r} reads its API key from the environment "
            f"variable {profile.api_key_env}, which is not set"
        )
    check_secret(f"model profile {profile.name!r}", f"the API key in {profile.api_key_env}", key)
    return key


def key_secrets(profile: Profile, key: str) -> tuple[str, ...]:
    """The values to redact from what a backend stores or reports: the key, if it is one."""
    return (key,) if profile.api_key_env else ()


def sent_parameters(profile: Profile) -> frozenset[str]:
    """Top-level request fields the profile decides, any of which a server may refuse."""
    roles = (profile.decoding_for(role) for role in (*profile.roles, "writer"))
    thinking = ("thinking",) if profile.thinking else ()
    return frozenset().union(*roles, profile.extra_body, thinking)


# A validation error's location in the request, as FastAPI servers write it (llama.cpp's
# Python server, among others): ('body', 'response_format', 'type') or ["body", "tools"].
_BODY_LOCATION = re.compile(r"""[(\[]\s*['"]body['"]\s*,\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")
# What servers say when a prompt does not fit the context window (vLLM, llama.cpp, OpenAI).
CONTEXT_EXCEEDED = re.compile(
    r"maximum context length|exceeds? (?:the )?context (?:window|length|size)|context_length_"
    r"exceeded|requested tokens \(\d+\) exceed",
    re.IGNORECASE,
)
REFUSING_STATUS = frozenset({400, 422, 500})


def refused_parameter(body: bytes, sent: frozenset[str]) -> str | None:
    """The request parameter an error reply names: OpenAI's `error.param`, the body field of a
    FastAPI validation error (llama.cpp's server answers one with HTTP 500), or else a parameter
    of the request quoted in the error message (Anthropic names it only there)."""
    try:
        data = parse_json(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict):
        param = error.get("param")
        if isinstance(param, str) and param:
            return param
        message = error.get("message")
    elif isinstance(error, str):  # Ollama's shape: {"error": "..."}
        message = error
    else:  # FastAPI's: {"detail": [{"loc": ["body", ...], "msg": ...}]}
        message = json.dumps(data.get("detail", ""))
    if not isinstance(message, str):
        return None
    located = _BODY_LOCATION.search(message)
    if located:
        return located.group(1)
    quoted = set(re.findall(r"[`'\"]([A-Za-z_][A-Za-z0-9_.]*)[`'\"]", message))
    return next((name for name in sorted(sent) if name in quoted), None)


REFUSED = re.compile(r"\(refused parameter '([^']*)'\)")


def refused_parameter_in(detail: str) -> str | None:
    """The parameter a failure detail of `status_failure` names as refused, if any."""
    found = REFUSED.search(detail)
    return found.group(1) if found else None


def status_failure(
    reply: HttpReply, secrets: tuple[str, ...], sent: frozenset[str] = frozenset()
) -> CallFailure:
    # Redacted before it is cut, so that no cut can leave part of a key behind.
    quoted = redact(reply.body[:ERROR_QUOTE_BYTES].decode("utf-8", "replace"), secrets)
    if reply.status in REFUSING_STATUS and CONTEXT_EXCEEDED.search(quoted):
        return ContextOverflow(f"HTTP {reply.status}: {quoted[:300]}", status=reply.status)
    param = refused_parameter(reply.body, sent) if reply.status in REFUSING_STATUS else None
    refused = "" if param is None else f" (refused parameter '{_plain(param, secrets)}')"
    # a server that names a parameter it refuses refuses it again: no retry, even for a 500
    return TransportFailure(
        f"HTTP {reply.status}{refused}: {quoted[:300]}",
        status=reply.status,
        retry_after=server_wait(reply.retry_after, reply.retry_after_ms),
        retryable=reply.status in RETRYABLE_STATUS and param is None,
    )


def _plain(param: str, secrets: tuple[str, ...]) -> str:
    return redact(param, secrets).replace("'", "")[:80]


def response_json(
    reply: HttpReply, secrets: tuple[str, ...], sent: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The JSON body of a successful reply; any other status is a transport failure, a body
    that is no JSON object a malformed reply."""
    if reply.status != 200:
        raise status_failure(reply, secrets, sent)
    try:
        data = parse_json(reply.body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise MalformedReply(f"the API answered with a body that is not UTF-8: {exc}") from exc
    except UnstorableError as exc:
        raise MalformedReply(f"the API answered with a body that holds {exc}") from exc
    except ValueError as exc:
        detail = redact(str(exc), secrets)[:300]
        raise MalformedReply(f"the API answered with a body that is not JSON: {detail}") from exc
    if not isinstance(data, dict):
        raise MalformedReply("the API answered with a JSON body that is not an object")
    return data
