"""The OpenAI chat-completions backend: the OpenAI API and every compatible server (vLLM first).

Every decoding parameter of the profile is sent explicitly, the reply is constrained by
`response_format` with the role's JSON schema, and server-specific fields (vLLM's
`chat_template_kwargs`, for instance) go in `extra_body`, merged into the request body.
"""

from __future__ import annotations

from typing import Any

from memshift.models.backends import Completion, Messages, api_key, response_json
from memshift.models.http import HttpTransport
from memshift.models.profiles import Profile
from memshift.models.replies import Usage
from memshift.models.retry import TransportFailure


def request_body(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any]
) -> dict[str, Any]:
    return {
        "model": profile.model,
        "messages": messages,
        **profile.decoding_for(role),
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": f"memshift_{role}", "schema": schema, "strict": True},
        },
        **profile.extra_body,
    }


class OpenAIBackend:
    name = "openai"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.url = profile.base_url.rstrip("/") + "/chat/completions"
        self.headers = {
            "Authorization": f"Bearer {api_key(profile, 'not-needed')}",
            "Content-Type": "application/json",
        }
        self.transport = HttpTransport(profile.timeout_s)

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema)

    async def complete(self, data: bytes) -> Completion:
        reply = response_json(await self.transport.post(self.url, data, self.headers))
        try:
            choice = reply["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise TransportFailure("the API answered without a choice") from exc
        usage = reply.get("usage") or {}
        return Completion(
            content=message.get("content"),
            finish_reason=choice.get("finish_reason") or "",
            usage=Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)),
            refused=bool(message.get("refusal")),
        )

    async def aclose(self) -> None:
        await self.transport.aclose()
