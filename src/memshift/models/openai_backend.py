"""The OpenAI chat-completions backend: the OpenAI API and every compatible server (vLLM first).

Every decoding parameter of the profile is sent explicitly, the reply is constrained by
`response_format` with the role's JSON schema, and server-specific fields (vLLM's
`chat_template_kwargs`, for instance) go in `extra_body`, merged into the request body.
"""

from __future__ import annotations

from typing import Any

from memshift.models import envelope
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
        key = api_key(profile, "not-needed")
        self.secrets = key_secrets(profile, key)
        self.sent = sent_parameters(profile)
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self.transport = HttpTransport(profile.timeout_s, profile.max_reply_bytes)

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema)

    async def complete(self, data: bytes) -> Completion:
        reply = await self.transport.post(self.url, data, self.headers)
        return completion(response_json(reply, self.secrets, self.sent))

    async def aclose(self) -> None:
        await self.transport.aclose()


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in a chat-completions reply, whatever shape the reply has."""
    choice = envelope.expect(envelope.first_item(reply.get("choices"), "choices"), dict, "choice")
    message = envelope.expect(choice.get("message"), dict, "choice.message")
    refusal = envelope.optional_text(message.get("refusal"), "message.refusal")
    return Completion(
        content=envelope.optional_text(message.get("content"), "message.content"),
        finish_reason=envelope.finish_reason(choice.get("finish_reason"), "choice.finish_reason"),
        usage=envelope.usage(reply, "prompt_tokens", "completion_tokens"),
        refused=bool(refusal),
    )
