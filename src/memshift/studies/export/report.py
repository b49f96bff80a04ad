"""The export shift in the report: its Markdown section (imported memories beside their cells,
the leaving test, the bundles)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.report.inputs import ReportInputs
from memshift.report.markdown import interval, points, table
from memshift.report.order import ordered_branches, ordered_systems
from memshift.studies.export.analysis import bundles_table, export_table
from memshift.vocabulary import BRANCH_NAMES

Row = Mapping[str, Any]
SHOWN = ("update", "m")
ARM_NAMES = {"ext": "with the keys", "noext": "without the keys"}


def _estimate(row: Row | None, estimate: str, low: str, high: str) -> Row | None:
    """Columns of an export row as an estimate row for `interval` and `points`."""
    if row is None:
        return None
    return {"estimate": row[estimate], "low": row[low], "high": row[high], "worlds": row["worlds"]}


def measures_table(rows: Sequence[Row]) -> str:
    index = {(r["system"], r["branch"], r["measure"]): r for r in rows}
    keys = [
        (system, branch)
        for system in ordered_systems({r["system"] for r in rows})
        for branch in ordered_branches({r["branch"] for r in rows})
        if any((r["system"], r["branch"]) == (system, branch) for r in rows)
    ]
    body = []
    for system, branch in keys:
        first = next(r for r in rows if (r["system"], r["branch"]) == (system, branch))
        line = [system, ARM_NAMES.get(first["arm"], first["arm"]), BRANCH_NAMES.get(branch, branch)]
        for measure in SHOWN:
            found = index.get((system, branch, measure))
            line += [
                interval(found),
                interval(_estimate(found, "original_estimate", "original_low", "original_high")),
                points(_estimate(found, "diff_vs_original", "diff_low", "diff_high")),
            ]
        body.append(line)
    header = ["imported memory", "arm", "branch"]
    for measure in ("Update", "m"):
        header += [f"{measure}", f"{measure} of the cell", "difference [95%]"]
    return table(header, body)


def bundles_text(rows: Sequence[Row]) -> str:
    if not rows:
        return "No bundle was passed to the report."
    refused = [r for r in rows if not r["ok"]]
    episodes = statistics.median(r["episodes"] for r in rows)
    size = statistics.median(r["bytes"] for r in rows) / 1024
    text = (
        f"{len(rows)} bundles; the format's reference package validates "
        f"{len(rows) - len(refused)} of them. Median {episodes:g} episodes and {size:.1f} KiB "
        "per bundle "
        "(report/tables/bundles.parquet lists each with its digest)."
    )
    for r in refused:
        text += f"\n\n- w{r['world']} {r['cell']} ({r['arm']}): {r['issues']}"
    return text


def section(rows: Sequence[Row], leaving: Sequence[Row], bundles: Sequence[Row]) -> str:
    verdicts = "; ".join(
        f"{r['system']}: {points(r)} ({'pass' if r['passed'] else 'fail'})"
        if r["passed"] is not None
        else f"{r['system']}: {points(r)}"
        for r in leaving
    )
    return "\n".join(
        [
            "## Export (S_impl)",
            "",
            "At the fork each exported cell's store leaves as a Portable Memory bundle, with its "
            "keys in a derivation extension or without them; a second implementation imports it "
            "and follows every branch with its own code. m, r and a come from the invalidations it "
            "reports. The difference is the imported memory's share minus the cell's, both from "
            "the same draw of worlds (paired by probe for Update). Leaving test (Update "
            f"difference within ±3 pp on every branch, 90% intervals): {verdicts or 'none'}.",
            "",
            measures_table(rows) if rows else "No imported memory was scored beside its cell.",
            "",
            bundles_text(bundles),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {
        "export": export_table(inputs.con, inputs.exported, inputs.resampling),
        "bundles": bundles_table(inputs.bundles),
    }


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    leaving = [r for r in inputs.leaving if r["system"]]
    return section(rows["export"], leaving, rows["bundles"])
