"""The validation grid's figures.

- grid_recovered.png: for every drawn and labelled writer, each value measured against the value
  its rates predict (r, a, the delta yield, B×D), with its 95% interval paired with the
  prediction; the diagonal is perfect recovery;
- grid_interaction.png: B×D as the identity predicts it over every error rate e and overlook
  rate o (the same on every class), per shift, with the drawn writers' measured B×D on it.

Drawn like the report's figures: an off-screen canvas at a fixed size and dpi, saved without
version metadata, so the same checks always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from memshift import layout
from memshift.report.figures import BLUE, GREEN, GUIDE, ORANGE, VERMILLION, save
from memshift.studies.validation.analysis import SHIFTS
from memshift.studies.validation.grid_analysis import INTERACTION, GridCheck
from memshift.vocabulary import BRANCH_NAMES
from memshift.world.items import ITEM_GROUPS

if TYPE_CHECKING:
    from memshift.studies.validation.grid_design_analysis import GridPlan

RECOVERED = layout.GRID_RECOVERED
INTERACTION_MAP = layout.GRID_INTERACTION
SHIFT_COLORS = {"src": BLUE, "def": ORANGE, "del": GREEN}
PANELS: tuple[tuple[str, str], ...] = (
    ("r", "r: right among detected item-times"),
    ("a", "a: right among missed item-times"),
    ("delta yield", "delta yield (append-only cell)"),
    (INTERACTION, "B×D (pp of Update)"),
)
MARKERS = {"drawn": "o", "labelled": "*"}


def _scatter(axes: Axes, checks: Sequence[GridCheck], measure: str, title: str) -> None:
    shown = [c for c in checks if c.measure == measure and c.injected is not None]
    scale = 100.0
    values = [scale * v for c in shown for v in (c.injected, c.found.low, c.found.high) if v]
    low = min([0.0, *values]) if measure == INTERACTION else 0.0
    high = max([0.0, *values]) if measure == INTERACTION else 100.0
    margin = 0.04 * (high - low or 1.0)
    axes.plot([low - margin, high + margin], [low - margin, high + margin], color=GUIDE, lw=1)
    for c in shown:
        assert c.injected is not None and c.found.estimate is not None
        x, y = scale * c.injected, scale * c.found.estimate
        color = SHIFT_COLORS[c.shift]
        if c.found.low is not None and c.found.high is not None:
            below, above = y - scale * c.found.low, scale * c.found.high - y
            axes.errorbar(
                x, y, yerr=[[max(below, 0.0)], [max(above, 0.0)]], color=color, lw=0.8, alpha=0.6
            )
        outside = c.within is False
        axes.scatter(
            [x],
            [y],
            marker=MARKERS.get(c.kind, "o"),
            s=70 if c.kind == "labelled" else 18,
            facecolors=color if c.testable else "white",
            edgecolors=VERMILLION if outside else ("black" if c.kind == "labelled" else color),
            linewidths=1.4 if outside or c.kind == "labelled" else 0.8,
            zorder=3,
        )
    axes.set_xlim(low - margin, high + margin)
    axes.set_ylim(low - margin, high + margin)
    unit = "pp" if measure == INTERACTION else "%"
    axes.set_title(title, fontsize=10)
    axes.set_xlabel(f"injected (predicted from the writer's rates), {unit}")
    axes.set_ylabel(f"measured, {unit}")
    axes.set_aspect("equal")


def recovered_figure(found: Sequence[GridCheck]) -> Figure:
    figure = Figure(figsize=(11.0, 11.5))
    FigureCanvasAgg(figure)
    grid = figure.subplots(2, 2)
    for axes, (measure, title) in zip(grid.flat, PANELS, strict=True):
        _scatter(axes, found, measure, title)
    legend = [
        Line2D([], [], marker="o", ls="", color=SHIFT_COLORS[s], label=BRANCH_NAMES.get(s, s))
        for s in SHIFTS
    ] + [
        Line2D([], [], marker="*", ls="", markersize=11, color="grey", mec="black",
               label="labelled writer"),
        Line2D([], [], marker="o", ls="", mfc="white", color="grey",
               label="not tested (few item-times can differ)"),
        Line2D([], [], marker="o", ls="", mfc="white", mec=VERMILLION, color=VERMILLION,
               label="prediction outside the interval"),
    ]  # fmt: skip
    figure.legend(handles=legend, loc="lower center", ncol=3, frameon=False, fontsize=9)
    figure.suptitle(
        "Validation grid: each measure against the value the writer's rates predict "
        "(lines: 95% interval paired with the prediction)",
        fontsize=11,
    )
    figure.subplots_adjust(left=0.07, right=0.98, top=0.94, bottom=0.1, wspace=0.25, hspace=0.25)
    return figure


def interaction_figure(
    surface: Mapping[str, np.ndarray], found: Sequence[GridCheck], plan: GridPlan
) -> Figure:
    figure = Figure(figsize=(15.0, 5.6))
    FigureCanvasAgg(figure)
    panels = figure.subplots(1, len(SHIFTS))
    steps = next(iter(surface.values())).shape[0]
    lattice = np.linspace(0.0, 100.0, steps)
    drawn = {w.name: w for w in plan.drawn}
    reach = max(1.0, *(float(np.max(np.abs(100 * s))) for s in surface.values()))
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-reach, vmax=reach)
    image = None
    for axes, shift in zip(panels, SHIFTS, strict=True):
        values = 100 * surface[shift]
        image = axes.contourf(lattice, lattice, values, levels=21, cmap="RdBu_r", norm=norm)
        axes.contour(lattice, lattice, values, levels=[0.0], colors="black", linewidths=1.5)
        points = [
            c for c in found if c.measure == INTERACTION and c.shift == shift and c.writer in drawn
        ]
        group = ITEM_GROUPS[0]
        axes.scatter(
            [100 * drawn[c.writer].error(group) for c in points],
            [100 * drawn[c.writer].overlook(group) for c in points],
            c=[100 * (c.found.estimate or 0.0) for c in points],
            cmap="RdBu_r",
            norm=norm,
            edgecolors="black",
            linewidths=1.2,
            s=80,
            zorder=3,
        )
        for c in points:
            writer = drawn[c.writer]
            axes.annotate(
                f"{100 * (c.found.estimate or 0.0):+.0f}",
                (100 * writer.error(group), 100 * writer.overlook(group)),
                xytext=(6, 4),
                textcoords="offset points",
                fontsize=7,
                zorder=4,
            )
        axes.set_title(f"{BRANCH_NAMES.get(shift, shift)}: predicted B×D", fontsize=10)
        axes.set_xlabel("error rate e, % of writes wrong")
        axes.set_aspect("equal")
    panels[0].set_ylabel("overlook rate o, % of delta news overlooked")
    if image is not None:
        bar = figure.colorbar(image, ax=list(panels), shrink=0.85)
        bar.set_label("B×D, pp of Update (black line: zero)")
    figure.suptitle(
        "B×D as the identity predicts it for a writer with error rate e and overlook rate o on "
        "every class; dots: the drawn writers, their measured B×D in pp on the same colors",
        fontsize=11,
    )
    return figure


def write_figures(
    found: Sequence[GridCheck], plan: GridPlan, surface: Mapping[str, np.ndarray], out: Path
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [
        save(recovered_figure(found), out / RECOVERED),
        save(interaction_figure(surface, found, plan), out / INTERACTION_MAP),
    ]
