"""The Anthropic messages backend: structured output under the role's JSON schema, or a forced
tool call for models or proxies that do not take `output_config`."""

from __future__ import annotations

import json
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
from memshift.models.profiles import Profile
from memshift.models.retry import MalformedReply
from memshift.models.structured import asking_in_text

TOOL = "reply"
API_VERSION = "2023-06-01"


def request_body(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any], structured: str
) -> dict[str, Any]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    body: dict[str, Any] = {
        "model": profile.model,
        "system": system,
        "messages": [m for m in messages if m["role"] != "system"],
        **profile.decoding_for(role),
    }
    if profile.thinking:
        body["thinking"] = profile.thinking
    if structured == "tool":
        body["tools"] = [{"name": TOOL, "description": "Give the reply.", "input_schema": schema}]
        body["tool_choice"] = {"type": "tool", "name": TOOL}
    elif structured == "text":
        body["messages"] = asking_in_text(body["messages"], schema)
    else:
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    return merged(body, profile.extra_body)


class AnthropicBackend:
    name = "anthropic"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.url = profile.base_url.rstrip("/") + "/v1/messages"
        key = api_key(profile, "not-needed")
        self.secrets = key_secrets(profile, key)
        self.sent = sent_parameters(profile)
        self.headers = {
            "x-api-key": key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }
        self.transport = HttpTransport(profile.timeout_s, profile.max_reply_bytes)

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema, self.profile.structured_for(role))

    async def complete(self, data: bytes) -> Completion:
        reply = await self.transport.post(self.url, data, self.headers)
        return completion(response_json(reply, self.secrets, self.sent))

    async def aclose(self) -> None:
        await self.transport.aclose()


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in a messages reply, whatever shape the reply has: the forced tool's input
    as JSON, or else the text blocks joined."""
    stop = envelope.finish_reason(reply.get("stop_reason"), "stop_reason")
    return Completion(
        content=_content(_blocks(reply)),
        finish_reason=stop,
        usage=envelope.usage(reply, "input_tokens", "output_tokens"),
        refused=stop == "refusal",
    )


def _blocks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    raw = reply.get("content")
    blocks = [] if raw is None else envelope.expect(raw, list, "content")
    return [envelope.expect(b, dict, f"content[{n}]") for n, b in enumerate(blocks)]


def _content(blocks: list[dict[str, Any]]) -> str:
    tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
    if tool is not None:
        tool_input = envelope.expect(tool.get("input"), dict, "tool_use.input")
        try:
            return json.dumps(tool_input)
        except (ValueError, RecursionError) as exc:
            raise MalformedReply(f"tool_use.input cannot be written as JSON: {exc}") from exc
    texts = (b.get("text") for b in blocks if b.get("type") == "text")
    return "".join(envelope.expect(t, str, "text block's text") for t in texts)
