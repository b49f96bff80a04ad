"""The cost model in the report: tokens per query by part, and the stored cell over no-store
retrieval, with the paper's figure beside ours (MemShift §6.4, F.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memshift.analysis.cost_model import NO_STORE, PARTS, RATIO, STORED, TOTAL
from memshift.report.markdown import beside, interval, table

Row = Mapping[str, Any]
# MemShift F.6: "In a model of its maintenance, the source key cost 3.64 times the tokens of
# no-store BM25" (twelve-month worlds)
PAPER_RATIO = "3.64"


def tokens(value: float) -> str:
    return f"{value:,.0f}"


def times(value: float) -> str:
    return f"{value:.2f}"


def section(rows: Sequence[Row], horizon_months: int | None = None) -> str:
    if not rows:
        return ""
    index = {(r["system"], r["part"]): r for r in rows}
    systems = sorted({r["system"] for r in rows if r["part"] != RATIO})
    body = [
        [system, *(interval(index.get((system, part)), tokens) for part in (*PARTS, TOTAL))]
        for system in systems
    ]
    ratio = index.get((f"{STORED}/{NO_STORE}", RATIO))
    lines = [
        "## What each answer costs",
        "",
        "Tokens per query in five parts, from the run's model call logs (analysis/cost_model.py): "
        "the pre-fork store (ingestion, charged in full to every HoldMem cell), its re-writes "
        "after the fork (maintenance), programs and audits, and the reader's input and output "
        "(serving). The write parts are spread over the queries the system answered on the same "
        "world and branch. 95% world-bootstrap intervals.",
        "",
        table(["system", *PARTS, TOTAL], body),
        "",
    ]
    if ratio is not None:
        paper = PAPER_RATIO if horizon_months in (None, 9) else None
        lines += [
            f"The source-keyed cell ({STORED}) over no-store retrieval ({NO_STORE}), tokens per "
            f"query: {beside(interval(ratio, times), paper)} (the paper's ratio at twelve months "
            "describes its language-model writer; with the rule-based backend the ratio describes "
            "the rule writer's prompts and the study's query count).",
            "",
        ]
    return "\n".join(lines)
