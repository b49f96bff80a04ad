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


MEMOS_EXTRACTION = "You are a memory extraction expert."
MEMOS_KEY_WORDS = 6


def memos_extraction(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """MemOS's extraction (MemoryOS 2.0.33, `GeneralTextMemory.extract`): one memory per line the
    user shared, its value the line itself (cut to 400 characters), its key the line's first
    words, as `{"memory list": [{"key", "memory_type", "value", "tags"}], "summary"}`."""
    prompt = messages[-1]["content"]
    if not prompt.startswith(MEMOS_EXTRACTION):
        raise KeyError("not a MemOS extraction prompt")
    _, found, rest = prompt.rpartition("\nConversation:\n")
    if not found:
        raise KeyError("not a MemOS extraction prompt (no conversation)")
    conversation = rest.rpartition("\n\nYour Output:")[0]
    lines = [line.removeprefix("user:") for line in conversation.split("\nuser:")]
    lines = [line.strip()[:MEM0_FACT_CHARACTERS] for line in lines if line.strip()]
    memories = [
        {"key": " ".join(line.split()[:MEMOS_KEY_WORDS]), "memory_type": "UserMemory",
         "value": line, "tags": []}
        for line in lines
    ]  # fmt: skip
    return json.dumps({"memory list": memories, "summary": " ".join(lines)[:400]})


COGNEE_GRAPH = "You are a top-tier algorithm designed for extracting information in structured"
COGNEE_SUMMARY = "Summarize the chunk for retrieval."
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)")


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    found = _SENTENCE.match(flat)
    return (found.group(1) if found else flat)[:LIGHTRAG_DESCRIPTION_CHARACTERS]


def cognee(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """Cognee's two prompts of cognify (cognee 1.6.5), with the reply schema in the request or,
    for a model litellm does not know, in the system prompt: graph extraction (a node for each
    capitalised name of the chunk, up to five, described by the chunk, and an edge from the first
    to each other) and the chunk's summary (its first sentence)."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    chunk = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    if system.startswith(COGNEE_GRAPH):
        names = list(dict.fromkeys(_NAME.findall(chunk)))[:LIGHTRAG_ENTITIES]
        description = " ".join(chunk.split())[:LIGHTRAG_DESCRIPTION_CHARACTERS]
        nodes = [{"id": n, "name": n, "type": "Entity", "description": description} for n in names]
        edges = [
            {"source_node_id": names[0], "target_node_id": n, "relationship_name": "mentioned_with",
             "description": f"{names[0]} is mentioned with {n}."}
            for n in names[1:]
        ]  # fmt: skip
        return json.dumps({"nodes": nodes, "edges": edges})
    if system.startswith(COGNEE_SUMMARY):
        return json.dumps({"summary": _first_sentence(chunk), "description": ""})
    raise KeyError("not one of Cognee's prompts (graph extraction, chunk summary)")


AMEM_ANALYSIS = "Generate a structured analysis of the following content"
AMEM_CONTENT = "Content for analysis:"
AMEM_EVOLUTION = "You are an AI memory evolution agent"
AMEM_KEYWORDS = 5


def amem(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """A-Mem's two prompts of `add_note` (a-mem 0.2.6): the content analysis (the note's first
    five distinct words of four letters or more as keywords, its first sentence as context, the
    first three keywords as tags) and the memory evolution (never evolve: no links, no new tags
    or contexts for the neighbours)."""
    prompt = messages[-1]["content"]
    if AMEM_EVOLUTION in prompt:
        return json.dumps(
            {"should_evolve": False, "actions": [], "suggested_connections": [],
             "tags_to_update": [], "new_context_neighborhood": [], "new_tags_neighborhood": []}
        )  # fmt: skip
    if prompt.lstrip().startswith(AMEM_ANALYSIS):
        content = prompt.rpartition(AMEM_CONTENT)[2].strip()
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(content)))[:AMEM_KEYWORDS]
        tags = [*words, "note", "record", "personal"][:3]
        return json.dumps({"keywords": words, "context": _first_sentence(content), "tags": tags})
    raise KeyError("not one of A-Mem's prompts (content analysis, memory evolution)")


HIPPORAG_NER = "Your task is to extract named entities from the given paragraph."
HIPPORAG_TRIPLES = "Your task is to construct an RDF (Resource Description Framework) graph"
HIPPORAG_FILTER = "[[ ## fact_before_filter ## ]]"


def hipporag(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """HippoRAG 2's three prompts (hipporag 2.0.0a4): named entities (the passage's capitalised
    names, up to five), triples (the first name `mentioned with` each other) and the recognition
    of facts for a question (every fact kept)."""
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    prompt = messages[-1]["content"]
    if system.startswith(HIPPORAG_NER):
        names = list(dict.fromkeys(_NAME.findall(prompt)))[:LIGHTRAG_ENTITIES]
        return json.dumps({"named_entities": names})
    if system.startswith(HIPPORAG_TRIPLES):
        passage = _between(prompt, "Paragraph:\n```\n", "\n```")
        names = list(dict.fromkeys(_NAME.findall(passage)))[:LIGHTRAG_ENTITIES]
        return json.dumps({"triples": [[names[0], "mentioned with", n] for n in names[1:]]})
    if HIPPORAG_FILTER in prompt:
        facts = prompt.rpartition(HIPPORAG_FILTER)[2].split("\n\nRespond with", 1)[0].strip()
        return f"[[ ## fact_after_filter ## ]]\n{facts}\n\n[[ ## completed ## ]]"
    raise KeyError("not one of HippoRAG's prompts (entities, triples, fact recognition)")


def any_library(api: str, messages: list[dict[str, str]], schema: Any) -> str:
    """Mem0's extraction, MemOS's, Cognee's, A-Mem's, HippoRAG's or LightRAG's prompts, whichever
    the request is (one server for a study with several)."""
    prompt = messages[-1]["content"]
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    if AMEM_EVOLUTION in prompt or prompt.lstrip().startswith(AMEM_ANALYSIS):
        return amem(api, messages, schema)
    if system.startswith((HIPPORAG_NER, HIPPORAG_TRIPLES)) or HIPPORAG_FILTER in prompt:
        return hipporag(api, messages, schema)
    if "## New Messages" in prompt:
        return mem0_extraction(api, messages, schema)
    if prompt.startswith(MEMOS_EXTRACTION):
        return memos_extraction(api, messages, schema)
    if system.startswith((COGNEE_GRAPH, COGNEE_SUMMARY)):
        return cognee(api, messages, schema)
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
