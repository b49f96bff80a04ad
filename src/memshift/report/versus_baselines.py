"""Each system's Update against the no-store baselines in the report (MemShift F.9, Table 32)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.versus_baselines import BASELINES, versus_baselines_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import left_out_note, pct, points, table
from memshift.report.order import ordered_branches, ordered_systems
from memshift.vocabulary import BRANCH_NAMES, UNSHIFTED, is_floor

Row = Mapping[str, Any]


def section(rows: Sequence[Row], left_out: Sequence[str] = ()) -> str:
    """The section; `left_out`: the systems it left out on some shift as not measured."""
    if not rows and not left_out:
        return ""
    by = {(r["system"], r["baseline"], r["branch"]): r for r in rows}
    baselines = sorted({r["baseline"] for r in rows})
    body = []
    for branch in ordered_branches({r["branch"] for r in rows}):
        for system in ordered_systems({r["system"] for r in rows}):
            found = [by.get((system, b, branch)) for b in baselines]
            first = next((r for r in found if r is not None), None)
            if first is None:
                continue
            shown = [points(r) for r in found]
            body.append([BRANCH_NAMES.get(branch, branch), system, pct(first["update"]), *shown])
    header = ["shift", "system", "Update (%)", *(f"minus {b}" for b in baselines)]
    return "\n".join(
        [
            "## Against the no-store baselines",
            "",
            "Each system's Update minus that of no-store BM25 and of plain RAG on the same "
            "probes of the same worlds, per shift, in points, with the percentile interval over "
            "the same world draws as the measures (paired by draw); "
            "`tables/versus_baselines.parquet`. In the paper (F.9, Table 32), after a source "
            "revision every native system but LightRAG lies inside the intervals of both "
            "baselines, its difference from no-store BM25 with an interval that holds zero.",
            "",
            *([table(header, body), ""] if body else []),
            *left_out_note(left_out),
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {
        "versus_baselines": versus_baselines_table(
            inputs.con, list(inputs.systems), inputs.resampling, inputs.unmeasured
        )
    }


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    if not set(BASELINES) & set(inputs.systems):
        return ""
    left_out = sorted(
        {s for s, branch in inputs.unmeasured if branch != UNSHIFTED and not is_floor(s)}
    )
    return section(rows["versus_baselines"], left_out)
