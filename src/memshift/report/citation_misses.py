"""What the citation key missed and why, and what forcing a re-derivation would have served, in
the report (MemShift Fig. 5, Table 17), with the paper's numbers beside ours where it gives
them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.citation_misses import MISS_CLASSES, UNSEEN, report_tables
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, pct, points, table
from memshift.report.order import ordered_branches
from memshift.vocabulary import BRANCH_NAMES

Row = Mapping[str, Any]
CLASSES = ("definition", "other", "free text", "all")
# MemShift F.5: the forcing gain on definition items (pp) at D=0 per shift, at D=1 over the
# three shifts; on the other items at D=0 after a source revision
PAPER_GAIN = {
    ("0", "src", "definition"): "+2.6 [0.0, +6.2]",
    ("0", "def", "definition"): "+1.9 [0.0, +6.2]",
    ("0", "del", "definition"): "+2.7 [0.0, +6.4]",
    ("1", "src", "definition"): "+94.4 to +94.9 over the shifts",
    ("1", "def", "definition"): "+94.4 to +94.9 over the shifts",
    ("1", "del", "definition"): "+94.4 to +94.9 over the shifts",
    ("0", "src", "other"): "+63.5 [+48.5, +80.7]",
}


def _miss_table(rows: Sequence[Row]) -> str:
    picked = {
        (r["branch"], r["item_class"], r["miss_class"]): r for r in rows if r["cause"] == "all"
    }
    body = []
    for branch in ordered_branches({b for b, _, _ in picked}):
        for item_class in CLASSES:
            total = picked.get((branch, item_class, "all"))
            if total is None:
                continue
            counts = [picked.get((branch, item_class, c)) for c in MISS_CLASSES]
            unseen = sum(
                picked[(branch, item_class, c)]["missed"]
                for c in UNSEEN
                if (branch, item_class, c) in picked
            )
            body.append(
                [
                    BRANCH_NAMES.get(branch, branch),
                    item_class,
                    str(total["changed"]),
                    f"{total['missed']} ({pct(total['share'])}%)",
                    *[str(c["missed"]) if c else "0" for c in counts],
                    pct(unseen / total["missed"]),
                ]
            )
    header = ["branch", "items", "changed", "missed (%)", *MISS_CLASSES, "b new + c (%)"]
    return table(header, body)


def _forced_table(rows: Sequence[Row]) -> str:
    index = {(r["repair"], r["branch"], r["item_class"], r["quantity"]): r for r in rows}
    body = []
    for repair in sorted({r["repair"] for r in rows}):
        for branch in ordered_branches({r["branch"] for r in rows if r["repair"] == repair}):
            for item_class in CLASSES:
                gain = index.get((repair, branch, item_class, "gain"))
                if gain is None:
                    continue
                body.append(
                    [
                        f"D={repair}",
                        BRANCH_NAMES.get(branch, branch),
                        item_class,
                        str(gain["n"]),
                        interval(index.get((repair, branch, item_class, "cited"))),
                        interval(index.get((repair, branch, item_class, "forced"))),
                        interval(index.get((repair, branch, item_class, "no_key"))),
                        beside(points(gain), PAPER_GAIN.get((repair, branch, item_class))),
                    ]
                )
    header = ["D", "branch", "items", "n", "cited (%)", "forced (%)", "B=0 (%)", "gain"]
    return table(header, body)


def section(misses: Sequence[Row], forced: Sequence[Row]) -> str:
    if not misses:
        return ""
    parts = [
        "## What the citation key missed",
        "",
        "Each changed item-time the citation key never invalidated since the fork, classed by "
        "comparing the gold dependencies at the write it served with those at the probe, the "
        "write's citations and the events in between (MemShift Fig. 5, Table 17a), in this "
        "order: cited, a record the write cited changed (the key should have seen it); a, a "
        "dependency at the write changed and was not cited; b old, a record that existed at "
        "the write entered the dependencies; b new, a record created after the write entered "
        "them; c, a record left them (a window moved on, the scope narrowed); clock, no "
        "dependency moved. No set recorded at write time can hold b new or c. Over every "
        "cause of the change; `tables/citation_misses.parquet` splits by cause.",
        "",
        _miss_table(misses),
        "",
    ]
    if forced:
        parts += [
            "On the missed item-times, Update of the citation cell (cited, which served the "
            "stale item), of the source-key cell (forced, which re-derived the same item-times "
            "with the same writer request) and of the append-only cell (B=0), and gain = forced "
            "− cited paired by item-time (Table 17b); 95% world-bootstrap intervals.",
            "",
            _forced_table(forced),
            "",
        ]
    return "\n".join(parts)


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    misses, forced = report_tables(
        inputs.con, inputs.resampling, inputs.worlds_dir, inputs.logs.maintenance
    )
    return {"citation_misses": misses, "forced": forced}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["citation_misses"], rows["forced"])
