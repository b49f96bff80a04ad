"""The backends behind one interface.

`RulesBackend` answers a typed request directly. The HTTP backends turn the request's messages
into one API's request body, send it and return the raw completion; the client around them does
caching, retries, validation and logging, the same for every backend.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memshift.errors import ConfigError
from memshift.models.profiles import Profile
from memshift.models.replies import Usage
from memshift.models.requests import ModelRequest
from memshift.models.retry import RETRYABLE_STATUS, TransportFailure, parse_retry_after
from memshift.models.rules import auditor, programs, reader, writer
from memshift.models.rules.errors import ErrorModel

if TYPE_CHECKING:
    from memshift.models.http import HttpReply

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class Completion:
    content: str | None
    finish_reason: str
    usage: Usage
    refused: bool = False


class RulesBackend:
    name = "rules"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        em = profile.error_model
        self.errors = (
            ErrorModel(em.get("rates", {}), em.get("seed", 0), em.get("overlooks", {}))
            if em
            else None
        )

    def answer(self, request: ModelRequest) -> dict[str, Any]:
        if request.role == "writer":
            return writer.write(request, self.errors)  # type: ignore[arg-type]
        if request.role == "reader":
            return reader.read(request)  # type: ignore[arg-type]
        if request.role == "program":
            return programs.write_program(request)  # type: ignore[arg-type]
        return auditor.propose(request)  # type: ignore[arg-type]


class HttpBackend(Protocol):
    name: str
    profile: Profile

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


def status_failure(reply: HttpReply) -> TransportFailure:
    return TransportFailure(
        f"HTTP {reply.status}: {reply.body[:300].decode('utf-8', 'replace')}",
        status=reply.status,
        retry_after=parse_retry_after(reply.retry_after),
        retryable=reply.status in RETRYABLE_STATUS,
    )


def response_json(reply: HttpReply) -> dict[str, Any]:
    """The JSON body of a successful reply; any other status is a transport failure."""
    if reply.status != 200:
        raise status_failure(reply)
    raw = reply.body
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise TransportFailure(f"the API answered with a body that is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise TransportFailure("the API answered with a JSON body that is not an object")
    return data
