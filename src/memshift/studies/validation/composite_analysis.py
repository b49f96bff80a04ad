"""Intervals of a smooth function of several ratios of sums over the same worlds, such as one
writer's repair correctness over another's, or B×D as a sum of four Update shares.

The same world bootstrap and the same studentized interval as every other interval of the report
(`bootstrap.sql`): each draw's distance from the estimate is divided by the draw's own linearised
standard error. The function is linearised by central differences, so any smooth combination of
shares works without its derivative written out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from memshift.analysis.bootstrap import MIN_WORLDS

Values = Mapping[str, np.ndarray]
Combine = Callable[[Values], np.ndarray]
STEP = 1e-6


@dataclass(frozen=True)
class Sums:
    """One ratio's numerator and denominator per world, in one world order shared by all."""

    num: np.ndarray
    den: np.ndarray


@dataclass(frozen=True)
class Estimate:
    estimate: float | None
    low: float | None
    high: float | None
    worlds: int
    n: int = 0  # the smallest of the ratios' pooled denominators


def _ratios(sums: Mapping[str, Sums], weights: np.ndarray) -> dict[str, np.ndarray]:
    """Each ratio per draw (weights: draws x worlds), nan where a draw has no denominator."""
    out = {}
    for name, s in sums.items():
        den = weights @ s.den
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = np.where(den > 0, (weights @ s.num) / np.where(den > 0, den, 1), np.nan)
    return out


def _gradient(combine: Combine, at: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    grads = {}
    for name in at:
        up = {**at, name: at[name] + STEP}
        down = {**at, name: at[name] - STEP}
        grads[name] = (combine(up) - combine(down)) / (2 * STEP)
    return grads


def _spread(
    sums: Mapping[str, Sums], combine: Combine, weights: np.ndarray, at: dict[str, np.ndarray]
) -> np.ndarray:
    """Per draw, the linearised standard error of the combination: per world, the gradient-weighted
    residuals num - ratio * den over each ratio's weighted denominator, squared and weighted."""
    grads = _gradient(combine, at)
    influence = np.zeros(weights.shape)
    for name, s in sums.items():
        den = (weights @ s.den)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            residual = (s.num[None, :] - at[name][:, None] * s.den[None, :]) / den
        influence += grads[name][:, None] * residual
    return np.sqrt(np.sum(weights * influence**2, axis=1))


def studentized(
    sums: Mapping[str, Sums],
    combine: Combine,
    weights: np.ndarray,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> Estimate:
    """The combination's estimate and its studentized world-bootstrap interval, clipped to
    `bounds` (the values the combination can take); no interval when fewer than MIN_WORLDS
    worlds give every ratio a denominator."""
    worlds = len(next(iter(sums.values())).num)
    n = int(min(s.den.sum() for s in sums.values()))
    if n == 0:
        return Estimate(None, None, None, worlds)
    point = {name: np.array([s.num.sum() / s.den.sum()]) for name, s in sums.items()}
    estimate = float(combine(point)[0])
    present = int(np.sum(np.all([s.den > 0 for s in sums.values()], axis=0)))
    if present < MIN_WORLDS:
        return Estimate(estimate, None, None, present, n)
    se = float(_spread(sums, combine, np.ones((1, worlds)), point)[0])
    drawn = _ratios(sums, weights)
    ok = np.all([np.isfinite(v) for v in drawn.values()], axis=0)
    drawn = {name: v[ok] for name, v in drawn.items()}
    values = combine(drawn)
    spread = _spread(sums, combine, weights[ok], drawn)
    # a draw without spread of its own is scaled by the study's standard error, as in the SQL
    t = (values - estimate) / np.where(spread > 0, spread, se if se > 0 else 1.0)
    tail = (1 - level) / 2
    upper, lower = np.quantile(t, [1 - tail, tail])
    low, high = estimate - upper * se, estimate - lower * se
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return Estimate(estimate, float(low), float(high), present, n)
