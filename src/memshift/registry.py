"""What can be plugged in, by name: shifts, memory systems, model backends and the simulator's
roles. Every entry is a lazy `module:attribute` string, loaded only by the job that uses it, so a
job's code fingerprint holds the code of its own entries and nobody else's
(`workflow/fingerprint.py`).
Of this file, a job counts what all share (the code, the names, the labels) and the strings of
the entries it loads, so pointing one entry elsewhere reruns only that entry's jobs.

Adding a shift, a baseline or a backend is one entry here (and its name in the config schema's
enum, which a test keeps equal to these keys); `docs/extending.md` shows both diffs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shift:
    label: str  # how the report names the branch
    builder: str  # module:function(ShiftContext) -> the item ids the shift touches


# The branches of a world in generation order; `none` is the unshifted branch every shift forks.
SHIFTS: dict[str, Shift] = {
    "src": Shift("source revision", "memshift.branches:source_revision"),
    "def": Shift("redefinition", "memshift.branches:redefinition"),
    "del": Shift("deletion", "memshift.branches:deletion"),
    "cons": Shift("consent revocation", "memshift.branches:consent"),
    "conflict": Shift("conflicting sources", "memshift.branches:conflict"),
    "undef": Shift("unstated redefinition", "memshift.branches:unstated_redefinition"),
}

# Memory systems built in, each a factory(SystemInputs) -> MemorySystem. `holdmem` serves every
# HoldMem cell's store; the others are the baselines, in the report's order.
SYSTEMS: dict[str, str] = {
    "holdmem": "memshift.memory.served:store_system",
    "bm25": "memshift.memory.baselines:bm25_system",
    "rag": "memshift.memory.dense:rag_system",
    "oracle": "memshift.memory.baselines:oracle_system",
}

# Real memory libraries behind the memory interface (`systems.native`, docs/native.md), each an
# adapter class built from the settings by `native.settings.build`; their packages are the
# optional `native` extra.
NATIVE_SYSTEMS: dict[str, str] = {
    "mem0": "memshift.native.mem0_memory:Mem0Memory",
    "lightrag": "memshift.native.lightrag_memory:LightRAGMemory",
    "memos": "memshift.native.memos_memory:MemOSMemory",
    "cognee": "memshift.native.cognee_memory:CogneeMemory",
    "amem": "memshift.native.amem_memory:AMemMemory",
    "hipporag": "memshift.native.hipporag_memory:HippoRAGMemory",
}

# Model backends by the `backend` of a model profile (`config/models.yaml`).
BACKENDS: dict[str, str] = {
    "rules": "memshift.simulator.backend:RulesBackend",
    "openai": "memshift.models.openai_backend:OpenAIBackend",
    "anthropic": "memshift.models.anthropic_backend:AnthropicBackend",
    "ollama": "memshift.models.ollama_backend:OllamaBackend",
}

# The offline simulator's roles (the `rules` backend): each a factory(Profile) that returns the
# function answering that role's typed requests.
SIMULATED_ROLES: dict[str, str] = {
    "writer": "memshift.simulator.writer:simulated_writer",
    "reader": "memshift.simulator.reader:simulated_reader",
    "program": "memshift.simulator.programs:simulated_programs",
    "auditor": "memshift.simulator.auditor:simulated_auditor",
    # rewrites message bodies for a rewritten world (studies/rewritten/rewrite_stage.py), not a
    # run's role
    "rewriter": "memshift.simulator.rewriter_role:simulated_rewriter",
}

# Each role's prompt builder, in a module of its own: a job's code counts the prompts of the roles
# it calls, so an edit to one role's prompt reruns that role's jobs alone.
PROMPTS: dict[str, str] = {
    "writer": "memshift.models.prompts.writer:messages",
    "reader": "memshift.models.prompts.reader:messages",
    "program": "memshift.models.prompts.program:messages",
    "auditor": "memshift.models.prompts.auditor:messages",
    "rewriter": "memshift.models.prompts.rewriter:messages",
}

# Detection policies whose code goes beyond HoldMem's keys: loaded only by their own jobs.
DETECTION_STEPS: dict[str, str] = {
    "audit": "memshift.memory.audited:AuditStep",
}


def module_of(entry: str) -> str:
    return entry.partition(":")[0]


def load(entry: str) -> Any:
    """The object an entry names."""
    module, _, attribute = entry.partition(":")
    found: Any = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found
