"""The instructions a native library sends with every extraction call, read from the installed
library itself, and the refusal of a model whose context window cannot hold them beside a reply
(docs/models.md, "Context windows")."""

from __future__ import annotations

import contextlib
import importlib.util
import math
import tempfile
from pathlib import Path
from types import ModuleType

from memshift.errors import ConfigError
from memshift.models.profiles import REPLY_LIMITS, Profile
from memshift.tokens import count_tokens

# Mem0's prompt states the day it runs; any fixed date has the same length.
_DATE = "2000-01-01"


def _mem0_prompts() -> ModuleType | None:
    """Mem0's prompt module, loaded from its file: importing the package would start its
    telemetry (the adapter switches that off before it imports Mem0)."""
    spec = importlib.util.find_spec("mem0")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "configs" / "prompts.py"
    loaded = importlib.util.spec_from_file_location("memshift_mem0_prompts", path)
    if loaded is None or loaded.loader is None:
        return None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def mem0_instructions() -> str | None:
    """What every `Memory.add` of mem0ai 2.2.1 sends besides the messages: the additive
    extraction system prompt and its user prompt with nothing in it (a user's memories, so no
    agent suffix). None when Mem0 is not installed."""
    prompts = _mem0_prompts()
    if prompts is None:
        return None
    empty = prompts.generate_additive_extraction_prompt(current_date=_DATE)
    return f"{prompts.ADDITIVE_EXTRACTION_PROMPT}\n{empty}"


def lightrag_instructions() -> str | None:
    """What every entity-extraction call of lightrag-hku 1.5.7 sends besides the chunk, as the
    adapter runs it (text mode, the default extraction profile and limits). None when LightRAG
    is not installed."""
    if importlib.util.find_spec("lightrag") is None:
        return None
    # LightRAG reads ./.env when imported: import it from a directory that has none
    with tempfile.TemporaryDirectory() as empty, contextlib.chdir(empty):
        from lightrag import constants
        from lightrag.prompt import PROMPTS, resolve_entity_extraction_prompt_profile
    profile = resolve_entity_extraction_prompt_profile({}, False)
    delimiters = {
        "tuple_delimiter": PROMPTS["DEFAULT_TUPLE_DELIMITER"],
        "completion_delimiter": PROMPTS["DEFAULT_COMPLETION_DELIMITER"],
        "entity_types_guidance": profile["entity_types_guidance"],
        "language": constants.DEFAULT_SUMMARY_LANGUAGE,
    }
    context = {
        **delimiters,
        "examples": "\n".join(profile["entity_extraction_examples"]).format(**delimiters),
        "max_total_records": constants.DEFAULT_MAX_EXTRACTION_RECORDS,
        "max_entity_records": constants.DEFAULT_MAX_EXTRACTION_ENTITIES,
    }
    system = PROMPTS["entity_extraction_system_prompt"].format(**context)
    user = PROMPTS["entity_extraction_user_prompt"].format(
        **context, input_text="", heading_context_block=""
    )
    return f"{system}\n{user}"


# library -> (how its instructions are named, where they are read from)
INSTRUCTIONS = {
    "mem0": ("Mem0's fact-extraction instructions", mem0_instructions),
    "lightrag": ("LightRAG's entity-extraction instructions", lightrag_instructions),
}


def check_window(name: str, library: str, profile: Profile) -> None:
    """Refuse, in one line, a native system whose model cannot hold the library's own
    instructions and a reply: every extraction call would then fail. No check when the profile
    states no window or the library is not installed (its adapter says so when run)."""
    if not profile.context_length or library not in INSTRUCTIONS:
        return
    what, read = INSTRUCTIONS[library]
    text = read()
    if text is None:
        return
    tokens = count_tokens(text)
    reply = profile.reply_tokens("writer")
    limit = next((k for k in REPLY_LIMITS if k in profile.decoding_for("writer")), "max_tokens")
    total = math.ceil(tokens * profile.token_ratio) + reply
    if total > profile.context_length:
        raise ConfigError(
            f"systems.native.{name}: {what} alone are {tokens:,} tokens (x token_ratio "
            f"{profile.token_ratio:.2f}) + {limit} {reply:,} = {total:,} > context_length "
            f"{profile.context_length:,} of profile {profile.name!r}; give the library a model "
            "with a longer context"
        )
