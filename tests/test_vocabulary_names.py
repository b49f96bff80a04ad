"""The unshifted branch and HoldMem's system names are spelled in `memshift/vocabulary.py` alone:
another module that needs them takes `UNSHIFTED`, `HOLDMEM`, `cell_system` or
`detection_system`. A "none" or "holdmem…" string elsewhere means something else, and each such
place is named here with what it means."""

from __future__ import annotations

import ast
from pathlib import Path

import memshift

PACKAGE = Path(memshift.__file__).parent
OTHER_MEANINGS = {
    ("studies/switch/report.py", '"none"'): "text: no failures",
    ("studies/validation/report.py", '"none"'): "text: no injected errors",
    ("report/figures.py", 'fmt="none"'): "matplotlib: no marker line",
    ("report/figures.py", 'linestyle="none"'): "matplotlib: no line",
    ("audit/arbiter.py", 'NO_DIRECTIVE = "repair", "verify", "none"'): "the audit's directive",
    ("audit/arbiter.py", 'NOTHING = "transition", "base", "none"'): "the audit's channel",
    ("statements.py", 'NONE_TEXT = "none"'): "a stored empty value's text",
    ("explain/render.py", '["none"]'): "text: no writes",
    ("models/prompts/auditor.py", '"none"'): "prompt text: no records cited",
    ("scoring/scorer.py", "EMPTY_SET_WORDS"): "an answer's word for the empty set",
    ("native/settings.py", 'invalidate: str = "none"'): "Mem0's invalidation setting",
    ("native/mem0_memory.py", 'invalidate: str = "none"'): "Mem0's invalidation setting",
    ("config.py", '["holdmem"]'): "the config's systems.holdmem section",
    ("registry.py", '"holdmem": "memshift.memory.served'): "the registry entry vocabulary reads",
}  # fmt: skip


def spelled() -> list[tuple[str, int, str]]:
    """(module, line, source line) of each "none" or "holdmem…" string outside vocabulary.py
    (not the text of an f-string)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "vocabulary.py":
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        # the text of an f-string is a message, not a name
        in_text = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in in_text:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if text == "none" or text.startswith("holdmem"):
                    found.append((name, node.lineno, lines[node.lineno - 1].strip()))
    return found


def explained(name: str, line: str) -> bool:
    return any(name == where and snippet in line for where, snippet in OTHER_MEANINGS)


def test_the_unshifted_branch_and_holdmem_names_are_spelled_in_the_vocabulary_alone():
    unexplained = [(name, n, line) for name, n, line in spelled() if not explained(name, line)]
    assert unexplained == [], "take UNSHIFTED, HOLDMEM, cell_system or detection_system"


def test_every_other_meaning_is_still_there():
    found = spelled()
    for where, snippet in OTHER_MEANINGS:
        assert any(name == where and snippet in line for name, _, line in found), where
