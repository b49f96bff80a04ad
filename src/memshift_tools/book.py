"""A request book for the local API server: it lets the server answer real HTTP requests
through the rule-based backend.

The server sees only messages; the book maps the canonical JSON of a request's messages back to
the typed request it was built from, so the rule-based backend can answer it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memshift.models import prompts
from memshift.models.cache import canonical
from memshift.models.profiles import Profile
from memshift.models.requests import ModelRequest
from memshift.simulator.backend import RulesBackend


def messages_key(messages: list[dict[str, str]]) -> str:
    return canonical([{"role": m["role"], "content": m["content"]} for m in messages])


class RequestBook:
    def __init__(
        self, requests: Iterable[ModelRequest] = (), profile: Profile | None = None
    ) -> None:
        self.rules = RulesBackend(profile or Profile("rules", "rules"))
        self._requests: dict[str, ModelRequest] = {}
        self.add(requests)

    def add(self, requests: Iterable[ModelRequest]) -> None:
        for request in requests:
            self._requests[messages_key(prompts.build(request))] = request

    def answer(
        self, api: str, messages: list[dict[str, str]], schema: dict[str, Any] | None
    ) -> str:
        """The server callback: raises KeyError for a request the book does not hold."""
        return json.dumps(self.rules.answer(self._requests[messages_key(messages)]))
