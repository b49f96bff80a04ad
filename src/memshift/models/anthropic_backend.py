"""The Anthropic messages backend: structured output under the role's JSON schema, or a forced
tool call for models or proxies that do not take `output_config`."""

from __future__ import annotations

import json
from typing import Any

from memshift.models.backends import Completion, Messages, api_key, response_json
from memshift.models.http import HttpTransport
from memshift.models.profiles import Profile
from memshift.models.replies import Usage

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
    else:
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    body.update(profile.extra_body)
    return body


class AnthropicBackend:
    name = "anthropic"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.url = profile.base_url.rstrip("/") + "/v1/messages"
        self.headers = {
            "x-api-key": api_key(profile, "not-needed"),
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }
        self.transport = HttpTransport(profile.timeout_s)

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema, self.profile.structured)

    async def complete(self, data: bytes) -> Completion:
        reply = response_json(await self.transport.post(self.url, data, self.headers))
        blocks = reply.get("content") or []
        tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
        if tool is not None:
            content: str | None = json.dumps(tool.get("input"))
        else:
            content = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        usage = reply.get("usage") or {}
        stop = reply.get("stop_reason") or ""
        return Completion(
            content=content,
            finish_reason=stop,
            usage=Usage(usage.get("input_tokens", 0), usage.get("output_tokens", 0)),
            refused=stop == "refusal",
        )

    async def aclose(self) -> None:
        await self.transport.aclose()
