"""A memory system by name: a custom system from its `module:Class` spec, a built-in from its
registry entry (`registry.SYSTEMS`), loaded only when asked for."""

from __future__ import annotations

from memshift.memory.interface import MemorySystem, SystemInputs, system_class
from memshift.registry import SYSTEMS, load
from memshift.vocabulary import HOLDMEM, cell_parts


def system_for(inputs: SystemInputs, spec: str | None) -> MemorySystem:
    """A custom system from its spec, or a built-in by its registry entry (every HoldMem cell
    is served by the `holdmem` entry); each loaded only by its own jobs."""
    if spec is not None:
        return system_class(spec)()
    name = HOLDMEM if cell_parts(inputs.system) else inputs.system
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {inputs.system!r}; built in: {', '.join(SYSTEMS)}")
    return load(SYSTEMS[name])(inputs)  # type: ignore[no-any-return]
