"""The `rules` backend: the offline simulator answers a typed request in-process, each role by
its own module (`registry.SIMULATED_ROLES`), loaded only when a job asks that role."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memshift.models.profiles import Profile
from memshift.models.requests import ModelRequest
from memshift.registry import SIMULATED_ROLES, load


class RulesBackend:
    name = "rules"
    # answers typed requests directly, with no HTTP request body, transport or retries
    direct = True

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.roles: dict[str, Callable[[Any], dict[str, Any]]] = {}

    def answer(self, request: ModelRequest) -> dict[str, Any]:
        if request.role not in self.roles:
            self.roles[request.role] = load(SIMULATED_ROLES[request.role])(self.profile)
        return self.roles[request.role](request)
