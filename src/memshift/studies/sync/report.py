"""The sync study in the report (MemShift F.10), the paper's numbers beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, points, table
from memshift.studies.sync.analysis import sync_table
from memshift.vocabulary import cell_system

Row = Mapping[str, Any]
SYSTEMS = (cell_system("append", "1"), cell_system("source", "1"), "bm25", "sync x key")
SOURCES = ("calendar", "email", "chat", "contacts", "tasks", "notes", "all")
# MemShift F.10: sync minus ideal on calendar probes (80 probes, 5 worlds), and the sync x key
# interaction on calendar and pooled over six sources
PAPER = {
    (cell_system("source", "1"), "calendar"): "-21.2 [-27.4, -13.2]",
    (cell_system("append", "1"), "calendar"): "-18.8 [-29.4, -12.5]",
    ("bm25", "calendar"): "-16.2 [-20.0, -11.8]",
    ("sync x key", "calendar"): "-2.5 [-11.2, +8.8]",
    ("sync x key", "all"): "-3.4 [-8.1, +2.4]",
}


def section(rows: Sequence[Row]) -> str:
    by = {(r["system"], r["source"], r["quantity"]): r for r in rows}
    body = []
    for system in SYSTEMS:
        for source in SOURCES:
            difference = by.get((system, source, "difference"))
            if difference is None:
                continue
            body.append(
                [
                    system,
                    source,
                    str(difference["n"]),
                    interval(by.get((system, source, "ideal"))),
                    interval(by.get((system, source, "sync"))),
                    beside(points(difference), PAPER.get((system, source))),
                ]
            )
    if not body:
        return ""
    return "\n".join(
        [
            "## Sync contracts",
            "",
            "Each system follows the unshifted branch twice, once with every event delivered "
            "as it happens and once through each source's documented incremental-sync contract "
            "(polls, a visibility lag, collapsed revisions, pages, chat deletions never "
            "delivered, the calendar's full resyncs; docs/failure-modes.md), and answers the "
            "same probes: events after the fork that touch an item, each asked shortly after "
            "it on the items it touches and as many it does not. Accuracy (%) under each "
            "delivery, and sync minus ideal in points on the same probes; `sync x key` is that "
            "difference for the source key (B=1) minus append-only's (B=0). 95% "
            "world-bootstrap intervals (n: probes).",
            "",
            table(["system", "source", "n", "ideal (%)", "sync (%)", "sync - ideal"], body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"sync": sync_table(inputs.con, inputs.sync_scores, inputs.resampling)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["sync"])
