"""What a grid writer's measures should be, item-time by item-time, from its injected rates.

A changed item-time of a HoldMem cell is answered from the newest item its slot serves. A writer
wrong on a share e of its writes and overlooking a share o of what its deltas hold differs from
the reference writer (e = o = 0) in two independent coin flips per write (`simulator/errors.py`):

- **wrong**: the write's value is replaced by a wrong one of the same type. Whether the answer is
  then right is what the anchor writer wrong on every write (e = 1) shows for that item-time: at
  D=0 a wrong value is served, at D=1 the check finds it and recomputation supplies the value.
- **overlooked**: a delta write says "nothing new" and writes no item; the slot's next delta
  starts from its last real write, so every later checkpoint is another chance. An item-time
  whose span (from the gold's last change to the probe) held the reference's first new item at
  checkpoint t has k = c - t + 1 chances before the probe at checkpoint c, and all are overlooked
  with probability q = o^k; then the slot serves what it held before, as the anchor writer that
  overlooks everything (o = 1) shows.

So with the four anchors' outcomes (exact, wrong, blind, both: e and o each 0 or 1) an item-time
is answered right with probability

    (1 - q)·((1 - e)·exact + e·wrong) + q·((1 - e)·blind + e·both)

which is each anchor's outcome at its own corner. Cells that do not write from the delta never
read one, so their blind and both anchors equal exact and wrong and o drops out. An item-time of
the append cell whose span held no new item of the reference's has one chance at most (q = o).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Corners:
    """Each item-time's outcome (1 right, 0 wrong) under the four anchor writers."""

    exact: np.ndarray  # e = 0, o = 0: the reference writer
    wrong: np.ndarray  # e = 1, o = 0
    blind: np.ndarray  # e = 0, o = 1
    both: np.ndarray  # e = 1, o = 1


def overlooked_throughout(
    overlook: np.ndarray, chances: np.ndarray, from_delta: np.ndarray
) -> np.ndarray:
    """q: the probability that every delta of an item-time's span was overlooked."""
    return np.where(from_delta & (chances > 0), overlook ** np.maximum(chances, 1), overlook)


def predicted_right(corners: Corners, error: np.ndarray, overlooked: np.ndarray) -> np.ndarray:
    """The probability that each item-time is answered right."""
    read = (1 - error) * corners.exact + error * corners.wrong
    missed = (1 - error) * corners.blind + error * corners.both
    return (1 - overlooked) * read + overlooked * missed


def predicted_yield(overlook: np.ndarray, chances: np.ndarray) -> np.ndarray:
    """The probability that the delta yielded a new item in each item-time's span: at least one
    of its chances was not overlooked (none where the reference's delta yielded none)."""
    return np.where(chances > 0, 1 - overlook ** np.maximum(chances, 1), 0.0)
