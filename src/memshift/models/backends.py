"""The backends behind one interface.

The HTTP backends turn the request's messages
into one API's request body, send it and return the raw completion; the client around them does
caching, retries, validation and logging, the same for every backend.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memshift.errors import ConfigError
from memshift.models.profiles import Profile
from memshift.models.redaction import redact
from memshift.models.replies import Usage
from memshift.models.requests import ModelRequest
from memshift.models.retry import RETRYABLE_STATUS, MalformedReply, TransportFailure, server_wait
from memshift.storable import UnstorableError, parse_json

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
    return key


def key_secrets(profile: Profile, key: str) -> tuple[str, ...]:
    """The values to redact from what a backend stores or reports: the key, if it is one."""
    return (key,) if profile.api_key_env else ()


def sent_parameters(profile: Profile) -> frozenset[str]:
    """Top-level request fields the profile decides, any of which a server may refuse."""
    roles = (profile.decoding_for(role) for role in (*profile.roles, "writer"))
    thinking = ("thinking",) if profile.thinking else ()
    return frozenset().union(*roles, profile.extra_body, thinking)


def refused_parameter(body: bytes, sent: frozenset[str]) -> str | None:
    """The request parameter a 400 reply names: OpenAI's `error.param`, or else a parameter of
    the request quoted in the error message (Anthropic names it only there)."""
    try:
        error = parse_json(body.decode("utf-8")).get("error")
    except (ValueError, AttributeError):
        return None
    if not isinstance(error, dict):
        return None
    param = error.get("param")
    if isinstance(param, str) and param:
        return param
    message = error.get("message")
    if not isinstance(message, str):
        return None
    quoted = set(re.findall(r"[`'\"]([A-Za-z_][A-Za-z0-9_.]*)[`'\"]", message))
    return next((name for name in sorted(sent) if name in quoted), None)


REFUSED = re.compile(r"\(refused parameter '([^']*)'\)")


def refused_parameter_in(detail: str) -> str | None:
    """The parameter a failure detail of `status_failure` names as refused, if any."""
    found = REFUSED.search(detail)
    return found.group(1) if found else None


def status_failure(
    reply: HttpReply, secrets: tuple[str, ...], sent: frozenset[str] = frozenset()
) -> TransportFailure:
    # Redacted before it is cut, so that no cut can leave part of a key behind.
    quoted = redact(reply.body[:ERROR_QUOTE_BYTES].decode("utf-8", "replace"), secrets)
    param = refused_parameter(reply.body, sent) if reply.status == 400 else None
    refused = "" if param is None else f" (refused parameter '{_plain(param, secrets)}')"
    return TransportFailure(
        f"HTTP {reply.status}{refused}: {quoted[:300]}",
        status=reply.status,
        retry_after=server_wait(reply.retry_after, reply.retry_after_ms),
        retryable=reply.status in RETRYABLE_STATUS,
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
