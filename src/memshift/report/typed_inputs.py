"""The size of a program's complete typed input in the report (MemShift F.4, Table 14): per
definition item, the tokens of every record of its sources as tables without bodies, and the
share of its item-times that fit the writer's room, with the paper's numbers beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.typed_inputs import FIT_TOKENS, POOLED, typed_inputs_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, pct, table

Row = Mapping[str, Any]
# MemShift F.4: the two definitions whose inputs never fit, in Qwen3.5-9B tokens, and the share
# of the held-out definitions' item-times that fit
PAPER_TOKENS = {"def.close_friends": "44,109", "def.vip_senders": "47,326"}
PAPER_FIT = {"def.close_friends": "0.0", "def.vip_senders": "0.0"}
PAPER_HELD_OUT_FIT = "66.7"
HELD_OUT = "def.h"


def section(rows: Sequence[Row]) -> str:
    if not rows:
        return ""
    held_out = any(r["item_id"].startswith(HELD_OUT) for r in rows)
    body = []
    for r in rows:
        pooled = r["item_id"] == POOLED
        paper_fit = PAPER_HELD_OUT_FIT if pooled and held_out else PAPER_FIT.get(r["item_id"])
        body.append(
            [
                r["label"],
                str(r["item_times"]),
                "—" if r["median_tokens"] is None else f"{r['median_tokens']:,.0f}",
                beside(f"{r['max_tokens']:,}", PAPER_TOKENS.get(r["item_id"])),
                beside(pct(r["fit"]), paper_fit),
            ]
        )
    return "\n".join(
        [
            "## A program's complete typed input",
            "",
            "A program (D=m) receives every record of its item's sources. Per definition item, "
            "over its item-times asked after the shifts: the tokens of those records written as "
            "one table per source with its column names once and no message bodies (the most "
            "compact of the paper's three forms), their median and largest, and the share at or "
            f"below {FIT_TOKENS:,} tokens, the writer's 32,768-token context less the request "
            "and the answer (MemShift F.4, Table 14). Tokens by the project's counter; the "
            "paper counts Qwen3.5-9B tokens.",
            "",
            table(["item", "n", "median tokens", "largest", "fit (%)"], body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"typed_inputs": typed_inputs_table(inputs.con, inputs.worlds_dir)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["typed_inputs"])
