"""The writer switch in the report: its Markdown section and its figure (survival of D=0, B=1
items by the two writers' agreement, MemShift Fig. 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from memshift import schemas
from memshift.analysis.bootstrap import Resampling
from memshift.artifacts import read_table
from memshift.layout import SWITCH_CALIBRATION
from memshift.report.figures import DPI, save
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import interval, pct, points, table
from memshift.studies.switch import analysis as switch
from memshift.studies.switch.analysis import POOLED, Rows
from memshift.studies.switch.prediction_analysis import MIN_FAILURES, calibration_slope

Row = Mapping[str, Any]
AGREEMENT_EDGES = (0.5, 0.8, 0.9, 0.95)
PREDICTOR_NAMES = {
    "agreement": "agreement of the two writers",
    "acc_to": "new writer's accuracy",
    "acc_from": "old writer's accuracy",
    "not_definition": "not a definition item (indicator)",
}


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _range(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"


def retention_table(rows: Sequence[Row]) -> str:
    def verdict(r: Row) -> str:
        if r["by_construction"]:
            return "passes by construction (re-derived nothing)"
        return "—" if r["passed"] is None else ("pass" if r["passed"] else "fail")

    body = [
        [
            r["switch"],
            f"{r['from']} → {r['to']}",
            r["system"],
            str(r["rederived"]),
            f"{r['survived']}/{r['correct_before']}",
            interval(r),
            points({"estimate": r["net_change"], "low": r["net_low"], "high": r["net_high"]}),
            verdict(r),
        ]
        for r in rows
    ]
    header = [
        "switch",
        "writers",
        "cell",
        "re-derived",
        "survived",
        "retention [80% interval]",
        "net change in accuracy [95%]",
        "test (≥ 97%, one-sided 90%)",
    ]
    return table(header, body)


def survival_table(rows: Sequence[Row]) -> str:
    body = [
        [
            r["switch"],
            r["detection"],
            r["item_class"],
            str(r["items"]),
            pct(r["survival_d0"]),
            pct(r["survival_d1"]),
            points({"estimate": r["difference"], "low": r["low"], "high": r["high"]}),
            pct(r["checker_pass_d1"]),
        ]
        for r in rows
    ]
    header = [
        "switch",
        "detection",
        "items",
        "correct before",
        "survival D=0",
        "survival D=1",
        "D=1 − D=0 [95%]",
        "D=1 checker pass rate",
    ]
    return table(header, body)


def _usable(r: Row) -> str:
    if r["usable"]:
        return "yes"
    if r["failures"] < MIN_FAILURES:
        return f"no (fewer than {MIN_FAILURES} failures)"
    return "no (a statistic is undefined: the predictor separates survivors from failures)"


def prediction_table(rows: Sequence[Row]) -> str:
    body = [
        [
            r["scope"],
            PREDICTOR_NAMES.get(r["predictor"], r["predictor"]),
            f"{r['n']} ({r['failures']} failed)",
            _number(r["auroc"]) + _range(r["auroc_low"], r["auroc_high"]),
            _number(r["slope"], 2) + _range(r["slope_low"], r["slope_high"]),
            _usable(r),
        ]
        for r in rows
    ]
    header = ["scope", "predictor", "items", "AUROC [90%]", "slope [90%]", "usable"]
    return table(header, body)


def section(
    retention: Sequence[Row],
    survival: Sequence[Row],
    prediction: Sequence[Row],
    failures: Mapping[str, int],
    difference: Row,
) -> str:
    failed = ", ".join(f"{n} {c}" for c, n in failures.items()) or "none"
    return "\n".join(
        [
            "## Writer switch",
            "",
            "At the fork the writer model changes and the records stay as they are, so no gold "
            "value changes. A B=1 cell's key holds the writer, so it invalidates every item "
            "(reason: writer changed) and the new writer re-derives it; a B=0 cell re-derives "
            "nothing, keeps every answer and passes by construction (left out of the test). The "
            "same reader answers the fork probes before and after. Retention is the share of "
            "answers correct before that are still correct after (test: at least 97%, one-sided "
            "at 90%).",
            "",
            retention_table(retention),
            "",
            "### Survival by repair arm",
            "",
            "Survival of the same items at D=1 and D=0 of each B=1 detection, paired by item, "
            "beside the share of the new writer's writes the D=1 check passed.",
            "",
            survival_table(survival) if survival else "No B=1 detection has both arms.",
            "",
            "### What predicts survival",
            "",
            "D=0, B=1 items correct before the switch; predictors are per item type, measured on "
            "the calibration worlds. Calibration slope of logit P(survive) on logit(predictor) "
            "(1: calibrated, 0: no relation) and AUROC, 90% world-bootstrap intervals; a scope "
            "with fewer than 10 failures is not usable. Failed items by class: "
            f"{failed}. Pooled AUROC of the new writer's accuracy minus that of agreement "
            f"(worlds and item types resampled): {_number(difference['estimate'])}"
            f"{_range(difference['low'], difference['high'])}.",
            "",
            prediction_table(prediction),
            "",
            f"![Survival by the writers' agreement](figures/{SWITCH_CALIBRATION})",
            "",
        ]
    )


def calibration_figure(columns: Rows, backend: str) -> Figure:
    """Pooled D=0, B=1 survival by agreement bin (edges 50, 80, 90, 95%), with the logistic
    fit on logit(agreement); `columns` are `studies.switch.analysis.prediction_rows`."""
    agreement, survived = columns["agreement"], columns["survived"]
    figure = Figure(figsize=(6.4, 4.4), dpi=DPI)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    figure.suptitle(f"Survival after a writer switch by agreement ({POOLED})", fontsize=11)
    ax.set_title(f"model backend: {backend}", fontsize=8)
    edges = (0.0, *AGREEMENT_EDGES, 1.0 + 1e-9)
    for low, high in pairwise(edges):
        inside = (agreement >= low) & (agreement < high)
        if inside.any():
            # each bin at the mean agreement of its items
            where, share = agreement[inside].mean(), survived[inside].mean()
            ax.plot([where], [share], "o", color="#1f77b4")
            ax.annotate(f" n={int(inside.sum())}", (where, share), fontsize=7, va="top")
    fit = calibration_slope(agreement, survived) if len(agreement) else None
    if fit is not None:
        alpha, beta = fit
        grid = np.linspace(max(0.005, float(agreement.min())), 0.995, 100)
        ax.plot(grid, 1 / (1 + np.exp(-(alpha + beta * np.log(grid / (1 - grid))))), "-")
    else:
        ax.text(0.5, 0.5, "no fit: every item survived or none", transform=ax.transAxes)
    ax.set_xlabel("agreement of the two writers on the item type (calibration worlds)")
    ax.set_ylabel("share of D=0, B=1 items surviving")
    ax.set_ylim(-0.02, 1.05)
    return figure


def write_figure(columns: Rows, out_dir: Path, backend: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    return save(calibration_figure(columns, backend), out_dir / SWITCH_CALIBRATION)


# ---- the section as the report runs it (report/sections.py) ----------------------------------


@dataclass(frozen=True)
class SwitchReport:
    predicted: switch.Rows  # the D=0, B=1 items the predictors are judged on
    tables: dict[str, pa.Table]
    diagnostics: list[dict[str, Any]]
    text: str


def writer_switch(
    path: Path, resampling: Resampling, pools: Mapping[str, Sequence[str]]
) -> SwitchReport:
    """The writer switch's tables, diagnostics rows and section (studies/switch/analysis.py);
    `pools` names groups of switches whose items are also pooled. Computed before the report's
    diagnostics, which hold its retention test."""
    scores = read_table(path, schemas.SWITCH_SCORES)
    con = switch.open_switches(scores, resampling)
    predicted = switch.prediction_rows(scores)
    tables = {
        "retention": switch.retention(con, resampling),
        "switch_survival": switch.survival(con, resampling),
        "switch_prediction": switch.prediction(predicted, resampling, pools),
    }
    text = section(
        tables["retention"].to_pylist(),
        tables["switch_survival"].to_pylist(),
        tables["switch_prediction"].to_pylist(),
        switch.failures_by_class(predicted),
        switch.accuracy_over_agreement(predicted, resampling),
    )
    return SwitchReport(predicted, tables, switch.diagnostics_rows(tables["retention"]), text)


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    assert inputs.switch is not None, "the switch section runs only with a writer switch"
    return dict(inputs.switch.tables)


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    assert inputs.switch is not None, "the switch section runs only with a writer switch"
    return inputs.switch.text
