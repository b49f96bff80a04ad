"""Ollama's own chat API (`POST /api/chat`), without its OpenAI-compatible layer.

The reply's JSON schema goes in `format` (Ollama constrains decoding to it), or, in the `text`
form, is asked for at the end of the prompt. Decoding parameters go in `options`, where Ollama
reads them; memshift's `max_tokens` is sent as Ollama's `num_predict`. Replies never stream.
"""

from __future__ import annotations

from typing import Any

from memshift.models import envelope
from memshift.models.backends import Completion, Messages
from memshift.models.json_http import JsonOverHttp
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


class OllamaBackend(JsonOverHttp):
    name = "ollama"
    path = CHAT_PATH
    keyless = ""  # Ollama itself takes no key; a proxy in front of it may want one
    own_parameters = frozenset({"format", "options"})

    def headers_for(self, key: str) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema)

    def read(self, reply: dict[str, Any]) -> Completion:
        return completion(reply)


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in an /api/chat reply, whatever shape the reply has. `done_reason` is
    "stop" or "length" (cut at `num_predict`, which the client counts as truncated)."""
    message = envelope.expect(reply.get("message"), dict, "message")
    return Completion(
        content=envelope.optional_text(message.get("content"), "message.content"),
        finish_reason=envelope.finish_reason(reply.get("done_reason"), "done_reason"),
        usage=envelope.counted(reply, "prompt_eval_count", "eval_count"),
    )
