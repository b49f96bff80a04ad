"""Unnamed probes in the report (MemShift F.2, "Naming the definition in the probe changes
little"), with the paper's numbers for the source key beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.unnamed import unnamed_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, points, table

Row = Mapping[str, Any]
# MemShift F.2, 20 worlds after a redefinition, source key
PAPER = {
    "b_named": "+38.0 [+32.6, +43.4]",
    "b_unnamed": "+38.0 [+32.6, +43.2]",
    "b_difference": "0.0 [−1.3, +1.2]",
    "bxd_named": "+36.2 [+30.0, +42.0]",
    "bxd_unnamed": "+39.5 [+33.3, +45.2]",
}
ROWS = (("B at D=1", "b"), ("B×D", "bxd"))


def section(rows: Sequence[Row]) -> str:
    if not rows:
        return ""
    index = {(r["detection"], r["quantity"]): r for r in rows}
    body = []
    for key in sorted({r["detection"] for r in rows}):
        for label, stem in ROWS:
            found = {w: index.get((key, f"{stem}_{w}")) for w in ("named", "unnamed", "difference")}
            n = found["named"]["n"] if found["named"] else 0
            body.append(
                [
                    key,
                    label,
                    str(n),
                    *(
                        beside(
                            points(found[w]),
                            PAPER.get(f"{stem}_{w}") if key == "source" else None,
                        )
                        for w in ("named", "unnamed", "difference")
                    ),
                ]
            )
    return "\n".join(
        [
            "## Unnamed probes",
            "",
            "After a redefinition, each definition item's probe asked again without the sentence "
            "that names the definition in effect, of the same four cells (MemShift F.2). The key's "
            "effect at D=1 and B×D on Update over the same item-times, named and unnamed, and "
            "their paired difference (unnamed − named). n: item-times; 95% world-bootstrap "
            "intervals. The rule-based reader takes a stored statement as it is, whatever the "
            "question names, so with it the difference is 0.0 by construction; a language-model "
            "reader has to choose between versions an append-only store holds (docs/memory.md).",
            "",
            table(["key", "contrast", "n", "named", "unnamed", "unnamed − named"], body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"unnamed": unnamed_table(inputs.con, inputs.resampling)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["unnamed"])
