"""How well a per-item predictor foretells which correct items survive a writer switch.

After a writer switch each item that was answered correctly before either survives (is still
correct) or fails. A predictor in [0, 1] per item, such as the two writers' agreement rate on the
item's type measured on separate calibration worlds, is judged the way a clinical risk model is
(Cox 1958; Van Calster et al. 2019): its calibration slope is β of the logistic regression
logit P(survive) = α + β·logit(p̂), with p̂ the predictor clipped to [0.005, 0.995], and its
discrimination is its AUROC for survival. Both get percentile intervals from the world bootstrap
of `bootstrap.py` (a slope has no linearised standard error to studentize by); a difference of
two AUROCs resamples the worlds and the units (item types) independently.

Everything is numpy. Rows that share a world, a unit and a predictor value share every draw's
weight, so they are pooled into one weighted group before fitting: the fits and AUROCs are exact
on the groups and cost as much as their number, not the number of rows. The logistic fits of all
draws run at once as batched 2x2 Newton steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from memshift.analysis.bootstrap import Resampling, weight_matrix

CLIP = 0.005
MIN_FAILURES = 10
MAX_ITERATIONS = 50
MAX_HALVINGS = 40
EXPONENT = 700.0  # e^700 is finite in float64
BLOCK = 1 << 15  # draws x groups per block of fits, so that a block's arrays stay in cache
TOLERANCE = 1e-10
DIVERGED = 1e3  # a |β| beyond this is a fit running off to infinity, not an estimate
SINGULAR = 1e-12  # relative determinant below which the 2x2 information is taken as singular

Fit = tuple[float, float]
Triple = tuple[float | None, float | None, float | None]


@dataclass(frozen=True)
class Groups:
    """Rows pooled by world, unit and scores: per group, its score on each predictor (a column
    each), the weight of its survivors and of its failures, and the index of its world and its
    unit among the sorted unique ones."""

    scores: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    world: np.ndarray
    unit: np.ndarray


@dataclass(frozen=True)
class Prediction:
    """A predictor's discrimination (AUROC) and calibration slope for survival, with their
    intervals; n rows, of which `failures` did not survive. Not `usable` with too few failures,
    but the estimates that exist are kept for the report to show greyed out."""

    n: int
    failures: int
    auroc: float | None
    auroc_low: float | None
    auroc_high: float | None
    slope: float | None
    slope_low: float | None
    slope_high: float | None
    usable: bool


def logit_clipped(predictor: ArrayLike) -> np.ndarray:
    """logit(p̂) with p̂ clipped to [CLIP, 1 - CLIP], so that a predictor of 0 or 1 stays finite."""
    p = np.clip(np.asarray(predictor, dtype=np.float64), CLIP, 1 - CLIP)
    return np.log(p) - np.log1p(-p)


def _rows(
    scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None
) -> tuple[np.ndarray, ...]:
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    y = np.asarray(labels, dtype=bool).reshape(-1)
    w = np.ones(len(s)) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if not len(s) == len(y) == len(w):
        raise ValueError(f"lengths differ: {len(s)} scores, {len(y)} labels, {len(w)} weights")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    return s, y, w


def _auroc_draws(
    scores: np.ndarray, positives: np.ndarray, negatives: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Per draw (weights: draws x groups), the weighted Mann-Whitney AUROC; nan without weight
    on either side. Weights are summed per distinct score, whose positives then win against
    every negative weight below it and half of that at the same score: O(n log n), not O(n²)."""
    if scores.size == 0:
        return np.full(weights.shape[0], np.nan)
    if np.any(scores[1:] < scores[:-1]):
        order = np.argsort(scores, kind="stable")
        scores, positives, negatives, weights = (
            scores[order], positives[order], negatives[order], weights[:, order]
        )  # fmt: skip
    starts = np.flatnonzero(np.r_[True, scores[1:] != scores[:-1]])
    pos = np.add.reduceat(weights * positives, starts, axis=1)
    neg = np.add.reduceat(weights * negatives, starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    wins = np.einsum("ij,ij->i", pos, below + 0.5 * neg)
    pairs = pos.sum(axis=1) * neg.sum(axis=1)
    return np.where(pairs > 0, wins / np.where(pairs > 0, pairs, 1.0), np.nan)


def _identifiable(
    x: np.ndarray, positives: np.ndarray, negatives: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Per draw, whether the logistic fit has a finite maximum: both outcomes carry weight and
    neither is (quasi-)separated from the other along x, which also rules out a constant x."""
    survive = (weights * positives) > 0
    fail = (weights * negatives) > 0
    lowest_survivor = np.where(survive, x, np.inf).min(axis=1, initial=np.inf)
    highest_survivor = np.where(survive, x, -np.inf).max(axis=1, initial=-np.inf)
    lowest_failure = np.where(fail, x, np.inf).min(axis=1, initial=np.inf)
    highest_failure = np.where(fail, x, -np.inf).max(axis=1, initial=-np.inf)
    # one-dimensional separation: some threshold puts every survivor on one side, every failure
    # on the other (ties at the threshold allowed); then the likelihood rises without bound
    overlap = (highest_failure > lowest_survivor) & (highest_survivor > lowest_failure)
    return survive.any(axis=1) & fail.any(axis=1) & overlap


def _evaluate(
    theta: np.ndarray, x: np.ndarray, trials: np.ndarray, failed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the log-likelihood at (α, β) = theta, and the fitted probabilities; one theta
    may serve every draw (its probabilities are then one row).

    With η = α + βx it is -Σ trials·log(1 + e^-η) - Σ failures·η; `failed` holds each draw's
    (Σ failures, Σ failures·x). Done in place, as this is where the fits spend their time."""
    t = np.multiply.outer(-theta[:, 1], x)
    t -= theta[:, :1]
    # beyond it e^-η overflows, and log(1 + e^-η) is -η itself to double precision: a step that
    # runs η far below must cost its whole likelihood, or a step halving takes it
    beyond = t > EXPONENT
    far = t[beyond]
    np.minimum(t, EXPONENT, out=t)
    np.exp(t, out=t)
    t += 1.0
    logs = np.log(t)
    logs[beyond] = far
    logs = np.broadcast_to(logs, trials.shape)
    at = np.broadcast_to(theta, failed.shape)
    loglik = -np.einsum("ij,ij->i", trials, logs) - np.einsum("ij,ij->i", at, failed)
    return loglik, np.reciprocal(t, out=t)


def _newton_step(
    p: np.ndarray, design: np.ndarray, survived: np.ndarray, trials: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the Newton step for (α, β) and whether the information matrix is invertible;
    `design` holds the columns 1, x and x², `survived` each draw's (Σ survivors, Σ survivors·x)."""
    expected = trials * p
    gradient = survived - expected @ design[:, :2]
    expected *= 1.0 - p
    h00, h01, h11 = (expected @ design).T
    g0, g1 = gradient.T
    det = h00 * h11 - h01 * h01
    regular = det > SINGULAR * h00 * h11
    safe = np.where(regular, det, 1.0)
    step = np.column_stack([(h11 * g0 - h01 * g1) / safe, (h00 * g1 - h01 * g0) / safe])
    return np.where(regular[:, None], step, 0.0), regular


def _fit_draws(
    x: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    weights: np.ndarray,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """(draws, 2): the maximum-likelihood (α, β) of every draw's weighted logistic regression of
    survival on x; nan where it has no finite maximum or Newton's method did not find it. The
    search starts at `start` (for bootstrap draws, the full sample's fit), else at the
    intercept-only fit."""
    out = np.full((weights.shape[0], 2), np.nan)
    defined = np.flatnonzero(_identifiable(x, positives, negatives, weights))
    design = np.column_stack([np.ones_like(x), x, x * x])
    # blocks of draws small enough for their temporaries to stay in the processor's cache
    size = max(1, BLOCK // max(1, len(x)))
    for first in range(0, len(defined), size):
        block = defined[first : first + size]
        out[block] = _fit_block(
            x, design, weights[block] * positives, weights[block] * negatives, start
        )
    out[np.abs(out[:, 1]) > DIVERGED] = np.nan
    return out


def _fit_block(
    x: np.ndarray,
    design: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    start: np.ndarray | None,
) -> np.ndarray:
    """Newton's method with step halving for a block of draws (positives and negatives: the
    weighted counts per draw and group); nan for a draw that has not converged within
    MAX_ITERATIONS or ran off beyond |β| = DIVERGED."""
    out = np.full((len(positives), 2), np.nan)
    live = np.arange(len(positives))
    trials = positives + negatives
    survived = positives @ design[:, :2]
    failed = negatives @ design[:, :2]
    if start is None:
        mean = survived[:, 0] / (survived[:, 0] + failed[:, 0])
        theta = np.column_stack([np.log(mean) - np.log1p(-mean), np.zeros(len(live))])
        loglik, p = _evaluate(theta, x, trials, failed)
    else:
        # one shared start: its probabilities are computed once for the whole block
        loglik, p = _evaluate(start[None, :], x, trials, failed)
        theta = np.tile(start, (len(live), 1))
    for _ in range(MAX_ITERATIONS):
        step, regular = _newton_step(p, design, survived, trials)
        small = np.max(np.abs(step), axis=1) <= TOLERANCE * (1.0 + np.max(np.abs(theta), axis=1))
        done = regular & small
        out[live[done]] = theta[done] + step[done]
        keep = regular & ~small & (np.abs(theta[:, 1]) <= DIVERGED)
        live, theta, step, trials, survived, failed, loglik = (
            v[keep] for v in (live, theta, step, trials, survived, failed, loglik)
        )
        theta, loglik, p, moved = _halve(theta, step, loglik, x, trials, failed)
        live, theta, trials, survived, failed, loglik, p = (
            v[moved] for v in (live, theta, trials, survived, failed, loglik, p)
        )
        if live.size == 0:
            break
    return out


def _halve(
    theta: np.ndarray,
    step: np.ndarray,
    loglik: np.ndarray,
    x: np.ndarray,
    trials: np.ndarray,
    failed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Take each draw's step, halved until the log-likelihood does not fall (up to rounding);
    the new parameters, log-likelihoods, probabilities, and which draws found such a step."""
    new_theta = theta + step
    new_loglik, new_p = _evaluate(new_theta, x, trials, failed)
    slack = 1e-12 * (1.0 + np.abs(loglik))
    pending = np.flatnonzero(~(new_loglik >= loglik - slack))
    scale = 1.0
    for _ in range(MAX_HALVINGS):
        if pending.size == 0:
            break
        scale /= 2
        trial = theta[pending] + scale * step[pending]
        ll, pr = _evaluate(trial, x, trials[pending], failed[pending])
        better = ll >= loglik[pending] - slack[pending]
        accepted = pending[better]
        new_theta[accepted] = trial[better]
        new_loglik[accepted] = ll[better]
        new_p[accepted] = pr[better]
        pending = pending[~better]
    moved = np.ones(len(theta), dtype=bool)
    moved[pending] = False
    return new_theta, new_loglik, new_p, moved


def auroc(scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None = None) -> float | None:
    """P(a random positive scores above a random negative) + ½·P(tie), each positive-negative
    pair weighted by the product of their weights; None without a positive or a negative."""
    s, y, w = _rows(scores, labels, weights)
    value = _auroc_draws(s, y.astype(np.float64), (~y).astype(np.float64), w[None, :])[0]
    return None if np.isnan(value) else float(value)


def calibration_slope(
    predictor: ArrayLike, survived: ArrayLike, weights: ArrayLike | None = None
) -> Fit | None:
    """(α, β) of the weighted logistic regression logit P(survive) = α + β·logit(p̂); None when
    the fit has no finite maximum: one outcome only, a constant predictor, no weight, or
    separation of the outcomes along the predictor."""
    p, y, w = _rows(predictor, survived, weights)
    fit = _fit_draws(logit_clipped(p), y.astype(np.float64), (~y).astype(np.float64), w[None, :])
    return None if np.isnan(fit[0, 1]) else (float(fit[0, 0]), float(fit[0, 1]))


def _codes(values: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The sorted unique values, and each row's index among them."""
    unique, inverse = np.unique(np.asarray(values), return_inverse=True)
    return unique, inverse.reshape(-1)


def _group(world: np.ndarray, unit: np.ndarray, scores: np.ndarray, survived: np.ndarray) -> Groups:
    """Pool the rows by their scores (rows x predictors), world and unit, in the order of the
    first predictor's score."""
    keys = np.column_stack([scores, world.astype(np.float64), unit.astype(np.float64)])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    size = len(unique)
    return Groups(
        scores=unique[:, :-2],
        positives=np.bincount(inverse, weights=survived.astype(np.float64), minlength=size),
        negatives=np.bincount(inverse, weights=(~survived).astype(np.float64), minlength=size),
        world=unique[:, -2].astype(np.int64),
        unit=unique[:, -1].astype(np.int64),
    )


def _percentile(
    values: np.ndarray,
    level: float,
    centre: float | None = None,
    clusters: int = 0,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> tuple[float | None, float | None]:
    """The percentile interval of the draws that define the statistic; none when fewer than
    half of them do, since the rest would then be a biased part of the bootstrap distribution.
    With a `centre` (the estimate) and the number of resampled `clusters`, each end is moved
    away from the centre by sqrt(G / (G - 1)): resampling G clusters gives a variance (G - 1) / G
    of the unbiased one, which left the 90% slope interval over 20 worlds covering 86-89%
    (tests/analysis/test_prediction.py); the ends stay inside `bounds`."""
    defined = values[~np.isnan(values)]
    if defined.size == 0 or 2 * defined.size < values.size:
        return None, None
    tail = (1 - level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    if centre is not None and clusters > 1:
        widen = np.sqrt(clusters / (clusters - 1))
        low = max(bounds[0], centre - widen * (centre - low))
        high = min(bounds[1], centre + widen * (high - centre))
    return float(low), float(high)


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def predict(
    worlds: Sequence[int] | np.ndarray,
    predictor: ArrayLike,
    survived: ArrayLike,
    resampling: Resampling,
    name: str = "prediction",
    min_failures: int = MIN_FAILURES,
) -> Prediction:
    """AUROC and calibration slope of `predictor` for survival, one row per item, with percentile
    intervals at `resampling.level` over a world bootstrap. A draw where a statistic is undefined
    is skipped. Usable only with `min_failures` failures and both estimates defined; the
    estimates that exist are reported either way."""
    scores, y, _ = _rows(predictor, survived, None)
    world_list, world = _codes(worlds)
    if len(world) != len(scores):
        raise ValueError(f"{len(world)} worlds for {len(scores)} rows")
    groups = _group(world, np.zeros_like(world), scores[:, None], y)
    score, x = groups.scores[:, 0], logit_clipped(groups.scores[:, 0])
    pos, neg = groups.positives, groups.negatives
    ones = np.ones((1, len(score)))
    point_auroc = _value(_auroc_draws(score, pos, neg, ones)[0])
    fit = _fit_draws(x, pos, neg, ones)[0]
    point_slope = _value(fit[1])
    weights = weight_matrix(world_list, resampling, name)[:, groups.world].astype(np.float64)
    clusters = len(world_list)
    auroc_low, auroc_high = _percentile(
        _auroc_draws(score, pos, neg, weights),
        resampling.level,
        point_auroc,
        clusters,
        (0.0, 1.0),
    )
    start = None if point_slope is None else fit
    slope_low, slope_high = _percentile(
        _fit_draws(x, pos, neg, weights, start)[:, 1], resampling.level, point_slope, clusters
    )
    failures = int(np.count_nonzero(~y))
    return Prediction(
        n=len(scores),
        failures=failures,
        auroc=point_auroc,
        auroc_low=auroc_low,
        auroc_high=auroc_high,
        slope=point_slope,
        slope_low=slope_low,
        slope_high=slope_high,
        usable=failures >= min_failures and point_auroc is not None and point_slope is not None,
    )


def auroc_difference(
    worlds: Sequence[int] | np.ndarray,
    units: Sequence[object] | np.ndarray,
    predictor_a: ArrayLike,
    predictor_b: ArrayLike,
    survived: ArrayLike,
    resampling: Resampling,
    name: str,
) -> Triple:
    """AUROC(a) - AUROC(b) for survival and its percentile interval from a product bootstrap:
    each draw resamples the worlds and the units independently, a row weighing its world's
    weight times its unit's. None where the estimate or too many draws are undefined."""
    a, y, _ = _rows(predictor_a, survived, None)
    b, _, _ = _rows(predictor_b, survived, None)
    world_list, world = _codes(worlds)
    unit_list, unit = _codes(units)
    if not len(world) == len(unit) == len(a):
        raise ValueError(f"{len(world)} worlds and {len(unit)} units for {len(a)} rows")
    groups = _group(world, unit, np.column_stack([a, b]), y)
    pos, neg = groups.positives, groups.negatives

    def difference(weights: np.ndarray) -> np.ndarray:
        first = _auroc_draws(groups.scores[:, 0], pos, neg, weights)
        return first - _auroc_draws(groups.scores[:, 1], pos, neg, weights)

    estimate = _value(difference(np.ones((1, len(pos))))[0])
    world_weights = weight_matrix(world_list, resampling, f"{name}-worlds")[:, groups.world]
    unit_weights = weight_matrix(unit_list, resampling, f"{name}-units")[:, groups.unit]
    low, high = _percentile(
        difference((world_weights * unit_weights).astype(np.float64)), resampling.level
    )
    return estimate, low, high
