"""The OpenAI chat-completions backend: the OpenAI API and every compatible server (vLLM first).

Every decoding parameter of the profile is sent explicitly, the reply's JSON schema goes in the
form the profile names for the role (`structured.py`: `json_schema`, llama.cpp's `json_object`,
a forced `tool` call, or asked for in the `text`), and server-specific fields (vLLM's
`chat_template_kwargs`, for instance) go in `extra_body`, merged into the request body without
replacing a field memshift sets.
"""

from __future__ import annotations

from typing import Any

from memshift.models import envelope, structured
from memshift.models.backends import Completion, Messages
from memshift.models.json_http import JsonOverHttp
from memshift.models.profiles import Profile


def request_body(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any]
) -> dict[str, Any]:
    mode = profile.structured_for(role)
    if mode == "text":
        messages = structured.asking_in_text(messages, schema)
    body = {
        "model": profile.model,
        "messages": messages,
        **profile.decoding_for(role),
        **structured.openai_fields(mode, role, schema),
    }
    return merged(body, profile.extra_body)


def merged(body: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` merged into `body`, objects key by key: a field memshift sets is never replaced
    (profiles.check_extra_body refuses an extra_body that would replace one)."""
    out = dict(body)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        elif key not in out:
            out[key] = value
    return out


class OpenAIBackend(JsonOverHttp):
    name = "openai"
    path = "/chat/completions"

    def headers_for(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema)

    def read(self, reply: dict[str, Any]) -> Completion:
        return completion(reply)


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in a chat-completions reply, whatever shape the reply has. A forced tool
    call's arguments are its content."""
    choice = envelope.expect(envelope.first_item(reply.get("choices"), "choices"), dict, "choice")
    message = envelope.expect(choice.get("message"), dict, "choice.message")
    refusal = envelope.optional_text(message.get("refusal"), "message.refusal")
    content = envelope.optional_text(message.get("content"), "message.content")
    calls = message.get("tool_calls")
    # vLLM sends "" beside a tool call where the OpenAI API sends null
    if not content and calls:
        call = envelope.expect(envelope.first_item(calls, "message.tool_calls"), dict, "tool call")
        function = envelope.expect(call.get("function"), dict, "tool_call.function")
        content = envelope.optional_text(function.get("arguments"), "function.arguments")
    return Completion(
        content=content,
        finish_reason=envelope.finish_reason(choice.get("finish_reason"), "choice.finish_reason"),
        usage=envelope.usage(reply, "prompt_tokens", "completion_tokens"),
        refused=bool(refusal),
    )
