"""How a request carries its reply's JSON schema, for the servers that take it in different forms
(docs/models.md, "Structured output").

`json_schema` is the OpenAI API's and vLLM's form; `json_object` with a `schema` inside is
llama.cpp's server's; `tool` forces a call of one function whose parameters are the schema;
`text` sends no schema parameter at all: the prompt asks for one JSON object that follows the
schema, and the reply's JSON is taken from its text (`extract.py`; a server that ignores every
schema form still gets a fair question, and what does not parse is counted as `invalid_json`).
"""

from __future__ import annotations

import json
from typing import Any

from memshift.models.backends import Messages

TOOL_NAME = "reply"
SCHEMA_LEAD = "It must follow this JSON schema: "
TOOL_DESCRIPTION = "Give the reply."


def schema_sentence(schema: dict[str, Any]) -> str:
    compact = json.dumps(schema, separators=(",", ":"))
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
