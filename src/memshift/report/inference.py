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
    native_libraries,
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


def _stated(known: int | None, documented: int | None) -> str:
    """A cell's known B, a native library's documented one, else a dash."""
    if known is not None:
        return f"{known} (known)"
    return "—" if documented is None else f"{documented} (documented)"


def _against_documented(documented: Sequence[tuple[int, str]]) -> list[str]:
    """The sentence that sets the native systems' inferred B beside their documented B."""
    if not documented:
        return []
    equal = sum(1 for b, inferred in documented if inferred == str(b))
    decided = sum(1 for _, inferred in documented if inferred in ("0", "1"))
    return [
        "",
        f"Of the {len(documented)} native systems, {decided} have an inferred B, and it equals "
        "the documented B (what the library's documentation and code describe) for "
        f"{equal} of them (paper: 5 of 5). "
        "An inferred B that differs from the documented one says how the system behaved here, "
        "with this model and embedder, not what its library promises (docs/native.md).",
    ]


def section(rows: Sequence[Row]) -> str:
    by = {(r["system"], r["quantity"]): r for r in rows}
    systems = ordered_systems({r["system"] for r in rows})
    if not systems:
        return ""
    body = []
    pairs = []
    documented: list[tuple[int, str]] = []
    by_b = {r["system"]: r["inferred_b"] for r in rows}
    for system in systems:
        decided, carried = by.get((system, "persistence")), by.get((system, "carryover"))
        first = decided or carried
        assert first is not None
        known, inferred = first["known_b"], first["inferred_b"]
        if known is not None and inferred in ("0", "1"):
            pairs.append((int(known), int(inferred)))
        if first["documented_b"] is not None:
            documented.append((first["documented_b"], inferred))
        cell = reference_cell(inferred, set(systems)) if inferred in ("0", "1") else None
        body.append(
            [
                system,
                _stated(known, first["documented_b"]),
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
            *_against_documented(documented),
            "",
            table(
                [
                    "system",
                    "known or documented B",
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
    libraries = native_libraries(inputs.con)
    return {"inferred": inferred_table(inputs.con, inputs.resampling, inputs.unmeasured, libraries)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["inferred"])
