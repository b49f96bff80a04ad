"""The systems' rankings across shifts in the report (MemShift §7 and F.9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.rankings import MIN_SYSTEMS, rankings_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import left_out_note, table

Row = Mapping[str, Any]
# MemShift §7 and F.9 (15 systems: six HoldMem cells, six native systems, the oracle context,
# no-store BM25 and plain RAG)
PAPER = {
    ("all systems", "update def"): "0.96 [0.85, 0.98] (15 systems)",
    ("HoldMem cells", "update def"): "0.94 [0.75, 1.00] (6 cells)",
    ("the other systems", "update def"): (
        "0.52 [-0.09, 0.94] among the 6 native systems; 0.76 [0.24, 0.90] with BM25 and RAG"
    ),
    ("all systems", "stability del"): "0.55 [0.43, 0.66] (15 systems)",
}
SECONDS = {
    "update def": "Update after a redefinition",
    "stability del": "Stability after a deletion",
}


def _rho(row: Row) -> str:
    if row["systems"] < MIN_SYSTEMS:
        return f"— (fewer than {MIN_SYSTEMS} systems measured)"
    if row["rho"] is None:
        return "— (a ranking without spread)"
    interval = "" if row["low"] is None else f" [{row['low']:.2f}, {row['high']:.2f}]"
    return f"{row['rho']:.2f}{interval}"


def section(rows: Sequence[Row]) -> str:
    if not rows:
        return ""
    body = [
        [
            SECONDS.get(r["second"], r["second"]),
            r["group"],
            str(r["systems"]),
            _rho(r),
            PAPER.get((r["group"], r["second"]), "—"),
        ]
        for r in rows
    ]
    header = ["ranked against", "systems", "n", "Spearman's rho [95%]", "paper"]
    left_out = sorted({s for r in rows for s in r["left_out"] or ()})
    return "\n".join(
        [
            "## Rankings across shifts",
            "",
            "How far the systems' ranking by Update after a source revision fixes their ranking "
            "after another shift: Spearman's rank correlation over the systems measured on both "
            "branches (the floors left out), among the HoldMem cells and among the other "
            "systems (baselines, native, custom and audited systems), with the percentile "
            "interval over the same world draws as the measures (each draw ranks the systems "
            "again); `tables/rankings.parquet`.",
            "",
            table(header, body),
            "",
            *left_out_note(left_out),
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {
        "rankings": rankings_table(inputs.con, inputs.systems, inputs.resampling, inputs.unmeasured)
    }


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["rankings"])
