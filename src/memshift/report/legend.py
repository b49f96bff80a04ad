"""The report's opening for a reader who has not read the docs: what the study ran and its
headline numbers ("In short"), a contents list, and a legend of every system's name and of
B, D, m, r and a."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memshift.vocabulary import (
    ALWAYS_ABSTAIN,
    BRANCH_NAMES,
    FROZEN_AT_FORK,
    UNSHIFTED,
    audited_parts,
    cell_parts,
    cell_system,
    is_floor,
)

# Detection B: how a HoldMem cell notices that a stored item is stale (docs/memory.md)
DETECTION_WORDS = {
    "append": "append-only (B=0): no key; a new item only when the writer finds the item among "
    "the records that arrived since its last write; never invalidates",
    "source": "source key (B=1): stale when a record of the item's declared sources changes",
    "citation": "citation key (B=1): stale when a record group holding a cited record changes",
    "oracle": "oracle key: stale exactly when the gold's dependencies change (a control)",
    "scope": "scope key: the records a definition ranges over (definition items)",
    "refresh": "refresh: re-derives on the source key, keeping the old item beside the new",
    "upsert": "upsert: append-only writes, a new item retiring the slot's older ones",
    "leaky": "leaky source key: the source key blind to a seeded quarter of the slots (a "
    "control whose m is known)",
    "audit": "audit (StateAuditor): a model decides what is stale",
}
# Repair D: what a re-derived value goes through before it is served
REPAIR_WORDS = {
    "0": "D=0: the writer's value as written",
    "1": "D=1: checked against the live records through its quotes, recomputed where it fails",
    "m": "D=m: checked by the writer's own programs, run in a sandbox",
    "check": "the check-only control: D=1's check without its recomputation",
    "json": "the JSON arm: D=1's store served as JSON records",
    "tmpl": "the template control: D=0's value in D=1's template",
    "w": "D=m with programs written from the definitions in the person's own words",
}
BASELINE_WORDS = {
    "bm25": "no store: BM25 over every live record at the question",
    "rag": "no store: dense retrieval over every live record at the question",
    "oracle": "the records the gold depends on, read by the same reader (a ceiling, no memory)",
    ALWAYS_ABSTAIN: "floor: abstains on every probe",
    FROZEN_AT_FORK: "floor: HoldMem's store at the fork, served forever, nothing detected",
}
# the measures are defined in the paragraph that follows the legend in the report
NAMES_WORDS = (
    "**B** is a HoldMem cell's detection (how it notices a stale item), **D** its repair (what "
    "a re-derived value goes through before it is served); a contrast is a paired difference "
    "between two systems in percentage points."
)
REFERENCE_CELL = cell_system("source", "1")
ORACLE = "oracle"


def system_words(name: str) -> str:
    """What a system of the report is, in words."""
    audited = audited_parts(name)
    if audited is not None:
        base, variant = audited
        shown = "" if variant == "full" else f" (ablation: {variant})"
        return f"`{base}`'s answers checked by the answer-level audit before scoring{shown}"
    if name in BASELINE_WORDS:
        return BASELINE_WORDS[name]
    parts = cell_parts(name)
    if parts is not None:
        repair, detection = parts
        return (
            f"HoldMem, the reference memory: {DETECTION_WORDS.get(detection, detection)}; "
            f"{REPAIR_WORDS.get(repair, repair)}"
        )
    if name.startswith("pm-"):
        return "a HoldMem store exported to Portable Memory and imported by a second implementation"
    return "a system of the study's own (systems.custom, native or predictions)"


def legend(systems: Sequence[str]) -> list[str]:
    rows = "\n".join(f"| `{name}` | {system_words(name)} |" for name in systems)
    return ["## Legend", "", "| name | what it is |", "|---|---|", rows, "", NAMES_WORDS, ""]


Lookup = Callable[[str, str], str | None]


def in_short(
    worlds: int, branches: Sequence[str], systems: Sequence[str], update: Lookup
) -> list[str]:
    """The headline: what ran, and per shift the best system's Update beside the reference cell's
    and the floors'. `update(system, branch)` is the overall Update as the report shows it, or
    None."""
    shifts = [b for b in branches if b != UNSHIFTED]
    counted = [s for s in systems if not is_floor(s)]
    lines = [
        "## In short",
        "",
        f"{counted_noun(worlds, 'world')}, {counted_noun(len(shifts), 'shift')} "
        f"({', '.join(shifts) or 'none'}) beside the unshifted branch, "
        f"{counted_noun(len(counted), 'system')} and the two floors. Update after each "
        "shift: the best system (the oracle, a ceiling, aside), the reference cell where the "
        "study has it, and what never answering and never updating score on the same "
        "item-times.",
        "",
    ]
    if not shifts:
        return lines
    header = "| shift | best system | " + (
        f"`{REFERENCE_CELL}` | " if REFERENCE_CELL in systems else ""
    )
    header += f"`{ALWAYS_ABSTAIN}` | `{FROZEN_AT_FORK}` |"
    rows = [header, "|" + "---|" * (header.count("|") - 1)]
    # the oracle reads exactly what gold depends on: a ceiling, not a memory to rank
    memories = [s for s in counted if s != ORACLE]
    for branch in shifts:
        scored = [(s, update(s, branch)) for s in memories]
        shown = [(s, v) for s, v in scored if v is not None]
        best = max(shown, key=lambda sv: _leading_number(sv[1]), default=None)
        cells = [BRANCH_NAMES.get(branch, branch), f"`{best[0]}` {best[1]}" if best else "—"]
        if REFERENCE_CELL in systems:
            cells.append(update(REFERENCE_CELL, branch) or "—")
        cells += [update(ALWAYS_ABSTAIN, branch) or "—", update(FROZEN_AT_FORK, branch) or "—"]
        rows.append("| " + " | ".join(cells) + " |")
    return [*lines, *rows, ""]


def counted_noun(n: int, noun: str) -> str:
    """`n` and the noun, plural unless one: "1 world", "2 worlds"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _leading_number(text: str) -> float:
    found = re.match(r"-?\d+(?:\.\d+)?", text)
    return float(found[0]) if found else float("-inf")


def anchor(title: str) -> str:
    """The anchor a Markdown viewer gives a heading (GitHub's rule: lower case, punctuation
    dropped, spaces to hyphens)."""
    kept = re.sub(r"[^\w\- ]", "", title.lower())
    return kept.replace(" ", "-")


def contents(text: str) -> list[str]:
    """A contents list of the second-level sections of a report's Markdown."""
    titles = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    seen: dict[str, int] = {}
    links = []
    for title in titles:
        slug = anchor(title)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        links.append(f"- [{title}](#{slug}{f'-{count}' if count else ''})")
    return ["## Contents", "", *links, ""]
