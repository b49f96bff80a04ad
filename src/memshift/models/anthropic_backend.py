"""The Anthropic messages backend: structured output under the role's JSON schema, or a forced
tool call for models or proxies that do not take `output_config`.

Prompt caching: the system text (a role's fixed instructions) and the shared part of the last
user message (its records or evidence, `prompts.shared_part`) each end in a cache breakpoint
(`cache_control: {"type": "ephemeral"}`, five minutes), so a request that begins as an earlier
one did reads that prefix from Anthropic's cache. A prefix shorter than the model's minimum
(1,024 tokens for most models) is not cached, and no error is raised for it. The reply's
`input_tokens` counts only what follows the last breakpoint, so the prompt's tokens are the sum
with `cache_creation_input_tokens` and `cache_read_input_tokens`.
"""

from __future__ import annotations

import json
from typing import Any

from memshift.models import envelope, prompts
from memshift.models.backends import Completion, Messages
from memshift.models.json_http import JsonOverHttp
from memshift.models.openai_backend import merged
from memshift.models.profiles import Profile
from memshift.models.replies import Usage
from memshift.models.retry import MalformedReply
from memshift.models.structured import asking_in_text

TOOL = "reply"
API_VERSION = "2023-06-01"
CACHED = {"type": "ephemeral"}
PROMPT_PARTS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _cached_blocks(content: str) -> list[dict[str, Any]]:
    """A user message's text as content blocks, its shared part ending in a cache breakpoint."""
    shared, own = prompts.shared_part(content)
    if not shared:
        return [{"type": "text", "text": content}]
    return [
        {"type": "text", "text": shared, "cache_control": CACHED},
        {"type": "text", "text": own},
    ]


def with_cache_breakpoints(messages: Messages) -> list[dict[str, Any]]:
    """`messages` with the last user message's shared part marked for the prompt cache."""
    last = max((n for n, m in enumerate(messages) if m["role"] == "user"), default=-1)
    return [
        {**m, "content": _cached_blocks(m["content"])} if n == last else m
        for n, m in enumerate(messages)
    ]


def request_body(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any], structured: str
) -> dict[str, Any]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    body: dict[str, Any] = {
        "model": profile.model,
        "system": [{"type": "text", "text": system, "cache_control": CACHED}] if system else "",
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
    # after `asking_in_text`, whose request for JSON ends the last message, beyond the breakpoint
    body["messages"] = with_cache_breakpoints(body["messages"])
    return merged(body, profile.extra_body)


class AnthropicBackend(JsonOverHttp):
    name = "anthropic"
    path = "/v1/messages"

    def headers_for(self, key: str) -> dict[str, str]:
        return {
            "x-api-key": key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }

    def body(self, role: str, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        return request_body(self.profile, role, messages, schema, self.profile.structured_for(role))

    def read(self, reply: dict[str, Any]) -> Completion:
        return completion(reply)


def completion(reply: dict[str, Any]) -> Completion:
    """The completion in a messages reply, whatever shape the reply has: the forced tool's input
    as JSON, or else the text blocks joined."""
    stop = envelope.finish_reason(reply.get("stop_reason"), "stop_reason")
    return Completion(
        content=_content(_blocks(reply)),
        finish_reason=stop,
        usage=_usage(reply),
        refused=stop == "refusal",
    )


def _usage(reply: dict[str, Any]) -> Usage:
    """The prompt's tokens, whether computed, written to the cache or read from it."""
    raw = reply.get("usage")
    if raw is None:
        return Usage()
    counts = envelope.expect(raw, dict, "usage")
    parts = [envelope.counted(counts, name, "output_tokens") for name in PROMPT_PARTS]
    return Usage(sum(p.tokens_in for p in parts), parts[0].tokens_out)


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
