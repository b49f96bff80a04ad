"""The interaction without the shift in the report (MemShift Table 21b), with the paper's
numbers beside ours where it gives them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.unshifted import unshifted_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, points, table
from memshift.report.order import ordered_branches
from memshift.vocabulary import BRANCH_NAMES

Row = Mapping[str, Any]
SHOWN_CLASSES = ("definition", "other", "free text", "all")
# MemShift F.2 on definition items (source key, D=1): shifted - unshifted, and the share of the
# item-times a source revision caused that also changed without it
PAPER_DIFFERENCE = {
    "src": "−4.5 [−17.5, +9.6]",
    "def": "+13.5 [+1.8, +25.3]",
    "del": "+12.5 [0.0, +21.4]",
}
PAPER_MOVED = {"src": "60.4"}


def section(rows: Sequence[Row]) -> str:
    if not rows:
        return ""
    index = {(r["detection"], r["branch"], r["item_class"], r["quantity"]): r for r in rows}
    body = []
    for key in dict.fromkeys(r["detection"] for r in rows):
        for branch in ordered_branches({r["branch"] for r in rows if r["detection"] == key}):
            for item_class in SHOWN_CLASSES:
                found = {
                    q: index.get((key, branch, item_class, q))
                    for q in ("shifted", "unshifted", "difference", "moved")
                }
                if found["shifted"] is None:
                    continue
                paper = key == "source" and item_class == "definition"
                body.append(
                    [
                        key,
                        BRANCH_NAMES.get(branch, branch),
                        item_class,
                        str(found["shifted"]["n"]),
                        points(found["shifted"]),
                        points(found["unshifted"]),
                        beside(
                            points(found["difference"]),
                            PAPER_DIFFERENCE.get(branch) if paper else None,
                        ),
                        beside(
                            interval(found["moved"]), PAPER_MOVED.get(branch) if paper else None
                        ),
                    ]
                )
    header = [
        "key",
        "branch",
        "items",
        "n",
        "B×D shifted",
        "B×D unshifted",
        "shifted − unshifted",
        "moved (%)",
    ]
    return "\n".join(
        [
            "## Without the shift",
            "",
            "The changed item-times each shift caused, asked again of the same four cells (the key "
            "and the append-only cell at D=0 and D=1) on the unshifted branch, which has the same "
            "events up to the fork and no shift. B×D at D=1 on Update on both branches over the "
            "same item-times, their paired difference, and moved: the share of these item-times "
            "whose value also changed without the shift (MemShift Table 21b, paper numbers for "
            "definition items with the source key). n: item-times; 95% world-bootstrap "
            "intervals.",
            "",
            table(header, body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    sampled = inputs.sample is not None
    return {"unshifted": unshifted_table(inputs.con, inputs.resampling, sampled=sampled)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["unshifted"])
