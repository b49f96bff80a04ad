"""Known against recovered: what a validation study injected and what the measures give back.

A validation study runs the same cells with several writers over the same worlds: a reference
writer (the rule-based one, exact on what its selection holds) and simulated writers whose errors
are known. From the runs' per-world counts this module computes, each with a studentized
world-bootstrap interval (`composite`):

- **writer error**: a writer wrong on a share e of its writes (per item class) answers a re-derived
  item right only where the reference writer does and the error did not strike, so
  e = 1 - r0(writer) / r0(reference), r0 being r of the source-key cell at D=0;
- **missed invalidation**: the leaky control is blind to a known share of the slots, so its m
  recovers that share (and the source key's m is zero);
- **B×D**: the measured interaction against the one the terms predict, (r1 - a1) - (r0 - a0),
  with r from the source-key cells and a from the append-only cells;
- **signs**: B at D=0 and D=1, D at B=0 and B=1, and B×D per shift, beside the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np

from memshift import layout
from memshift.analysis.bootstrap import Resampling, weight_matrix
from memshift.analysis.frame import open_study
from memshift.analysis.sqlfiles import run
from memshift.errors import MemshiftError
from memshift.studies.validation.composite_analysis import Estimate, Sums, studentized
from memshift.vocabulary import LEAKY_BLIND_SHARE, cell_system

SHIFTS = ("src", "def", "del")
CLASSES = ("definition", "other", "free text")
ERROR_GROUPS = {"definition": "definition", "other": "other", "free text": "free_text"}
SOURCE, APPEND, LEAKY = "source", "append", "leaky"
# A known value is tested only against a measure over at least this many item-times: with fewer,
# every world can show the same count and the bootstrap interval collapses to a point.
MIN_ITEM_TIMES = 50

# The paper's contrasts on Update (pp) with Qwen3.5-9B as writer and reader and exact
# recomputation as D=1, over all item classes (MemShift Table 20): B at D=0, B at D=1, D at B=0,
# D at B=1, B×D.
PAPER_CONTRASTS: dict[str, dict[str, float]] = {
    "src": {"B at D=0": 5.6, "B at D=1": 12.9, "D at B=0": 17.4, "D at B=1": 24.7, "B×D": 7.4},
    "def": {"B at D=0": 0.2, "B at D=1": 26.9, "D at B=0": 37.8, "D at B=1": 64.5, "B×D": 26.7},
    "del": {"B at D=0": 49.2, "B at D=1": 54.2, "D at B=0": 9.8, "D at B=1": 14.8, "B×D": 5.0},
}
# Each contrast as signed Update shares of the four cells (detection, repair).
CONTRAST_TERMS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "B at D=0": ((SOURCE, "0", 1), (APPEND, "0", -1)),
    "B at D=1": ((SOURCE, "1", 1), (APPEND, "1", -1)),
    "D at B=0": ((APPEND, "1", 1), (APPEND, "0", -1)),
    "D at B=1": ((SOURCE, "1", 1), (SOURCE, "0", -1)),
    "B×D": ((SOURCE, "1", 1), (APPEND, "1", -1), (SOURCE, "0", -1), (APPEND, "0", 1)),
}


@dataclass(frozen=True)
class Writer:
    """One writer of the study: its run's directory and the error model it was given."""

    name: str
    run_dir: Path
    rates: Mapping[str, float]


@dataclass(frozen=True)
class Check:
    writer: str
    shift: str
    check: str
    item_class: str
    known: float | None
    found: Estimate
    paper: float | None = None

    @property
    def testable(self) -> bool:
        return self.found.low is not None and self.found.n >= MIN_ITEM_TIMES

    @property
    def within(self) -> bool | None:
        """Whether the known value lies in the interval (None where it cannot be tested)."""
        if self.known is None or not self.testable:
            return None
        assert self.found.low is not None and self.found.high is not None
        return bool(self.found.low <= self.known <= self.found.high)

    @property
    def sign_matches(self) -> bool | None:
        if self.paper is None or self.found.estimate is None:
            return None
        return bool(np.sign(self.found.estimate) == np.sign(self.paper))


class Counts:
    """Per-world numerators and denominators of one run's measures, in a shared world order."""

    def __init__(self, con: duckdb.DuckDBPyConnection, worlds: Sequence[int]) -> None:
        rows = con.execute(
            "SELECT system, branch, item_class, measure, world, sum(num), sum(den) "
            "FROM measure_ratios WHERE checkpoint = -1 AND cause = 'all' "
            "GROUP BY ALL"
        ).fetchall()
        self.worlds = list(worlds)
        position = {w: i for i, w in enumerate(self.worlds)}
        self._sums: dict[tuple[str, str, str, str], tuple[np.ndarray, np.ndarray]] = {}
        for system, branch, item_class, measure, world, num, den in rows:
            key = (system, branch, item_class, measure)
            if key not in self._sums:
                self._sums[key] = (np.zeros(len(worlds)), np.zeros(len(worlds)))
            self._sums[key][0][position[world]] = num
            self._sums[key][1][position[world]] = den

    def get(self, system: str, branch: str, measure: str, item_class: str = "all") -> Sums:
        found = self._sums.get((system, branch, item_class, measure))
        if found is None:
            zero = np.zeros(len(self.worlds))
            return Sums(zero, zero)
        return Sums(*found)


def open_run(run_dir: Path) -> duckdb.DuckDBPyConnection:
    """A run's scores and maintenance logs as the analysis database (`frame.open_study`)."""
    scores = layout.run_scores(run_dir)
    if not scores.exists():
        raise MemshiftError(f"{run_dir}: no scores.parquet; run that writer's study first")
    return open_study(scores, layout.maintenance_logs(run_dir))


def load_counts(run_dir: Path, worlds: Sequence[int] | None = None) -> Counts:
    """A run's scores and maintenance logs as per-world counts of every measure."""
    con = open_run(run_dir)
    run(con, "world_counts")
    run(con, "measure_ratios")
    found = [
        w for (w,) in con.execute("SELECT DISTINCT world FROM item_times ORDER BY 1").fetchall()
    ]
    if worlds is not None and sorted(worlds) != found:
        raise MemshiftError(
            f"{run_dir}: its worlds {found} are not the reference run's {sorted(worlds)}"
        )
    return Counts(con, found)


def cell(detection: str, repair: str) -> str:
    return cell_system(detection, repair)


def writer_error(
    ref: Counts, other: Counts, shift: str, item_class: str, weights: np.ndarray
) -> Estimate:
    r0 = cell(SOURCE, "0")
    sums = {
        "writer": other.get(r0, shift, "r", item_class),
        "reference": ref.get(r0, shift, "r", item_class),
    }
    return studentized(
        sums, lambda v: 1 - v["writer"] / v["reference"], weights, bounds=(-np.inf, 1.0)
    )


def missed(counts: Counts, detection: str, shift: str, weights: np.ndarray) -> Estimate:
    sums = {"m": counts.get(cell(detection, "0"), shift, "m")}
    return studentized(sums, lambda v: v["m"], weights, bounds=(0.0, 1.0))


def contrast(counts: Counts, name: str, shift: str, weights: np.ndarray) -> Estimate:
    terms = CONTRAST_TERMS[name]
    sums = {f"{d}{r}": counts.get(cell(d, r), shift, "update") for d, r, _ in terms}
    signs = {f"{d}{r}": sign for d, r, sign in terms}
    reach = float(sum(sign > 0 for sign in signs.values()))
    return studentized(
        sums, lambda v: sum(signs[k] * v[k] for k in signs), weights, bounds=(-reach, reach)
    )


def predicted_interaction(counts: Counts, shift: str, weights: np.ndarray) -> Estimate:
    """(r1 - a1) - (r0 - a0): r of the source-key cells, a of the append-only cells."""
    sums = {
        f"{term}{repair}": counts.get(cell(detection, repair), shift, term)
        for term, detection in (("r", SOURCE), ("a", APPEND))
        for repair in ("0", "1")
    }
    return studentized(
        sums, lambda v: (v["r1"] - v["a1"]) - (v["r0"] - v["a0"]), weights, bounds=(-2.0, 2.0)
    )


def checks(writers: Sequence[Writer], resampling: Resampling) -> list[Check]:
    """Every check of the study, writer by writer (the first is the reference)."""
    if len(writers) < 2:
        raise MemshiftError("a validation study needs a reference writer and at least one other")
    reference = writers[0]
    if reference.rates:
        raise MemshiftError(
            f"the reference writer {reference.name!r} must have no error model: the others' "
            "injected errors are measured against it"
        )
    ref = load_counts(reference.run_dir)
    counts = {reference.name: ref}
    for w in writers[1:]:
        counts[w.name] = load_counts(w.run_dir, ref.worlds)
    weights = weight_matrix(ref.worlds, resampling, "worlds").astype(np.float64)
    found: list[Check] = []
    for w in writers:
        c = counts[w.name]
        for shift in SHIFTS:
            if w is not reference:
                for item_class in CLASSES:
                    known = float(w.rates.get(ERROR_GROUPS[item_class], 0.0))
                    estimate = writer_error(ref, c, shift, item_class, weights)
                    found.append(Check(w.name, shift, "writer error", item_class, known, estimate))
            if w is reference:
                # detection never depends on what the writer derived: once, for the reference
                found.append(
                    Check(
                        w.name, shift, "m, leaky control", "all", LEAKY_BLIND_SHARE,
                        missed(c, LEAKY, shift, weights),
                    )
                )  # fmt: skip
                found.append(
                    Check(
                        w.name, shift, "m, source key", "all", 0.0,
                        missed(c, SOURCE, shift, weights),
                    )
                )  # fmt: skip
            measured = contrast(c, "B×D", shift, weights)
            predicted = predicted_interaction(c, shift, weights)
            found.append(Check(w.name, shift, "B×D predicted by the terms", "all", None, predicted))
            found.append(Check(w.name, shift, "B×D measured", "all", predicted.estimate, measured))
            for name, paper in PAPER_CONTRASTS[shift].items():
                found.append(
                    Check(
                        w.name, shift, f"sign: {name}", "all", None,
                        contrast(c, name, shift, weights), paper / 100,
                    )
                )  # fmt: skip
    return found
