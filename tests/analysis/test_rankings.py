"""Spearman's rank correlation between the systems' rankings after two shifts, with its
world-bootstrap interval (MemShift §7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from analysis.test_measures import opened, score
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.rankings import rankings_table, ranks, spearman
from memshift.report.rankings import section

SYSTEMS = ["bm25", "rag", "oracle", "mine", "yours"]
WORLDS = range(1, 21)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rho_is_the_textbook_formula_without_ties_and_uses_mean_ranks_with_them(seed):
    rng = np.random.default_rng(seed)
    n = 9
    x, y = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
    d = ranks(x) - ranks(y)
    assert spearman(x, y) == pytest.approx(1 - 6 * (d * d).sum() / (n * (n * n - 1)))
    assert list(ranks(np.array([3.0, 1.0, 3.0, 2.0]))) == [3.5, 1.0, 3.5, 2.0]
    # a ranking without spread correlates with nothing
    assert np.isnan(spearman(np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])))
    rows = rng.random((4, 6))
    assert np.allclose(spearman(rows, -rows), -1.0)


def scores(rate: dict[tuple[str, str], float], seed: int | None) -> list[dict]:
    """Ten changed item-times a world on src and def and ten unchanged (sampled) on del per
    system, each right with the system's rate on that branch: drawn per world with `seed`, or
    (None) the first rate x 10 of them in every world."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in WORLDS:
        for k, system in enumerate(SYSTEMS):
            for branch in ("src", "def", "del"):
                p = rate[system, branch]
                for i in range(10):
                    right = i < round(10 * p) if seed is None else bool(rng.random() < p)
                    rows.append(
                        score(f"i{i}", 1, right, world=w, system=system, branch=branch,
                              probe_id=f"w{w}-{branch}-{k}-{i}", changed=branch != "del",
                              sampled=branch == "del")
                    )  # fmt: skip
    return rows


def table(tmp_path: Path, rows: list[dict], seed: int) -> dict[tuple[str, str], dict]:
    con = opened(tmp_path, rows, [])
    resampling = Resampling(draws=300, seed=seed)
    measures.compute(con, resampling)
    return keyed(rankings_table(con, SYSTEMS, resampling))


def keyed(found: pa.Table) -> dict[tuple[str, str], dict]:
    return {(r["group"], r["second"]): r for r in found.to_pylist()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ranking_kept_after_the_shift_gives_one_and_a_reversed_one_minus_one(tmp_path, seed):
    # Update after src and def rises with the system's place; Stability after del falls with it
    rate = {(s, b): 0.1 + 0.2 * k if b != "del" else 0.9 - 0.2 * k
            for k, s in enumerate(SYSTEMS) for b in ("src", "def", "del")}  # fmt: skip
    # the same share right in every world: no draw of the worlds swaps two systems
    found = table(tmp_path, scores(rate, None), seed)
    kept = found["all systems", "update def"]
    assert (kept["rho"], kept["systems"], kept["worlds"]) == (pytest.approx(1.0), 5, 20)
    assert kept["low"] == pytest.approx(1.0) and kept["high"] == pytest.approx(1.0)
    assert found["all systems", "stability del"]["rho"] == pytest.approx(-1.0)
    # no HoldMem cell among them: that group is left out, the others equal all systems
    assert ("HoldMem cells", "update def") not in found
    assert found["the other systems", "update def"]["rho"] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(10))
def test_the_estimate_ranks_the_pooled_measures_and_the_interval_holds_it(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    rate = {(s, b): float(rng.uniform(0.2, 0.8)) for s in SYSTEMS for b in ("src", "def", "del")}
    rows = scores(rate, seed)
    found = table(tmp_path, rows, seed)

    def pooled(branch: str) -> np.ndarray:
        return np.array(
            [
                np.mean([r["correct"] for r in rows if r["system"] == s and r["branch"] == branch])
                for s in SYSTEMS
            ]
        )

    for second, branch in (("update def", "def"), ("stability del", "del")):
        row = found["all systems", second]
        assert row["rho"] == pytest.approx(float(spearman(pooled("src"), pooled(branch))))
        assert -1.0 <= row["low"] <= row["rho"] <= row["high"] <= 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_system_whose_calls_failed_on_a_branch_is_left_out_of_the_rankings_it_enters(
    tmp_path, seed
):
    rng = np.random.default_rng(300 + seed)
    rate = {(s, b): float(rng.uniform(0.2, 0.8)) for s in SYSTEMS for b in ("src", "def", "del")}
    con = opened(tmp_path, scores(rate, seed), [])
    resampling = Resampling(draws=300, seed=seed)
    measures.compute(con, resampling)
    every = keyed(rankings_table(con, SYSTEMS, resampling))
    # too many of "yours" calls failed on the redefinition branch
    left = keyed(rankings_table(con, SYSTEMS, resampling, {("yours", "def")}))
    without = keyed(rankings_table(con, [s for s in SYSTEMS if s != "yours"], resampling))
    for group in ("all systems", "the other systems"):
        # ranked against def: as if the system had not run, and named
        found, alone = left[group, "update def"], without[group, "update def"]
        assert found["left_out"] == ["yours"] and found["systems"] == 4
        assert {k: found[k] for k in ("rho", "low", "high")} == {
            k: alone[k] for k in ("rho", "low", "high")
        }
        # ranked against del, where it was measured: kept
        assert left[group, "stability del"] == {**every[group, "stability del"], "left_out": []}
    assert every["all systems", "update def"]["systems"] == 5


def test_too_few_systems_measured_leave_the_row_without_rho_and_the_report_says_why(tmp_path):
    rate = {(s, b): 0.1 + 0.2 * k for k, s in enumerate(SYSTEMS) for b in ("src", "def", "del")}
    con = opened(tmp_path, scores(rate, 0), [])
    resampling = Resampling(draws=100, seed=0)
    measures.compute(con, resampling)
    failed = {("bm25", "src"), ("rag", "src"), ("oracle", "def")}
    rows = rankings_table(con, SYSTEMS, resampling, failed).to_pylist()
    found = {(r["group"], r["second"]): r for r in rows}
    short = found["all systems", "update def"]
    assert (short["systems"], short["rho"], short["low"]) == (2, None, None)
    assert short["left_out"] == ["bm25", "oracle", "rag"]
    assert found["all systems", "stability del"]["systems"] == 3
    text = section(rows)
    assert (
        "| Update after a redefinition | all systems | 2 | — (fewer than 3 systems measured) |"
        in (text)
    )
    assert "Left out as not measured on a branch compared" in text
    assert text.rstrip().endswith("bm25, oracle, rag.")
    assert "Left out" not in section(rankings_table(con, SYSTEMS, resampling).to_pylist())
