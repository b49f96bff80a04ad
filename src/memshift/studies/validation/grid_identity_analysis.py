"""B×D written out from the identity: the anchors' outcomes each predicted B×D is built from, and
B×D over the whole square of error and overlook rates (`grid_prediction`, docs/validation.md, "The
prediction")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memshift.studies.validation.analysis import SHIFTS
from memshift.studies.validation.grid_analysis import (
    INTERACTION_TERMS,
    GridRun,
    corners_of,
    predict,
)
from memshift.studies.validation.grid_design_analysis import GridWriter, uniform

CORNERS = ("exact", "wrong", "blind", "both")


def interaction_surface(
    reference: GridRun, anchors: Sequence[GridRun], steps: int
) -> dict[str, np.ndarray]:
    """B×D as the identity predicts it for a writer with one error rate e and one overlook rate
    o on every class, per shift, on a `steps` x `steps` lattice over [0, 1]² (rows: o, columns:
    e)."""
    times = reference.times
    corners = corners_of(times, anchors)
    lattice = np.linspace(0.0, 1.0, steps)
    surface = {shift: np.zeros((steps, steps)) for shift in SHIFTS}
    masks = {
        (shift, cell): (times.shift == shift) & (times.system == cell)
        for shift in SHIFTS
        for cell, _ in INTERACTION_TERMS
    }
    for row, overlook in enumerate(lattice):
        for column, error in enumerate(lattice):
            writer = GridWriter("lattice", "drawn", uniform(error), uniform(overlook))
            right, _ = predict(writer, times, corners)
            for shift in SHIFTS:
                surface[shift][row, column] = sum(
                    sign * float(np.mean(right[masks[shift, cell]]))
                    for cell, sign in INTERACTION_TERMS
                    if np.any(masks[shift, cell])
                )
    return surface


@dataclass(frozen=True)
class IdentityTerm:
    """What B×D's identity is built from, for one cell after one shift: the share of its changed
    item-times answered right under each anchor, over those with `chances` delta chances (None:
    a keyed cell, which never reads a delta), and their share of the cell's item-times."""

    shift: str
    cell: str
    chances: int | None
    share: float
    exact: float
    wrong: float
    blind: float
    both: float


def identity_terms(reference: GridRun, anchors: Sequence[GridRun]) -> list[IdentityTerm]:
    """The anchors' outcomes of the cells of B×D, per shift (and per chance count for the
    append-only cells): every writer's predicted B×D is a function of these and its rates."""
    times = reference.times
    corners = corners_of(times, anchors)
    found: list[IdentityTerm] = []
    for shift in SHIFTS:
        for cell, _ in INTERACTION_TERMS:
            mask = (times.shift == shift) & (times.system == cell)
            if not np.any(mask):
                continue
            groups: list[int | None] = [None]
            if np.any(times.from_delta[mask]):
                groups = [int(k) for k in np.unique(times.chances[mask])]
            for chances in groups:
                part = mask if chances is None else mask & (times.chances == chances)
                found.append(
                    IdentityTerm(
                        shift,
                        cell,
                        chances,
                        float(np.sum(part) / np.sum(mask)),
                        *(float(np.mean(getattr(corners, k)[part])) for k in CORNERS),
                    )
                )
    return found


def interaction_from_terms(
    terms: Sequence[IdentityTerm], shift: str, error: float, overlook: float
) -> float:
    """B×D after `shift` for a writer with these rates on every class, from the identity's
    terms alone: each cell's Update summed over its chance groups, then the contrast."""
    signs = dict(INTERACTION_TERMS)
    total = 0.0
    for t in terms:
        if t.shift != shift:
            continue
        q = overlook if not t.chances else overlook**t.chances
        read = (1 - error) * t.exact + error * t.wrong
        missed = (1 - error) * t.blind + error * t.both
        total += signs[t.cell] * t.share * ((1 - q) * read + q * missed)
    return total
