"""Rewritten worlds against their templates in the report (MemShift F.8), the paper's numbers
beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memshift.analysis.bootstrap import Resampling
from memshift.report.markdown import beside, points, table

Row = Mapping[str, Any]
# MemShift F.8 (the template value of each of Table 4b's five; the paired differences it gives)
PAPER = {
    ("B effect after a source revision, mean over D", "template"): "+9.1 [+5.3, +13.2]",
    ("D effect on re-derived accuracy", "template"): "+6.4 [+5.2, +7.5]",
    ("D effect on re-derived accuracy", "difference"): "−7.4 [−8.5, −6.4]",
    ("B×D after a redefinition", "template"): "+29.2 [+26.7, +32.1]",
    ("B×D after a redefinition", "difference"): "−0.4 [−1.5, +0.7]",
    ("B×D after a deletion", "template"): "+26.8 [+22.4, +31.3]",
    ("BM25 − HoldMem(1, source) after a redefinition", "template"): "−40.5 [−45.6, −35.8]",
}
PAPER_SHARE = "0.9"


def render(study: str, rows: Sequence[Row], rewrites: Sequence[Row], resampling: Resampling) -> str:
    index = {(r["contrast"], r["condition"]): r for r in rows}
    body = [
        [
            name,
            str(index[(name, "template")]["n"]) if (name, "template") in index else "—",
            *(
                beside(points(index.get((name, c))), PAPER.get((name, c)))
                for c in ("template", "rewritten", "difference")
            ),
        ]
        for name in dict.fromkeys(r["contrast"] for r in rows)
    ]
    total = sum(r["bodies"] for r in rewrites)
    chars = sum(r["chars_before"] or 0 for r in rewrites)
    outcome_rows = [[r["outcome"], str(r["bodies"]), str(r["changed"])] for r in rewrites]
    return "\n".join(
        [
            f"# Rewritten worlds: study {study}",
            "",
            "The study on its template worlds and on the same worlds with their e-mail, chat and "
            "note bodies rewritten, every fact gold reads kept verbatim (docs/data.md). Both "
            "runs ask the same probes; each contrast is paired by probe, and the difference is "
            f"rewritten − template. 95% world-bootstrap intervals, {resampling.draws} draws.",
            "",
            table(["contrast", "n", "template", "rewritten", "rewritten − template"], body),
            "",
            "## The rewrite",
            "",
            f"{total} distinct bodies ({chars:,} characters before the rewrite); the share of "
            "all the worlds' text rewritten is in each world's `rewrite-log.parquet` and the "
            f"rewrite stage's log (the paper: {PAPER_SHARE}% of the body text).",
            "",
            table(["outcome", "bodies", "text changed"], outcome_rows),
            "",
        ]
    )
