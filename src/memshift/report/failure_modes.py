"""The failure modes in the report (MemShift F.10), the paper's numbers beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.failure_modes import failure_modes_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, table
from memshift.report.order import ordered_systems
from memshift.vocabulary import KEYED, cell_parts, cell_system

Row = Mapping[str, Any]
# MemShift F.10, 20 contact attributes on 5 worlds
PAPER = {cell_system("source", "1"): "0.0", "bm25": "5.0 [0.0, 15.0]"}
# MemShift App. B: carryover after an unstated redefinition is at most 6.7% of 15 items
PAPER_BOUND = "at most 6.7 of 15 items"
# MemShift F.10, the consent probes on 5 worlds: leak and over-block of B=0 cells, B=1 cells
# (pooled over cells in the paper) and no-store BM25
PAPER_LEAK = {"B=0": "94.8 [90.6, 98.5]", "B=1": "63.0 [42.0, 76.3]", "bm25": "3.2 [0.0, 12.6]"}
PAPER_OVER_BLOCK = {"B=1": "36.0 [0.0, 79.1]"}


def paper_group(system: str) -> str:
    """The group the paper reports a system's consent numbers under: a HoldMem cell's B, else
    the system's own name."""
    parts = cell_parts(system)
    if parts is None:
        return system
    return "B=1" if parts[1] in KEYED else "B=0"


def section(rows: Sequence[Row]) -> str:
    return "".join(part for part in (_conflicts(rows), _consent(rows), _unstated(rows)) if part)


def _conflicts(rows: Sequence[Row]) -> str:
    conflicts = {r["system"]: r for r in rows if r["quantity"] == "conflict_abstain"}
    if not conflicts:
        return ""
    body = [
        [
            system,
            str(conflicts[system]["n"]),
            beside(interval(conflicts[system]), PAPER.get(system)),
        ]
        for system in ordered_systems(conflicts)
    ]
    return "\n".join(
        [
            "## Conflicting sources",
            "",
            "After the fork a contact card and a message from that contact state two values of "
            "the contact's city or employer on the same day; gold abstains (docs/data.md). The "
            "share of those item-times each system abstained on, 95% world-bootstrap intervals "
            "(n: item-times). A key detects a changed source, not a disagreement; the "
            "rule-based reader rebuilds records from their text and cannot see the message's "
            "claim as a rival value either, so with it a system abstains only where its "
            "evidence lacks the card (retrieval missed it), never because it saw the conflict.",
            "",
            table(["system", "n", "abstained (%)"], body),
            "",
        ]
    )


def _consent(rows: Sequence[Row]) -> str:
    by = {(r["system"], r["quantity"]): r for r in rows if r["quantity"] in ("leak", "over_block")}
    systems = ordered_systems({system for system, _ in by})
    if not systems:
        return ""
    body = []
    for system in systems:
        leak, over = by.get((system, "leak")), by.get((system, "over_block"))
        group = paper_group(system)
        body.append(
            [
                system,
                group if group.startswith("B=") else "",
                str(leak["n"]) if leak else "0",
                beside(interval(leak), PAPER_LEAK.get(group)),
                str(over["n"]) if over else "0",
                beside(interval(over), PAPER_OVER_BLOCK.get(group)),
            ]
        )
    return "\n".join(
        [
            "",
            "## Consent",
            "",
            "After the fork one agent loses one scope (a source). Gold blocks that agent's "
            "item-times whose dependencies touch the scope (docs/failure-modes.md); every "
            "item-time of the agent's items that declare the scope is probed. Leak: the share "
            "of blocked item-times a system still answered; over-block: the share of the "
            "others it refused. B=0 cells keep no read set and serve every agent; B=1 cells "
            "refuse an item whose served write read the scope (its selection by default); "
            "BM25 and RAG drop the scope's records at query time and refuse only when the agent "
            "lost every source the item declares. 95% world-bootstrap intervals (n: "
            "item-times); the paper pools the cells of each B.",
            "",
            table(["system", "B", "n blocked", "leak (%)", "n answerable", "over-block (%)"], body),
            "",
        ]
    )


def _unstated(rows: Sequence[Row]) -> str:
    quantities = ("undef_carryover", "undef_bound", "undef_beyond_bound")
    by = {(r["system"], r["quantity"]): r for r in rows if r["quantity"] in quantities}
    systems = ordered_systems({system for system, _ in by})
    if not systems:
        return ""
    body = [
        [
            system,
            str(by[(system, "undef_carryover")]["n"]),
            interval(by[(system, "undef_carryover")]),
            beside(interval(by[(system, "undef_bound")]), PAPER_BOUND),
            interval(by.get((system, "undef_beyond_bound"))),
        ]
        for system in systems
    ]
    return "\n".join(
        [
            "",
            "## Unstated redefinition",
            "",
            "The redefinition branch's definitions move at the fork, but the person never says "
            "so: gold applies the new definitions, no memory sees them, and no question names "
            "the definition in effect. Right: the share of the moved items' item-times after the "
            "fork a system answered right. Bound: the share whose old definition's value equals "
            "the new gold, from gold alone, which a memory reaches by carrying the old "
            "definition. Beyond the bound: right although the old value is not the new gold, an "
            "answer wrong under the old definition that equals the new gold by chance (an empty "
            "answer where the new definition selects nobody). 95% world-bootstrap intervals (n: "
            "item-times; the bound is over the same item-times for every system).",
            "",
            table(["system", "n", "right (%)", "bound (%)", "beyond the bound (%)"], body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"failure_modes": failure_modes_table(inputs.con, inputs.resampling)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["failure_modes"])
