"""(D,B) inferred from behaviour in the report (MemShift C.5, F.9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.inference import (
    MIN_SAMPLES,
    NOT_MEASURED,
    THRESHOLD,
    inferred_table,
    kappa,
)
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import interval, table
from memshift.report.order import ordered_systems
from memshift.vocabulary import cell_system

Row = Mapping[str, Any]


def reference_cell(b: str, systems: set[str]) -> str | None:
    """The HoldMem cell a system of inferred B is compared with: D=0 (no real system checks a
    value against its records), the source key for B=1, append-only for B=0."""
    for cell in (
        (cell_system("source", "0"), cell_system("source", "1"))
        if b == "1"
        else (cell_system("append", "0"), cell_system("append", "1"))
    ):
        if cell in systems:
            return cell
    return None


def _shown(row: Row | None, inferred: str | None) -> str:
    """A share with its interval, unless the system is not measured on the deletion branch."""
    return NOT_MEASURED if inferred == NOT_MEASURED else interval(row)


def section(rows: Sequence[Row]) -> str:
    by = {(r["system"], r["quantity"]): r for r in rows}
    systems = ordered_systems({r["system"] for r in rows})
    if not systems:
        return ""
    body = []
    pairs = []
    by_b = {r["system"]: r["inferred_b"] for r in rows}
    for system in systems:
        decided, carried = by.get((system, "persistence")), by.get((system, "carryover"))
        first = decided or carried
        assert first is not None
        known, inferred = first["known_b"], first["inferred_b"]
        if known is not None and inferred in ("0", "1"):
            pairs.append((int(known), int(inferred)))
        cell = reference_cell(inferred, set(systems)) if inferred in ("0", "1") else None
        body.append(
            [
                system,
                "—" if known is None else str(known),
                str(decided["n"]) if decided else "0",
                _shown(decided, inferred),
                inferred,
                first["by_interval"],
                _shown(carried, inferred),
                f"{cell}: {_shown(by.get((cell, 'carryover')), by_b.get(cell))}" if cell else "—",
            ]
        )
    agreement = kappa(pairs)
    shown = "undefined" if agreement is None else f"{agreement:.2f}"
    return "\n".join(
        [
            "## Settings inferred from behaviour",
            "",
            "After the deletion shift removes the objects an item's value depended on, how often "
            "each system still gives the old value (MemShift C.5). On one half of the items "
            f"(a fixed split) this persistence decides B: B=1 at most {THRESHOLD:.1f}, B=0 "
            f"above, unidentifiable with fewer than {MIN_SAMPLES} samples; 'by interval' asks "
            "the whole 95% interval to lie on one side. On the other half the carryover (the "
            "same share) is set beside that of the HoldMem cell with the inferred setting. A "
            "HoldMem cell's B is known where its detection fixes it (a key: 1; append-only, "
            "upsert, refresh: 0; the audit's is decided by its model, so it is inferred like "
            "any system's), which validates the rule: Cohen's kappa between known and inferred "
            f"B over {len(pairs)} cells = {shown} (paper: 1.00). D "
            "is read from the structure of what a system stores, not inferred: no system "
            "without a checked, typed store can have D=1.",
            "",
            table(
                [
                    "system",
                    "known B",
                    "n",
                    "persistence (%)",
                    "inferred B",
                    "by interval",
                    "carryover (%)",
                    "cell of that setting: carryover (%)",
                ],
                body,
            ),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"inferred": inferred_table(inputs.con, inputs.resampling, inputs.unmeasured)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["inferred"])
