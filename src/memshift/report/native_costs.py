"""What each native library spent per event in the report (MemShift F.9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.native_costs import native_costs_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import table

Row = Mapping[str, Any]


def _number(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def section(rows: Sequence[Row]) -> str:
    if not rows:
        return ""
    versus = next((r["versus"] for r in rows if r["versus"]), None)
    header = [
        "system",
        "library",
        "events",
        "LLM calls",
        "tokens in / out",
        "embedding calls",
        "failed",
        "LLM calls per event",
        "tokens per event",
        *([f"tokens per event / {versus}'s"] if versus else []),
    ]
    body = [
        [
            r["system"],
            r["library"],
            f"{r['events']:,}",
            f"{r['chat_calls']:,}",
            f"{r['chat_tokens_in']:,} / {r['chat_tokens_out']:,}",
            f"{r['embed_calls']:,}",
            f"{r['failed']:,}",
            _number(r["calls_per_event"], 2),
            _number(r["tokens_per_event"], 0),
            *([_number(r["tokens_versus"], 2)] if versus else []),
        ]
        for r in rows
    ]
    return "\n".join(
        [
            "## What the native systems spend per event",
            "",
            "Each native library's own model calls, metered between the library and its server "
            "(chat and embedding calls, tokens as the server's usage reports them, failed calls "
            "counted), over the record events and stated redefinitions of the branches it "
            "followed up to their last checkpoint; `tables/native_costs.parquet`. The paper "
            "(F.9): 1.00 to 2.67 LLM calls per event, and 0.20 to 0.75 of Mem0's tokens (10.7k "
            "per event). With a scripted stand-in for the library's model, the calls are the "
            "library's and the tokens the stand-in's, which describe no model.",
            "",
            table(header, body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"native_costs": native_costs_table(inputs.con)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["native_costs"])
