"""Ollama's own chat API (`POST /api/chat`), without its OpenAI-compatible layer.

The reply's JSON schema goes in `format` (Ollama constrains decoding to it), or, in the `text`
form, is asked for at the end of the prompt. Decoding parameters go in `options`, where Ollama
reads them; memshift's `max_tokens` is sent as Ollama's `num_predict`. Replies never stream.
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
from memshift.models.openai_backend import merged
from memshift.models.profiles import Profile, ollama_options
from memshift.models.structured import asking_in_text

CHAT_PATH = "/api/chat"


def request_body(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any]
) -> dict[str, Any]:
    mode = profile.structured_for(role)
    body: dict[str, Any] = {"model": profile.model, "messages": messages, "stream": False}
    if mode == "format":
        body["format"] = schema
    elif mode == "text":
        body["messages"] = asking_in_text(messages, schema)
    else:
        raise ValueError(f"the ollama backend sends no structured-output form {mode!r}")
    body["options"] = ollama_options(profile.decoding_for(role))
    return merged(body, profile.extra_body)


class OllamaBackend:
    name = "ollama"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.url = profile.base_url.rstrip("/") + CHAT_PATH
        # Ollama itself takes no key; a proxy in front of it may want one.
        key = api_key(profile, "")
        self.secrets = key_secrets(profile, key)
        self.sent = sent_parameters(profile) | {"format", "options"}
        self.headers = {"Content-Type": "application/json"}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self.transport = HttpTransport(profile.timeout_s, profile.max_reply_bytes)

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema)

    async def complete(self, data: bytes) -> Completion:
        reply = await self.transport.post(self.url, data, self.headers)
        return completion(response_json(reply, self.secrets, self.sent))

    async def aclose(self) -> None:
        await self.transport.aclose()


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in an /api/chat reply, whatever shape the reply has. `done_reason` is
    "stop" or "length" (cut at `num_predict`, which the client counts as truncated)."""
    message = envelope.expect(reply.get("message"), dict, "message")
    return Completion(
        content=envelope.optional_text(message.get("content"), "message.content"),
        finish_reason=envelope.finish_reason(reply.get("done_reason"), "done_reason"),
        usage=envelope.counted(reply, "prompt_eval_count", "eval_count"),
    )
