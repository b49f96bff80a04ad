"""The horizons report: the same study at 1, 3 and 9 months of history before the fork (the
9-month world is the paper's twelve-month world), with the paper's numbers beside ours where it
gives them (MemShift §6.4, F.6, Fig. 8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from memshift import layout
from memshift.analysis.cost_model import NO_STORE, PARTS, RATIO, STORED, TOTAL, WRITE_PARTS
from memshift.analysis.diagnostics import UTILITY_FLOOR, UTILITY_FLOOR_WITHOUT_DEFINITIONS
from memshift.report.costs import times, tokens
from memshift.report.figures import save
from memshift.report.markdown import beside, interval, points, table
from memshift.report.order import shown
from memshift.vocabulary import UNSHIFTED, is_floor
from memshift.world.timeline import Timeline

Row = Mapping[str, Any]
FIGURE = layout.HORIZONS
# MemShift F.6 (three-month and twelve-month worlds), by the contrast's name in
# studies/horizons/stage.py
PAPER = {
    ("B at D=0, after a redefinition", 3): "+8.7 [+3.5, +14.8]",
    ("B at D=0, after a redefinition", 9): "+0.2 [−2.9, +3.4]",
    ("D on re-derived accuracy, definition items, after a redefinition", 3): "+78.5 [+73.9, +82.7]",
    ("D on re-derived accuracy, definition items, after a redefinition", 9): "+93.7 [+89.7, +97.4]",
    (f"{NO_STORE} − {STORED} before any shift", 9): "−25.8 [−28.5, −23.4]",
}
PAPER_RATIO = {9: "3.64"}
# MemShift F.6: the definition items' part of HoldMem(1,1)'s margin over the utility floor at one,
# three and twelve months (our nine-month history is the paper's twelve-month world)
PAPER_DEFINITION_PART = {1: "+8.1", 3: "+6.9", 9: "+7.7"}


def _months(months: int) -> str:
    return f"{months} ({Timeline(months).months}-month world)"


def render(study: str, tables: Mapping[str, Sequence[Row]]) -> str:
    sizes = tables["horizon_worlds"]
    months = sorted({r["horizon_months"] for r in sizes})
    costs = {(r["system"], r["part"], r["horizon_months"]): r for r in tables["horizon_costs"]}
    size_rows = _size_rows(sizes)
    contrast_rows = _contrast_rows(tables["horizon_contrasts"])
    before_rows = _before_rows(tables["horizons"], months)
    cost_rows = _cost_rows(costs, months)
    floor_rows = _floor_rows(tables["horizon_diagnostics"])
    ratio_rows = _ratio_rows(costs, months)
    return "\n".join(
        [
            f"# Horizons: study {study}",
            "",
            "The same study at each horizon: months of history before the fork, with the same "
            "fork and checkpoints after it (the 9-month history is the paper's twelve-month "
            "world). 95% world-bootstrap intervals over each horizon's worlds. With the "
            "rule-based backend the levels describe the rule writer and reader, not a language "
            "model (docs/reference-results.md).",
            "",
            "## The worlds",
            "",
            table(
                ["months of history", "worlds", "events per world", "tokens per world"], size_rows
            ),
            "",
            "## Accuracy before any shift (unshifted branch)",
            "",
            table(["system", *(_months(m) for m in months)], before_rows),
            "",
            "## Contrasts over horizons",
            "",
            table(["months of history", "contrast", "estimate", "n"], contrast_rows),
            "",
            "## The utility floor",
            "",
            "Accuracy before any shift minus the oracle context's, paired by probe, with its 80% "
            "interval, whose lower end is the one-sided 90% bound the test reads (a system "
            "passes at −3 pp or above; docs/report.md); the same on the items other than the "
            "definition items, and the definition items' part of the margin, the difference of "
            "the two estimates (MemShift F.6).",
            "",
            table(
                [
                    "months of history",
                    "system",
                    "difference",
                    "test",
                    "without definition items",
                    "test",
                    "definition items' part (pp)",
                ],
                floor_rows,
            ),
            "",
            "## Tokens per query",
            "",
            "Five parts from each horizon's call logs (analysis/cost_model.py): the write parts "
            "are spread over the queries each system answered on the same world and branch.",
            "",
            table(["system", "months of history", *PARTS, TOTAL], cost_rows),
            "",
            f"The source-keyed cell ({STORED}) over no-store retrieval ({NO_STORE}), tokens per "
            "query:",
            "",
            table(["months of history", "ratio"], ratio_rows),
            "",
            f"![Accuracy before any shift and tokens per query by horizon](figures/{FIGURE})",
            "",
        ]
    )


def _size_rows(sizes: Sequence[Row]) -> list[list[str]]:
    """Each horizon's worlds, events and tokens per world."""
    return [
        [
            _months(r["horizon_months"]),
            str(r["worlds"]),
            f"{r['events_per_world']:,.0f}",
            f"{r['tokens_per_world']:,.0f}",
        ]
        for r in sizes
    ]


def _contrast_rows(contrasts: Sequence[Row]) -> list[list[str]]:
    """Each contrast at each horizon, beside the paper's where it gives one."""
    return [
        [
            _months(r["horizon_months"]),
            r["contrast"],
            beside(points(r), PAPER.get((r["contrast"], r["horizon_months"]))),
            str(r["n"]),
        ]
        for r in contrasts
    ]


def _floor_rows(diagnostics: Sequence[Row]) -> list[list[str]]:
    """Each system's utility-floor test at each horizon, on every item and on the items other
    than the definition items, and the definition items' part of the margin (the difference of
    the two estimates)."""
    without = {
        (r["horizon_months"], r["system"]): r
        for r in diagnostics
        if r["test"] == UTILITY_FLOOR_WITHOUT_DEFINITIONS
    }

    def verdict(r: Row | None) -> str:
        return {True: "passed", False: "failed"}.get(r["passed"] if r else None, "no decision")

    rows = []
    for r in diagnostics:
        if r["test"] != UTILITY_FLOOR or not r["system"]:
            continue
        other = without.get((r["horizon_months"], r["system"]))
        part = (
            None
            if other is None or r["estimate"] is None or other["estimate"] is None
            else r["estimate"] - other["estimate"]
        )
        rows.append(
            [
                _months(r["horizon_months"]),
                r["system"],
                points(r),
                verdict(r),
                points(other) if other else "—",
                verdict(other),
                beside(
                    "—" if part is None else f"{100 * part:+.1f}",
                    PAPER_DEFINITION_PART.get(r["horizon_months"])
                    if r["system"] == STORED
                    else None,
                ),
            ]
        )
    return rows


def _ratio_rows(
    costs: Mapping[tuple[str, str, int], Row], months: Sequence[int]
) -> list[list[str]]:
    """The source-keyed cell's tokens per query over no-store retrieval's, beside the paper's."""
    ratio = f"{STORED}/{NO_STORE}"
    return [
        [_months(m), beside(interval(costs.get((ratio, RATIO, m)), times), PAPER_RATIO.get(m))]
        for m in months
        if (ratio, RATIO, m) in costs
    ]


def _before_rows(horizons: Sequence[Row], months: Sequence[int]) -> list[list[str]]:
    """Each system's accuracy before any shift (unshifted branch, all classes), a column per
    horizon."""
    before = [
        r
        for r in horizons
        if r["measure"] == "before_shift" and r["branch"] == UNSHIFTED and r["item_class"] == "all"
    ]
    index = {(r["system"], r["horizon_months"]): r for r in before}
    systems = sorted({r["system"] for r in before})
    return [[shown(s), *(interval(index.get((s, m))) for m in months)] for s in systems]


def _cost_rows(costs: Mapping[tuple[str, str, int], Row], months: Sequence[int]) -> list[list[str]]:
    """Each system's tokens per query by part, a row per horizon it has a total at."""
    rows = []
    for system in sorted({s for s, p, _ in costs if p != RATIO}):
        for m in months:
            if (system, TOTAL, m) in costs:
                parts = (interval(costs.get((system, p, m)), tokens) for p in (*PARTS, TOTAL))
                rows.append([system, _months(m), *parts])
    return rows


def write_figure(tables: Mapping[str, pa.Table], path: Path) -> Path:
    """(a) accuracy before any shift by horizon with 95% bands; (b) tokens per query at each
    horizon, serving against amortized ingestion, maintenance, programs and audits."""
    figure = Figure(figsize=(12.0, 5.0))
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    before = [
        r
        for r in tables["horizons"].to_pylist()
        if r["measure"] == "before_shift"
        and r["branch"] == UNSHIFTED
        and r["item_class"] == "all"
        and r["estimate"] is not None
    ]
    for system in sorted({r["system"] for r in before}):
        rows = sorted(
            (r for r in before if r["system"] == system), key=lambda r: r["horizon_months"]
        )
        xs = [r["horizon_months"] for r in rows]
        # a floor (memshift/scoring/floors.py) dashed and marked as one
        style = "--" if is_floor(system) else "-"
        left.plot(
            xs, [r["estimate"] for r in rows], marker="o", linestyle=style, label=shown(system)
        )
        if all(r["low"] is not None for r in rows):
            left.fill_between(xs, [r["low"] for r in rows], [r["high"] for r in rows], alpha=0.2)
    left.set_xlabel("months of history before the fork")
    left.set_ylabel("accuracy before any shift")
    left.yaxis.set_major_formatter(PercentFormatter(1.0))
    left.set_title("(a) accuracy before any shift")
    if before:
        left.legend(fontsize=7, loc="lower left")
    costs = [r for r in tables["horizon_costs"].to_pylist() if r["part"] in PARTS]
    bars = sorted({(r["system"], r["horizon_months"]) for r in costs})
    serving = [
        sum(
            r["estimate"] or 0.0
            for r in costs
            if (r["system"], r["horizon_months"]) == bar and r["part"] not in WRITE_PARTS
        )
        for bar in bars
    ]
    upkeep = [
        sum(
            r["estimate"] or 0.0
            for r in costs
            if (r["system"], r["horizon_months"]) == bar and r["part"] in WRITE_PARTS
        )
        for bar in bars
    ]
    positions = list(range(len(bars)))
    right.bar(positions, serving, color="#0072B2", label="serving")
    right.bar(positions, upkeep, bottom=serving, color="#56B4E9", label="ingestion, maintenance")
    right.set_xticks(positions, [f"{s} h{m}" for s, m in bars], rotation=90, fontsize=7)
    right.set_ylabel("tokens per query")
    right.set_title("(b) tokens per query")
    if bars:
        right.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    return save(figure, path)
