"""The refresh and upsert cells against the key in the report (MemShift Table 27)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.recovery import recovery_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import pct, table
from memshift.report.order import ordered_branches
from memshift.vocabulary import BRANCH_NAMES, UNSHIFTED

Row = Mapping[str, Any]
SHOWN_CLASSES = ("definition", "all")


def _ratio(row: Row) -> str:
    if row["recovered"] is None:
        return "— (key effect under 5 pp)"
    interval = "" if row["low"] is None else f" [{row['low']:.2f}, {row['high']:.2f}]"
    return f"{row['recovered']:.2f}{interval}"


def section(rows: Sequence[Row]) -> str:
    shown = [r for r in rows if r["branch"] != UNSHIFTED and r["item_class"] in SHOWN_CLASSES]
    if not shown:
        return ""
    order = {b: n for n, b in enumerate(ordered_branches({r["branch"] for r in shown}))}
    shown = sorted(
        shown,
        key=lambda r: (
            r["variant"],
            r["repair"],
            SHOWN_CLASSES.index(r["item_class"]),
            order[r["branch"]],
        ),
    )
    body = [
        [
            r["variant"],
            f"D={r['repair']}",
            r["item_class"],
            BRANCH_NAMES.get(r["branch"], r["branch"]),
            pct(r["update_no_key"]),
            pct(r["update_key"]),
            pct(r["update_variant"]),
            _ratio(r),
        ]
        for r in shown
    ]
    header = ["variant", "D", "items", "branch", "B=0", "key", "variant's Update", "R [95%]"]
    return "\n".join(
        [
            "## Keys against refresh and upsert",
            "",
            "R: the share of the key's effect on Update that a B=0 variant recovers, "
            "(x − B0)/(B1 − B0), with B0 the append-only cell, B1 the source key and x the "
            "variant at the same D; not evaluated where B1 − B0 < 5 pp (MemShift Table 27, where "
            "the refresh recovers 1.00 and 0.99 on definition items at D=1 after a source revision "
            "and a redefinition, and the upsert 0.01). Update in percent (point estimates); R's "
            "interval is the percentile interval over the same world draws.",
            "",
            table(header, body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"recovery": recovery_table(inputs.con, inputs.systems, inputs.resampling)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["recovery"])
