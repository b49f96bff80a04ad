"""Scripted stand-ins for the LLM behind a real memory library, for testing its adapter offline.

Each answers the library's own prompt in the reply format the library parses, with a fixed rule
instead of a model: it tests the plumbing (the adapter drives the library, the library stores
and retrieves), never the library's quality, and no number measured with one describes the
library (docs/native.md)."""

from __future__ import annotations

import json
import re
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


LIGHTRAG_EXTRACTION = "responsible for extracting entities"
LIGHTRAG_KEYWORDS = "expert keyword extractor"
LIGHTRAG_SUMMARY = "synthesize a list of descriptions"
LIGHTRAG_ENTITIES = 5
LIGHTRAG_DESCRIPTION_CHARACTERS = 300
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")


def _between(text: str, start: str, end: str) -> str:
    _, found, rest = text.partition(start)
    if not found:
        raise KeyError(f"not a LightRAG prompt of this kind (no {start!r})")
    return rest.partition(end)[0]


def _extraction(text: str) -> str:
    names = list(dict.fromkeys(_NAME.findall(text)))[:LIGHTRAG_ENTITIES]
    description = " ".join(text.split())[:LIGHTRAG_DESCRIPTION_CHARACTERS]
    rows = [f"entity<|#|>{name}<|#|>Other<|#|>{description}" for name in names]
    rows += [
        f"relation<|#|>{names[0]}<|#|>{name}<|#|>mentioned together<|#|>{description}"
        for name in names[1:]
    ]
    return "\n".join([*rows, "<|COMPLETE|>"])


def lightrag(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """LightRAG's three prompts (lightrag-hku 1.5.7): entity extraction (the capitalised names of
    the input text, up to five, as `entity` rows described by the text, and `relation` rows from
    the first to the others, then `<|COMPLETE|>`); query keywords (the query's words of four
    letters or more as low-level keywords, as JSON); a description summary (the descriptions
    joined)."""
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    prompt = messages[-1]["content"]
    if LIGHTRAG_EXTRACTION in system:
        return _extraction(_between(prompt, "---Input Text---\n```\n", "\n```"))
    if LIGHTRAG_KEYWORDS in prompt:
        query = _between(prompt, "User Query: ", "\n")
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        return json.dumps({"high_level_keywords": [], "low_level_keywords": words})
    if LIGHTRAG_SUMMARY in prompt:
        listed = _between(prompt, "Description List:\n\n```\n", "\n```")
        return " ".join(listed.split())[: 4 * LIGHTRAG_DESCRIPTION_CHARACTERS]
    raise KeyError("not one of LightRAG's prompts (extraction, keywords, summary)")


def any_library(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """Mem0's extraction or LightRAG's prompts, whichever the request is (one server for a
    study with both)."""
    if "## New Messages" in messages[-1]["content"]:
        return mem0_extraction(api, messages, schema)
    return lightrag(api, messages, schema)


# What a native system reads of the local server when the stand-ins answer: a model profile of
# the models file, and the server's embedder (hashed words, any dimension).
STAND_IN_EMBEDDER = {"embedder_model": "hashed-words", "embedding_dims": 64}


def stand_in_profile(base_url: str) -> dict[str, Any]:
    """A models-file profile of a local server whose replies are the stand-ins (`base_url`
    ends in /v1)."""
    return {
        "backend": "openai",
        "description": "The scripted stand-ins of the memory libraries' prompts (tests only).",
        "model": "stand-in",
        "base_url": base_url,
        "decoding": {"temperature": 0.0, "max_tokens": 2000},
    }
