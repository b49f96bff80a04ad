"""How a request carries its reply's JSON schema, for the servers that take it in different forms
(docs/models.md, "Structured output"), and the JSON read back from a reply given as free text.

`json_schema` is the OpenAI API's and vLLM's form; `json_object` with a `schema` inside is
llama.cpp's server's; `tool` forces a call of one function whose parameters are the schema;
`text` sends no schema parameter at all: the prompt asks for one JSON object that follows the
schema, and the reply's JSON is taken from its text (a server that ignores every schema form
still gets a fair question, and what does not parse is counted as `invalid_json`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from memshift.models.backends import Messages

TOOL_NAME = "reply"
SCHEMA_LEAD = "It must follow this JSON schema: "
TOOL_DESCRIPTION = "Give the reply."
_FENCED = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def schema_sentence(schema: dict[str, Any]) -> str:
    compact = json.dumps(schema, separators=(",", ":"), sort_keys=True)
    return f"\n\nAnswer with one JSON object and nothing else. {SCHEMA_LEAD}{compact}"


def asking_in_text(messages: Messages, schema: dict[str, Any]) -> Messages:
    """The messages with the schema stated at the end of the last user message."""
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [
        {**m, "content": m["content"] + schema_sentence(schema)} if i == last else m
        for i, m in enumerate(messages)
    ]


def openai_fields(mode: str, role: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions fields that carry `schema` in `mode` (none for `text`)."""
    if mode == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": f"memshift_{role}", "schema": schema, "strict": True},
            }
        }
    if mode == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if mode == "tool":
        function = {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema}
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": TOOL_NAME}},
        }
    if mode == "text":
        return {}
    raise ValueError(f"unknown structured-output form {mode!r}")


def extract_json(text: str) -> str:
    """The JSON object in a free-text reply: the whole text if it parses, else the first fenced
    block that parses, else the first balanced {...} that parses; the text unchanged if none
    does (so the check reports it as invalid JSON). Never raises."""
    stripped = text.strip()
    if _parses(stripped):
        return stripped
    for block in _FENCED.findall(text):
        if _parses(block.strip()):
            return block.strip()
    for start in (i for i, c in enumerate(text) if c == "{"):
        found = _balanced(text, start)
        if found is not None and _parses(found):
            return found
    return text


def _parses(text: str) -> bool:
    if not text.startswith("{"):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _balanced(text: str, start: int) -> str | None:
    """The object that opens at `start`, closed at its matching brace (strings respected)."""
    depth, quoted, escaped = 0, False, False
    for i in range(start, len(text)):
        c = text[i]
        if quoted:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None
