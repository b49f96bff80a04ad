"""A run's changed item-times, one row each, in one order: what the validation grid compares.

The grid sets the runs of several writers over the same worlds item-time by item-time, so every
run must hold the same item-times and detect the same ones (detection never depends on what the
writer derived: a key is built from the records and the definition, not from the value)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memshift.analysis.sqlfiles import sql
from memshift.errors import MemshiftError
from memshift.studies.validation.analysis import open_run

GROUPS = {"definition": "definition", "other": "other", "free text": "free_text"}


@dataclass(frozen=True)
class ItemTimes:
    """Parallel arrays, one entry per changed item-time of a HoldMem cell after a shift."""

    world: np.ndarray
    shift: np.ndarray
    system: np.ndarray
    probe: np.ndarray
    group: np.ndarray  # the error model's item group (definition, other, free_text)
    from_delta: np.ndarray  # the cell writes from the delta (append-only)
    detected: np.ndarray
    right: np.ndarray
    yielded: np.ndarray
    chances: np.ndarray  # the reference's delta chances before the probe (0: none yielded)

    def __len__(self) -> int:
        return len(self.probe)


def load_item_times(run_dir: Path) -> ItemTimes:
    con = open_run(run_dir)
    rows = con.execute(sql("grid_item_times")).fetchnumpy()
    first = rows["first_yield"]
    checkpoint = rows["checkpoint"].astype(np.int64)
    has_first = ~np.ma.getmaskarray(first) if np.ma.isMaskedArray(first) else ~np.isnan(first)
    chances = np.where(has_first, checkpoint - np.ma.filled(first, 0).astype(np.int64) + 1, 0)
    return ItemTimes(
        world=rows["world"].astype(np.int64),
        shift=rows["branch"].astype(str),
        system=rows["system"].astype(str),
        probe=rows["probe_id"].astype(str),
        group=np.array([GROUPS[c] for c in rows["item_class"]], dtype=str),
        from_delta=rows["from_delta"].astype(bool),
        detected=rows["detected"].astype(bool),
        right=rows["correct"].astype(bool),
        yielded=rows["yielded"].astype(bool),
        chances=chances.astype(np.int64),
    )


def check_aligned(reference: ItemTimes, other: ItemTimes, name: str) -> None:
    """Refuse a run whose item-times or detections differ from the reference run's."""
    same = (
        len(reference) == len(other)
        and np.array_equal(reference.world, other.world)
        and np.array_equal(reference.shift, other.shift)
        and np.array_equal(reference.system, other.system)
        and np.array_equal(reference.probe, other.probe)
    )
    if not same:
        raise MemshiftError(
            f"{name}: its changed item-times are not the reference run's; run every writer of "
            "the grid on the same worlds, branches and cells"
        )
    if not np.array_equal(reference.detected, other.detected):
        moved = int(np.sum(reference.detected != other.detected))
        raise MemshiftError(
            f"{name}: {moved} item-times are detected differently from the reference run; a "
            "writer's errors must not change what its keys detect"
        )
