"""The base of the backends that post JSON over HTTP and read JSON back (OpenAI, Ollama,
Anthropic), in a module of its own: the offline backend's jobs import `models.backends` and
should not pay for the HTTP client's import."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from memshift.models.backends import (
    Completion,
    Messages,
    api_key,
    key_secrets,
    response_json,
    sent_parameters,
)
from memshift.models.http import HttpTransport
from memshift.models.profiles import Profile


class JsonOverHttp(ABC):
    """What the HTTP backends share: the profile's key, kept out of anything stored, logged or
    raised; one transport; a reply read as JSON, then turned into a completion by the API's own
    reading (`read`). A backend names its API's path and headers and writes its request body."""

    name: ClassVar[str]
    path: ClassVar[str]  # after the profile's base URL
    keyless: ClassVar[str] = "not-needed"  # the key when the profile names none
    # request fields the backend itself sets, any of which a server may refuse
    own_parameters: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.url = profile.base_url.rstrip("/") + self.path
        key = api_key(profile, self.keyless)
        self.secrets = key_secrets(profile, key)
        self.sent = sent_parameters(profile) | self.own_parameters
        self.headers = self.headers_for(key)
        self.transport = HttpTransport(profile.timeout_s, profile.max_reply_bytes)

    @abstractmethod
    def headers_for(self, key: str) -> dict[str, str]: ...

    @abstractmethod
    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    def read(self, reply: dict[str, Any]) -> Completion: ...

    async def complete(self, data: bytes) -> Completion:
        reply = await self.transport.post(self.url, data, self.headers)
        return self.read(response_json(reply, self.secrets, self.sent))

    async def aclose(self) -> None:
        await self.transport.aclose()
