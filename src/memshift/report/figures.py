"""The report's figures, drawn from the MEASURES and CONTRASTS tables.

- update_stability.png: per branch, each system's share correct on changed item-times (update)
  and on unchanged ones (stability); the floors (always-abstain, frozen-at-fork) last, on a
  shaded ground with pale hatched bars, and their Update as a line across the systems' bars;
- changed_outcomes.png: per branch, how each system's changed item-times came out (the floors
  last, shaded);
- contrasts_by_class.png: the effect of a detection key (B) on update at D=0 and D=1 and the B×D
  interaction, per branch, key and item class.

Each figure is drawn on its own off-screen canvas (no pyplot state) at a fixed size and dpi and
saved without version metadata, so the same tables always give the same bytes. Undefined (null)
estimates are left out; a branch without a single defined estimate gets no panel.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import PercentFormatter

from memshift.analysis.bootstrap import MIN_WORLDS
from memshift.artifacts import write_atomically
from memshift.layout import (
    CHANGED_OUTCOMES,
    CONTRASTS_BY_CLASS,
    UPDATE_BY_WEEK,
    UPDATE_STABILITY,
)
from memshift.report.order import in_order, ordered_branches, ordered_systems, shown
from memshift.vocabulary import (
    ALWAYS_ABSTAIN,
    BASELINES,
    BRANCH_NAMES,
    DETECTIONS,
    FLOORS,
    FROZEN_AT_FORK,
    HOLDMEM,
    ITEM_CLASSES,
    UNSHIFTED,
    audited_base,
    cell_parts,
    is_floor,
)
from memshift.world.timeline import CHECKPOINT_WEEKS

DPI = 150
INCHES = {
    UPDATE_STABILITY: (12.0, 11.0),
    CHANGED_OUTCOMES: (12.0, 11.0),
    CONTRASTS_BY_CLASS: (13.0, 11.0),
    UPDATE_BY_WEEK: (13.0, 6.5),
}
# Without a Software entry the PNG names no library version, so reruns match byte for byte.
PNG_METADATA: dict[str, str | None] = {"Software": None}


# Okabe-Ito colors: distinguishable with the common color-vision deficiencies.
BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
GREY = "#999999"
GUIDE = "#BBBBBB"
GRID = "#E5E5E5"
# the floors: a shaded ground behind their slots, grey italic names, pale hatched bars, and each
# floor's Update as a line across the systems' slots
FLOOR_GROUND = "#F2F2F2"
FLOOR_TEXT = "#555555"
FLOOR_ALPHA = 0.45
FLOOR_HATCH = "///"
FLOOR_LINES = {ALWAYS_ABSTAIN: (VERMILLION, "--"), FROZEN_AT_FORK: (PURPLE, ":")}

GROUP_GAP = 0.6
PAIRED_BAR = 0.38
STACKED_BAR = 0.7
HEADER_INCHES = 1.05

Row = dict[str, Any]
MeasureKey = tuple[str, str, str]  # system, branch, measure


@dataclass(frozen=True)
class Series:
    measure: str
    label: str
    color: str
    hatch: str = ""


SHARES = (
    Series("update", "Update: correct on changed item-times", BLUE),
    Series("stability", "Stability: correct on unchanged item-times", ORANGE),
)
OUTCOMES = (
    Series("right", "right", GREEN),
    Series("wrong_rederived", "wrong after a re-derivation", ORANGE),
    Series("wrong_missed", "wrong after a missed change", VERMILLION, hatch="///"),
    Series("wrong", "wrong (system reports no invalidations)", GREY),
)


@dataclass(frozen=True)
class Effect:
    contrast: str
    settings: tuple[str, ...]
    label: str
    color: str
    marker: str


EFFECTS = (
    Effect("B", ("D=0",), "B effect at D=0", BLUE, "o"),
    Effect("B", ("D=1",), "B effect at D=1", ORANGE, "s"),
    Effect("B", ("D=m",), "B effect at D=m", GREEN, "^"),
    Effect("BxD", ("D=1", ""), "B×D (D=1)", PURPLE, "D"),
    Effect("BxD", ("D=m",), "B×D (D=m)", VERMILLION, "v"),
)
EFFECT_SPREAD = 0.3


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float | None
    high: float | None

    def error(self) -> tuple[float, float] | None:
        """Distances from the estimate down to `low` and up to `high`, when both are known."""
        if self.low is None or self.high is None:
            return None
        return max(self.value - self.low, 0.0), max(self.high - self.value, 0.0)


@dataclass(frozen=True)
class Point:
    estimate: Estimate
    holm: bool


@dataclass(frozen=True)
class SystemLayout:
    branches: list[str]
    undefined_branches: list[str]
    systems: list[str]
    positions: list[float]


# --- reading the tables -------------------------------------------------------------------------


def finite(value: object) -> float | None:
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def estimate_of(row: Row) -> Estimate | None:
    value = finite(row["estimate"])
    if value is None:
        return None
    return Estimate(value, finite(row["low"]), finite(row["high"]))


def overall_estimates(
    measures: pa.Table, series: Iterable[Series]
) -> dict[MeasureKey, Estimate | None]:
    """The series' estimates over every item class and cause; undefined ones map to None."""
    names = {s.measure for s in series}
    return {
        (row["system"], row["branch"], row["measure"]): estimate_of(row)
        for row in measures.to_pylist()
        if row["item_class"] == "all" and row["cause"] == "all" and row["measure"] in names
    }


def effect_of(row: Row) -> Effect | None:
    for effect in EFFECTS:
        if row["contrast"] == effect.contrast and row["setting"] in effect.settings:
            return effect
    return None


def effect_points(contrasts: pa.Table) -> dict[tuple[str, str, str, Effect], Point]:
    """Defined update effects by (branch, detection, item class, effect), without `none`."""
    points: dict[tuple[str, str, str, Effect], Point] = {}
    for row in contrasts.to_pylist():
        effect = effect_of(row)
        estimate = estimate_of(row)
        wanted = row["measure"] == "update" and row["branch"] != UNSHIFTED
        if wanted and effect is not None and estimate is not None:
            key = (row["branch"], row["detection"], row["item_class"], effect)
            points[key] = Point(estimate, row["holm"] is True)
    return points


# --- ordering -----------------------------------------------------------------------------------


def system_group(system: str) -> str:
    if is_floor(system):
        return "floors"
    if audited_base(system) is not None:
        return "answer audit"
    cell = cell_parts(system)
    if cell:
        return f"{HOLDMEM} {cell[1]}"
    return "baselines" if system in BASELINES else "custom"


def x_positions(systems: Sequence[str]) -> list[float]:
    """One slot per system, with a gap wherever the group changes."""
    positions: list[float] = []
    x = 0.0
    for i, system in enumerate(systems):
        if i and system_group(systems[i - 1]) != system_group(system):
            x += GROUP_GAP
        positions.append(x)
        x += 1.0
    return positions


def group_boundaries(layout: SystemLayout) -> list[float]:
    slots = pairwise(zip(layout.systems, layout.positions, strict=True))
    return [
        (x_left + x_right) / 2
        for (left, x_left), (right, x_right) in slots
        if system_group(left) != system_group(right)
    ]


def system_layout(estimates: Mapping[MeasureKey, Estimate | None]) -> SystemLayout:
    """Panels for branches with a defined estimate; a slot for every system that has a row."""
    with_rows = ordered_branches(branch for _, branch, _ in estimates)
    defined = {branch for (_, branch, _), e in estimates.items() if e is not None}
    systems = ordered_systems(system for system, _, _ in estimates)
    return SystemLayout(
        [b for b in with_rows if b in defined],
        [b for b in with_rows if b not in defined],
        systems,
        x_positions(systems),
    )


# --- drawing ------------------------------------------------------------------------------------


def branch_title(branch: str) -> str:
    name = BRANCH_NAMES.get(branch)
    return f"{branch} ({name})" if name else branch


def branch_label(branch: str) -> str:
    """The branch over its name, for a row label that stays as short as its panel."""
    name = BRANCH_NAMES.get(branch)
    return f"{branch}\n({name})" if name else branch


def from_top(figure: Figure, inches: float) -> float:
    return 1 - inches / figure.get_figheight()


def new_figure(name: str, title: str, backend: str) -> Figure:
    """A figure whose panels are laid out below a header of title, subtitle and legend."""
    figure = Figure(figsize=INCHES[name], dpi=DPI)
    # The header is placed by hand: the layout engine stacks an outside legend onto the title.
    figure.set_layout_engine("constrained", rect=(0, 0, 1, from_top(figure, HEADER_INCHES)))
    FigureCanvasAgg(figure)
    figure.text(0.5, from_top(figure, 0.15), title, ha="center", va="top", fontsize=13)
    subtitle = f"model backend: {backend}"
    figure.text(0.5, from_top(figure, 0.45), subtitle, ha="center", va="top", fontsize=10)
    return figure


def header_legend(figure: Figure, handles: Sequence[Artist]) -> None:
    figure.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, from_top(figure, 0.7)),
        ncol=len(handles),
        frameon=False,
        fontsize=9,
    )


def note(figure: Figure, text: str) -> None:
    figure.text(0.5, 0.5, text, ha="center", va="center", fontsize=14, color="#555555")


def footnote(figure: Figure, text: str) -> None:
    figure.supxlabel(text, fontsize=8, color="#555555")


def undefined_note(layout: SystemLayout) -> str:
    missing = "A missing bar is an undefined estimate (no item-times of that kind)."
    if not layout.undefined_branches:
        return missing
    return f"{missing} No defined estimate, so no panel: {', '.join(layout.undefined_branches)}."


def system_axes(figure: Figure, layout: SystemLayout) -> list[Axes]:
    """One panel per branch, stacked, sharing the systems axis; shares in percent."""
    grid = figure.subplots(len(layout.branches), 1, sharex=True, squeeze=False)
    axes = list(grid[:, 0])
    for ax, branch in zip(axes, layout.branches, strict=True):
        ax.set_title(branch_title(branch), loc="left", fontsize=10)
        ax.set_ylim(0, 100)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.yaxis.set_major_formatter(PercentFormatter(100))
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", color=GRID, linewidth=0.6)
        ax.set_axisbelow(True)
        for x in group_boundaries(layout):
            ax.axvline(x, color=GUIDE, linewidth=0.8, linestyle=":")
        floors = [x for s, x in zip(layout.systems, layout.positions, strict=True) if is_floor(s)]
        if floors:
            ax.axvspan(min(floors) - 0.5, max(floors) + 0.5, color=FLOOR_GROUND, linewidth=0)
    bottom = axes[-1]
    bottom.set_xticks(
        layout.positions,
        [shown(system) for system in layout.systems],
        rotation=35,
        ha="right",
        rotation_mode="anchor",
        fontsize=8,
    )
    for label, system in zip(bottom.get_xticklabels(), layout.systems, strict=True):
        if is_floor(system):
            label.set_color(FLOOR_TEXT)
            label.set_fontstyle("italic")
    bottom.set_xlim(layout.positions[0] - 0.7, layout.positions[-1] + 0.7)
    return axes


def floor_slots(layout: SystemLayout) -> set[float]:
    return {x for s, x in zip(layout.systems, layout.positions, strict=True) if is_floor(s)}


def floor_lines(
    ax: Axes, estimates: Mapping[MeasureKey, Estimate | None], layout: SystemLayout, branch: str
) -> list[str]:
    """Each floor's Update on `branch` as a line across the systems' slots (not the floors'
    own); the floors drawn."""
    systems = [x for s, x in zip(layout.systems, layout.positions, strict=True) if not is_floor(s)]
    drawn = []
    for floor in FLOORS:
        found = estimates.get((floor, branch, "update"))
        if found is None or not systems:
            continue
        color, style = FLOOR_LINES[floor]
        ax.hlines(
            100 * found.value,
            min(systems) - 0.5,
            max(systems) + 0.5,
            colors=color,
            linestyles=style,
            linewidth=1.3,
            zorder=3,
        )
        drawn.append(floor)
    return drawn


def defined_points(
    estimates: Mapping[MeasureKey, Estimate | None], layout: SystemLayout, branch: str, measure: str
) -> list[tuple[float, Estimate]]:
    """Each system's slot and estimate of `measure` on `branch`, where it is defined."""
    slots = zip(layout.systems, layout.positions, strict=True)
    found = [(x, estimates.get((system, branch, measure))) for system, x in slots]
    return [(x, e) for x, e in found if e is not None]


def share_bars(
    ax: Axes, points: Sequence[tuple[float, Estimate]], series: Series, floor: bool = False
) -> None:
    """Bars of `series` at the points' slots, with their intervals; a floor's pale and hatched."""
    if not points:
        return
    heights = [100 * e.value for _, e in points]
    if floor:
        ax.bar(
            [x for x, _ in points],
            heights,
            PAIRED_BAR,
            color=series.color,
            alpha=FLOOR_ALPHA,
            hatch=FLOOR_HATCH,
            edgecolor="white",
            linewidth=0.5,
        )
    else:
        ax.bar([x for x, _ in points], heights, PAIRED_BAR, color=series.color)
    intervals = [(x, e.value, error) for x, e in points if (error := e.error()) is not None]
    if intervals:
        xs, values, errors = zip(*intervals, strict=True)
        ax.errorbar(
            xs,
            [100 * v for v in values],
            yerr=[[100 * below for below, _ in errors], [100 * above for _, above in errors]],
            fmt="none",
            ecolor="black",
            elinewidth=0.8,
            capsize=2,
        )


def outcome_bars(
    ax: Axes,
    points: Sequence[tuple[float, Estimate]],
    series: Series,
    bottoms: dict[float, float],
    floors: Collection[float] = (),
) -> None:
    """Stack one outcome onto the bars so far; `bottoms` holds each slot's height until now; the
    bars of a floor's slot (`floors`) pale."""
    parts = [(list(points), False)]
    if floors:
        parts = [([p for p in points if p[0] not in floors], False)]
        parts.append(([p for p in points if p[0] in floors], True))
    for part, pale in parts:
        ax.bar(
            [x for x, _ in part],
            [100 * e.value for _, e in part],
            STACKED_BAR,
            bottom=[bottoms[x] for x, _ in part],
            color=series.color,
            hatch=series.hatch,
            edgecolor="white",
            linewidth=0.5,
            alpha=FLOOR_ALPHA if pale else None,
        )
    for x, e in points:
        bottoms[x] += 100 * e.value


def series_legend(figure: Figure, series: Sequence[Series]) -> None:
    handles = [
        Patch(facecolor=s.color, hatch=s.hatch, edgecolor="white", label=s.label) for s in series
    ]
    header_legend(figure, handles)


class SystemPanels(NamedTuple):
    """A figure with one panel per branch and the systems along x; `axes` is empty when the
    figure holds only a note that nothing is defined."""

    figure: Figure
    estimates: dict[MeasureKey, Estimate | None]
    layout: SystemLayout
    axes: list[Axes]


def system_panels(
    measures: pa.Table, series: Sequence[Series], name: str, title: str, backend: str, empty: str
) -> SystemPanels:
    estimates = overall_estimates(measures, series)
    figure = new_figure(name, title, backend)
    layout = system_layout(estimates)
    if not layout.branches:
        note(figure, empty)
        return SystemPanels(figure, estimates, layout, [])
    return SystemPanels(figure, estimates, layout, system_axes(figure, layout))


def update_stability_figure(measures: pa.Table, backend: str) -> Figure:
    figure, estimates, layout, axes = system_panels(
        measures,
        SHARES,
        UPDATE_STABILITY,
        "Update and stability per system (all item classes and causes)",
        backend,
        "no update or stability estimates in this study",
    )
    if not axes:
        return figure
    offsets = (-PAIRED_BAR / 2, PAIRED_BAR / 2)
    floors = floor_slots(layout)
    lines: set[str] = set()
    for ax, branch in zip(axes, layout.branches, strict=True):
        for offset, series in zip(offsets, SHARES, strict=True):
            points = defined_points(estimates, layout, branch, series.measure)
            systems = [(x + offset, e) for x, e in points if x not in floors]
            share_bars(ax, systems, series)
            share_bars(ax, [(x + offset, e) for x, e in points if x in floors], series, True)
        lines.update(floor_lines(ax, estimates, layout, branch))
    handles: list[Artist] = [
        Patch(facecolor=s.color, edgecolor="white", label=s.label) for s in SHARES
    ]
    for floor in FLOORS:
        if floor in lines:
            color, style = FLOOR_LINES[floor]
            handles.append(
                Line2D([], [], color=color, linestyle=style, label=f"{floor}'s Update (floor)")
            )
    header_legend(figure, handles)
    # with floors, what they are on lines of their own
    note = (
        "\nShaded, pale and last: the floors, not systems (always-abstain abstains on every probe;"
        " frozen-at-fork answers with the pre-fork store's value).\nDashed and dotted lines:"
        " each floor's Update, across the systems' bars."
        if floors
        else ""
    )
    footnote(
        figure,
        f"Bars: share correct; whiskers: 95% interval (none over fewer than {MIN_WORLDS} "
        f"worlds). {undefined_note(layout)}{note}",
    )
    return figure


def changed_outcomes_figure(measures: pa.Table, backend: str) -> Figure:
    figure, estimates, layout, axes = system_panels(
        measures,
        OUTCOMES,
        CHANGED_OUTCOMES,
        "How each system's changed item-times came out (all item classes and causes)",
        backend,
        "no outcomes of changed item-times in this study",
    )
    if not axes:
        return figure
    for ax, branch in zip(axes, layout.branches, strict=True):
        bottoms = dict.fromkeys(layout.positions, 0.0)
        for series in OUTCOMES:
            points = defined_points(estimates, layout, branch, series.measure)
            outcome_bars(ax, points, series, bottoms, floor_slots(layout))
    drawn = {measure for (_, _, measure), e in estimates.items() if e is not None}
    series_legend(figure, [s for s in OUTCOMES if s.measure in drawn])
    floors = (
        "\nShaded, pale and last: the floors, not systems (always-abstain, frozen-at-fork); they"
        " invalidate nothing, so each of their wrong answers is a missed change."
        if floor_slots(layout)
        else ""
    )
    footnote(
        figure,
        "HoldMem cells report invalidations, so their wrong answers split into re-derived and"
        f" missed changes.{floors}\n{undefined_note(layout)}",
    )
    return figure


def effect_point(ax: Axes, y: float, point: Point, effect: Effect) -> None:
    estimate = point.estimate
    if estimate.low is not None and estimate.high is not None:
        ax.hlines(y, 100 * estimate.low, 100 * estimate.high, color=effect.color, linewidth=1.4)
    ax.plot(
        100 * estimate.value,
        y,
        marker=effect.marker,
        markersize=6,
        linestyle="none",
        markeredgecolor=effect.color,
        markerfacecolor=effect.color if point.holm else "white",
        markeredgewidth=1.3,
    )


def effect_offsets(count: int) -> list[float]:
    """Vertical offsets that spread `count` effects evenly around their item class's line."""
    if count == 1:
        return [0.0]
    step = 2 * EFFECT_SPREAD / (count - 1)
    return [-EFFECT_SPREAD + i * step for i in range(count)]


def effect_legend(figure: Figure, effects: Sequence[Effect]) -> None:
    drawn = [
        Line2D([], [], color=e.color, marker=e.marker, markersize=6, label=e.label) for e in effects
    ]
    holm = [
        Line2D([], [], color="black", marker="o", linestyle="none", label="filled: kept by Holm"),
        Line2D(
            [],
            [],
            color="black",
            marker="o",
            linestyle="none",
            markerfacecolor="white",
            label="open: not kept by Holm",
        ),
    ]
    handles = drawn + holm
    header_legend(figure, handles)


def contrast_axes(
    figure: Figure, branches: Sequence[str], detections: Sequence[str], classes: Sequence[str]
) -> list[list[Axes]]:
    """Rows of branches by columns of detection keys, sharing both axes."""
    grid = figure.subplots(len(branches), len(detections), sharex=True, sharey=True, squeeze=False)
    for j, detection in enumerate(detections):
        grid[0, j].set_title(f"key: {detection}", fontsize=10)
    for i, branch in enumerate(branches):
        grid[i, 0].set_ylabel(branch_label(branch), fontsize=10)
        for j in range(len(detections)):
            ax = grid[i, j]
            ax.axvline(0, color="black", linewidth=0.8)
            ax.grid(axis="x", color=GRID, linewidth=0.6)
            for boundary in range(1, len(classes)):
                ax.axhline(boundary - 0.5, color=GRID, linewidth=0.6)
            ax.set_axisbelow(True)
            ax.tick_params(labelsize=8)
    first = grid[0, 0]
    first.set_yticks(range(len(classes)), classes)
    first.set_ylim(len(classes) - 0.5, -0.5)
    return [list(row) for row in grid]


def contrasts_figure(contrasts: pa.Table, backend: str) -> Figure:
    figure = new_figure(
        CONTRASTS_BY_CLASS,
        "Effect of a detection key (B) on update, by item class",
        backend,
    )
    if contrasts.num_rows == 0:
        note(figure, "no contrasts in this study")
        return figure
    points = effect_points(contrasts)
    if not points:
        note(figure, "no defined B or B×D contrasts of update in this study")
        return figure
    branches = ordered_branches(branch for branch, _, _, _ in points)
    detections = in_order((detection for _, detection, _, _ in points), DETECTIONS)
    classes = in_order((item_class for _, _, item_class, _ in points), ITEM_CLASSES)
    present = {effect for _, _, _, effect in points}
    effects = [e for e in EFFECTS if e in present]
    offsets = dict(zip(effects, effect_offsets(len(effects)), strict=True))
    grid = contrast_axes(figure, branches, detections, classes)
    for (branch, detection, item_class, effect), point in points.items():
        ax = grid[branches.index(branch)][detections.index(detection)]
        effect_point(ax, classes.index(item_class) + offsets[effect], point, effect)
    effect_legend(figure, effects)
    footnote(
        figure,
        "Difference in update (share correct on changed item-times), percentage points;"
        f" lines: 95% interval (none over fewer than {MIN_WORLDS} worlds).\nB effect: the key"
        " minus append (no key) at the same repair D."
        " B×D (D=1 or D=m): the B effect at that D minus the B effect at D=0.",
    )
    return figure


# Lines of the weeks figure: one per system, in the order of the report; the floors dashed
WEEK_COLORS = (BLUE, ORANGE, GREEN, VERMILLION, "#56B4E9", "#F0E442", "#000000", GREY)
WEEK_STYLES = ("-", "--", "-.", ":")


def update_by_week_figure(by_checkpoint: pa.Table, backend: str) -> Figure:
    """Update at each checkpoint after the fork, one panel per shift, a line per system: how
    fast each system's answers catch up with the changes (report/tables/
    measures_by_checkpoint.parquet)."""
    figure = new_figure(
        UPDATE_BY_WEEK,
        "Update over the weeks after the fork (all item classes and causes)",
        backend,
    )
    rows = [
        r
        for r in by_checkpoint.to_pylist()
        if r["measure"] == "update" and r["checkpoint"] > 0 and r["branch"] != UNSHIFTED
    ]
    branches = ordered_branches({r["branch"] for r in rows})
    systems = ordered_systems({r["system"] for r in rows})
    if not branches:
        note(figure, "no Update by checkpoint in this study")
        return figure
    axes = figure.subplots(1, len(branches), sharey=True, squeeze=False)[0]
    found = {(r["system"], r["branch"], r["checkpoint"]): r for r in rows}
    handles: dict[str, Artist] = {}
    for ax, branch in zip(axes, branches, strict=True):
        for n, system in enumerate(systems):
            points = [
                (CHECKPOINT_WEEKS[k], found[(system, branch, k)])
                for k in range(1, len(CHECKPOINT_WEEKS))
                if (system, branch, k) in found
                and finite(found[(system, branch, k)]["estimate"]) is not None
            ]
            if not points:
                continue
            floor = is_floor(system)
            color, style = (
                FLOOR_LINES[system]
                if floor
                else (WEEK_COLORS[n % len(WEEK_COLORS)], WEEK_STYLES[n // len(WEEK_COLORS) % 4])
            )
            (line,) = ax.plot(
                [w for w, _ in points],
                [100 * p["estimate"] for _, p in points],
                color=color,
                linestyle=style,
                marker="o",
                markersize=3,
                alpha=FLOOR_ALPHA if floor else 1.0,
                label=shown(system),
            )
            handles.setdefault(system, line)
        ax.set_title(branch_title(branch), fontsize=10)
        ax.set_xticks(CHECKPOINT_WEEKS[1:])
        ax.set_xlabel("weeks after the fork", fontsize=9)
        ax.yaxis.set_major_formatter(PercentFormatter())
        ax.set_ylim(0, 100)
        ax.grid(axis="y", color=GRID)
    figure.legend(
        handles=list(handles.values()),
        loc="outside right center",
        frameon=False,
        fontsize=8,
    )
    footnote(
        figure,
        "Update among the item-times changed by each checkpoint; points: estimates over the "
        "worlds (intervals in report/tables/measures_by_checkpoint.parquet). Pale dashed and "
        "dotted: the floors.",
    )
    return figure


# --- writing ------------------------------------------------------------------------------------


def save(figure: Figure, path: Path) -> Path:
    write_atomically(
        path, lambda tmp: figure.savefig(tmp, format="png", dpi=DPI, metadata=PNG_METADATA)
    )
    return path


def write_figures(
    measures: pa.Table,
    contrasts: pa.Table,
    out_dir: Path,
    backend: str,
    by_checkpoint: pa.Table | None = None,
) -> list[Path]:
    """Draw the figures into `out_dir` (the weeks figure with `by_checkpoint`) and return their
    paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    drawn = [
        save(update_stability_figure(measures, backend), out_dir / UPDATE_STABILITY),
        save(changed_outcomes_figure(measures, backend), out_dir / CHANGED_OUTCOMES),
        save(contrasts_figure(contrasts, backend), out_dir / CONTRASTS_BY_CLASS),
    ]
    if by_checkpoint is not None:
        drawn.append(save(update_by_week_figure(by_checkpoint, backend), out_dir / UPDATE_BY_WEEK))
    return drawn
