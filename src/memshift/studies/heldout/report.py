"""The held-out definitions' report (MemShift F.2, Table 8b): the pooled B×D on the held-out
definitions' items with product intervals over worlds and definitions, and each definition's own
point estimate, with the paper's numbers beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memshift.analysis.bootstrap import Resampling
from memshift.report.markdown import beside, points, table
from memshift.report.order import ordered_branches
from memshift.report.typed_inputs import section as typed_section
from memshift.vocabulary import BRANCH_NAMES, UNSHIFTED

Row = Mapping[str, Any]
# MemShift F.2 (three draws of six, ten test worlds each), the source key
PAPER = {
    ("D=1", "def"): "+33.0 [+22.1, +44.9]",
    ("D=m", "def"): "+27.4 [+15.2, +40.7]",
    ("D=1", "src"): "+26.7 [+16.6, +38.3]",
    ("D=m", "src"): "+23.3 [+12.9, +36.4]",
    ("D=1", "del"): "+33.1 [+19.7, +48.6]",
    ("D=m", "del"): "+29.0 [+16.0, +45.9]",
}
PAPER_POSITIVE = "17 of 18"


def render(
    study: str,
    sets: Sequence[str],
    contrasts: Sequence[Row],
    per_definition: Sequence[Row],
    resampling: Resampling,
    typed_inputs: Sequence[Row] = (),
) -> str:
    pooled = [
        r
        for r in contrasts
        if r["contrast"] == "BxD"
        and r["item_class"] == "definition"
        and r["measure"] == "update"
        and r["branch"] != UNSHIFTED
    ]
    pooled_rows = [
        [
            r["detection"],
            r["setting"],
            BRANCH_NAMES.get(r["branch"], r["branch"]),
            str(r["n"]),
            beside(
                points(r),
                PAPER.get((r["setting"], r["branch"])) if r["detection"] == "source" else None,
            ),
        ]
        for branch in ordered_branches({r["branch"] for r in pooled})
        for r in pooled
        if r["branch"] == branch
    ]
    after_def = [
        r for r in per_definition if r["branch"] == "def" and r["setting"] == "source, D=1"
    ]
    positive = sum(1 for r in after_def if r["estimate"] > 0)
    definition_rows = [
        [
            r["definition_set"],
            f"{r['item_id']} ({r['definition']})",
            BRANCH_NAMES.get(r["branch"], r["branch"]),
            r["setting"],
            str(r["n"]),
            f"{100 * r['estimate']:+.1f}",
        ]
        for r in per_definition
    ]
    return "\n".join(
        [
            f"# Held-out definitions: study {study}",
            "",
            f"Definition sets {', '.join(sets)}: each replaces the six fixed definitions on the "
            "same worlds (docs/data.md, held-out definitions). Only the held-out definitions' "
            f"items count. Intervals: {resampling.draws} draws of a product bootstrap over worlds "
            "and definitions, 95%.",
            "",
            "## B×D on Update, pooled over the sets",
            "",
            table(["key", "setting", "branch", "n", "B×D"], pooled_rows),
            "",
            f"B×D positive after a redefinition for {positive} of {len(after_def)} definitions "
            f"(source key, D=1; the paper: {PAPER_POSITIVE}).",
            "",
            "## Each definition (point estimates over its changed item-times)",
            "",
            table(["set", "definition", "branch", "setting", "n", "B×D (pp)"], definition_rows),
            "",
            *([typed_section(typed_inputs)] if typed_inputs else []),
        ]
    )
