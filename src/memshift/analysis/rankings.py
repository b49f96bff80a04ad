"""How far the ranking of the systems after one shift fixes their ranking after another (MemShift
§7 and F.9): Spearman's rank correlation between the systems' Update after a source revision
and their Update after a redefinition, and their Stability after a deletion, over every system
measured on both branches (the floors left out: they bound the systems, they do not compete;
and a system on a branch where too many of its calls failed: its numbers describe the failures),
among the HoldMem cells, and among the other systems. Point estimate from the measures, and a
percentile interval over the same world draws as the measures (each draw ranks the systems
again), as the paper's world bootstrap."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.draws import draw_ratios
from memshift.vocabulary import cell_parts, is_floor

# (measure, branch) pairs whose rankings are compared
FIRST = ("update", "src")
SECONDS = (("update", "def"), ("stability", "del"))
MIN_SYSTEMS = 3
GROUPS: dict[str, Callable[[str], bool]] = {
    "all systems": lambda system: True,
    "HoldMem cells": lambda system: cell_parts(system) is not None,
    "the other systems": lambda system: cell_parts(system) is None,
}


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks along the last axis, tied values sharing their mean rank."""
    order = np.argsort(values, axis=-1, kind="stable")
    ranked = np.empty_like(values, dtype=float)
    for row_order, row_values, out in zip(
        order.reshape(-1, values.shape[-1]),
        values.reshape(-1, values.shape[-1]),
        ranked.reshape(-1, values.shape[-1]),
        strict=True,
    ):
        sorted_values = row_values[row_order]
        start = 0
        while start < len(sorted_values):
            end = start
            while end + 1 < len(sorted_values) and sorted_values[end + 1] == sorted_values[start]:
                end += 1
            out[row_order[start : end + 1]] = (start + end) / 2 + 1
            start = end + 1
    return ranked


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho along the last axis (Pearson's correlation of the ranks); NaN where either
    ranking is constant."""
    rx, ry = ranks(x), ranks(y)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    scale = np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scale > 0, (rx * ry).sum(axis=-1) / np.where(scale > 0, scale, 1), np.nan)


def _points(con: duckdb.DuckDBPyConnection, measure: str, branch: str) -> dict[str, float]:
    return dict(
        con.execute(
            """
            SELECT system, estimate FROM measure_summary
            WHERE measure = ? AND branch = ? AND item_class = 'all' AND cause = 'all'
                AND checkpoint = -1 AND estimate IS NOT NULL
            """,
            [measure, branch],
        ).fetchall()
    )


def _drawn(
    con: duckdb.DuckDBPyConnection, systems: Sequence[str], measure: str, branch: str
) -> np.ndarray:
    """(draws, systems) values of the measure on the branch, NaN where a draw has none."""
    found = con.execute(
        """
        SELECT draw, system, value FROM draw_ratios
        WHERE measure = ? AND branch = ? AND item_class = 'all'
        """,
        [measure, branch],
    ).fetchall()
    column = {s: k for k, s in enumerate(systems)}
    draws = 1 + max((d for d, _, _ in found), default=-1)
    out = np.full((draws, len(systems)), np.nan)
    for draw, system, value in found:
        if system in column and value is not None:
            out[draw, column[system]] = value
    return out


def _measured_points(
    con: duckdb.DuckDBPyConnection,
    measure: str,
    branch: str,
    unmeasured: Collection[tuple[str, str]],
) -> tuple[dict[str, float], list[str]]:
    """The measure's point per system on the branch, and the systems left out there because too
    many of their calls failed."""
    points = _points(con, measure, branch)
    left_out = sorted(s for s in points if (s, branch) in unmeasured)
    return {s: v for s, v in points.items() if s not in left_out}, left_out


def rankings_table(
    con: duckdb.DuckDBPyConnection,
    systems: Sequence[str],
    resampling: Resampling,
    unmeasured: Collection[tuple[str, str]] = frozenset(),
) -> pa.Table:
    """The RANKINGS table, leaving out a system on a branch where `unmeasured` (system, branch)
    says too many of its calls failed. Needs measure_summary, measure_ratios and the weight
    tables."""
    first, first_left_out = _measured_points(con, *FIRST, unmeasured)
    seconds = {pair: _measured_points(con, *pair, unmeasured) for pair in SECONDS}
    contenders = sorted(s for s in systems if not is_floor(s) and s in first)
    rows: list[dict[str, Any]] = []
    if len(contenders) + len(first_left_out) < MIN_SYSTEMS:
        return pa.Table.from_pylist(rows, schema=schemas.RANKINGS)
    [(worlds,)] = con.execute("SELECT count(DISTINCT world) FROM world_weights").fetchall()
    if contenders:
        draw_ratios(con, contenders, [FIRST[0], *(m for m, _ in SECONDS)])
    column = {s: k for k, s in enumerate(contenders)}
    drawn_first = _drawn(con, contenders, *FIRST)
    for pair, (second, second_left_out) in seconds.items():
        drawn_second = _drawn(con, contenders, *pair)
        for group, member in GROUPS.items():
            chosen = [s for s in contenders if member(s) and s in second]
            left_out = sorted(
                s
                for s in {*first_left_out, *second_left_out}
                if member(s) and not is_floor(s) and s in systems
            )
            if len(chosen) + len(left_out) < MIN_SYSTEMS:
                continue
            rho, low, high = None, None, None
            if len(chosen) >= MIN_SYSTEMS:
                columns = [column[s] for s in chosen]
                rho, low, high = _correlated(
                    np.array([first[s] for s in chosen]),
                    np.array([second[s] for s in chosen]),
                    drawn_first[:, columns],
                    drawn_second[:, columns],
                    resampling.tail if worlds >= MIN_WORLDS else None,
                )
            rows.append(
                {
                    "group": group,
                    "first": " ".join(FIRST),
                    "second": " ".join(pair),
                    "systems": len(chosen),
                    "rho": rho,
                    "low": low,
                    "high": high,
                    "worlds": worlds,
                    "left_out": left_out,
                }
            )
    return pa.Table.from_pylist(rows, schema=schemas.RANKINGS)


def _correlated(
    first: np.ndarray,
    second: np.ndarray,
    drawn_first: np.ndarray,
    drawn_second: np.ndarray,
    tail: float | None,
) -> tuple[float | None, float | None, float | None]:
    """Spearman's rho of the points and its percentile interval over the draws in which every
    system has both values (no interval with `tail` None: too few worlds); None for a ranking
    without spread."""
    rho = float(spearman(first, second))
    if np.isnan(rho):
        return None, None, None
    whole = ~(np.isnan(drawn_first).any(axis=1) | np.isnan(drawn_second).any(axis=1))
    drawn = spearman(drawn_first[whole], drawn_second[whole])
    kept = drawn[~np.isnan(drawn)]
    if tail is None or not len(kept):
        return rho, None, None
    return rho, float(np.quantile(kept, tail)), float(np.quantile(kept, 1 - tail))
