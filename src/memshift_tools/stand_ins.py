"""Scripted stand-ins for the LLM behind a real memory library, for testing its adapter offline.

Each answers the library's own prompt in the reply format the library parses, with a fixed rule
instead of a model: it tests the plumbing (the adapter drives the library, the library stores
and retrieves), never the library's quality, and no number measured with one describes the
library (docs/native.md)."""

from __future__ import annotations

import json
from typing import Any

MEM0_FACT_CHARACTERS = 400


def mem0_extraction(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """Mem0's fact extraction (mem0ai 2.2.1, `Memory.add`): one memory per new message line, its
    text the line itself (cut to 400 characters), as `{"memory": [{"id", "text",
    "attributed_to"}]}`."""
    prompt = messages[-1]["content"]
    _, found, rest = prompt.partition("## New Messages")
    if not found:
        raise KeyError("not a Mem0 extraction prompt (no '## New Messages' section)")
    section = rest.split("\n## ", 1)[0].split("\n# ", 1)[0]
    lines = [line.partition(": ")[2] for line in section.splitlines() if line.startswith("user: ")]
    facts = [
        {"id": str(n), "text": text[:MEM0_FACT_CHARACTERS], "attributed_to": "user"}
        for n, text in enumerate(t for t in lines if t.strip())
    ]
    return json.dumps({"memory": facts})
