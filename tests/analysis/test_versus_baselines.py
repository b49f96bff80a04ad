"""Each system's Update minus the no-store baselines' on the same worlds, per shift, with the
world-bootstrap interval of the paired difference (MemShift F.9, Table 32)."""

from __future__ import annotations

import numpy as np
import pytest
from test_measures import opened, score

from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.versus_baselines import versus_baselines_table
from memshift.report.versus_baselines import section

WORLDS = range(1, 21)


def scores(rate: dict[str, float], seed: int | None) -> list[dict]:
    """Ten changed item-times a world on src and del per system, right with the system's rate:
    drawn per world with `seed`, or (None) the first rate x 10 of them in every world."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in WORLDS:
        for system, p in rate.items():
            for branch in ("src", "del"):
                for i in range(10):
                    right = i < round(10 * p) if seed is None else bool(rng.random() < p)
                    rows.append(score(f"i{i}", 1, right, world=w, system=system, branch=branch,
                                      probe_id=f"w{w}-{branch}-{system}-{i}"))  # fmt: skip
    return rows


def table(
    tmp_path, rows: list[dict], systems: list[str], seed: int, unmeasured=frozenset()
) -> dict:
    con = opened(tmp_path, rows, [])
    resampling = Resampling(draws=300, seed=seed)
    measures.compute(con, resampling)
    found = versus_baselines_table(con, systems, resampling, unmeasured).to_pylist()
    return {(r["system"], r["baseline"], r["branch"]): r for r in found}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_shares_in_every_world_give_the_difference_with_no_spread(tmp_path, seed):
    rate = {"bm25": 0.5, "rag": 0.6, "mine": 0.9}
    found = table(tmp_path, scores(rate, None), list(rate), seed)
    assert set(found) == {("mine", b, br) for b in ("bm25", "rag") for br in ("src", "del")}
    row = found["mine", "bm25", "src"]
    assert (row["update"], row["baseline_update"]) == (pytest.approx(0.9), pytest.approx(0.5))
    assert row["estimate"] == pytest.approx(0.4) == row["low"] == pytest.approx(row["high"])
    assert found["mine", "rag", "del"]["estimate"] == pytest.approx(0.3)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_a_system_far_above_the_baselines_has_an_interval_above_zero_and_its_twin_none(
    tmp_path, seed
):
    rate = {"bm25": 0.5, "rag": 0.55, "better": 0.9}
    rows = scores(rate, seed)
    # a system that answers as bm25 does, item-time by item-time
    rows += [{**r, "system": "alike", "probe_id": r["probe_id"] + "-alike"}
             for r in rows if r["system"] == "bm25"]  # fmt: skip
    found = table(tmp_path, rows, [*rate, "alike"], seed)
    for baseline in ("bm25", "rag"):
        better = found["better", baseline, "src"]
        shares = [np.mean([r["correct"] for r in rows
                           if r["system"] == s and r["branch"] == "src"])
                  for s in ("better", baseline)]  # fmt: skip
        assert better["estimate"] == pytest.approx(shares[0] - shares[1])
        assert better["low"] > 0
    # paired by draw: the same worlds in both, so no draw tells the two apart
    alike = found["alike", "bm25", "src"]
    assert alike["estimate"] == alike["low"] == alike["high"] == 0.0
    # floors and the baselines themselves are not compared
    assert not {k for k in found if k[0] in ("bm25", "rag")}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_side_whose_calls_failed_on_a_shift_is_left_out_there_only(tmp_path, seed):
    rate = {"bm25": 0.5, "rag": 0.6, "mine": 0.9, "yours": 0.3}
    rows = scores(rate, seed)
    every = table(tmp_path / "every", rows, list(rate), seed)
    # too many of "yours" calls failed after the source revision, and of RAG's after a deletion
    failed = {("yours", "src"), ("rag", "del")}
    left = table(tmp_path / "left", rows, list(rate), seed, failed)
    gone = {("yours", b, "src") for b in ("bm25", "rag")} | {
        (s, "rag", "del") for s in ("mine", "yours")
    }
    assert gone < set(every) and set(left) == set(every) - gone
    assert all(left[k] == every[k] for k in left)


def test_the_section_names_the_systems_it_left_out():
    row = dict(system="mine", baseline="bm25", branch="src", update=0.9, baseline_update=0.5,
               estimate=0.4, low=0.3, high=0.5, worlds=20)  # fmt: skip
    text = section([row], ["yours"])
    assert "| source revision | mine | 90.0 | +40.0 pp [+30.0, +50.0] |" in text
    assert text.rstrip().endswith("see Failures): yours.")
    # every system left out: the section still says so, without an empty table
    alone = section([], ["mine", "yours"])
    assert "## Against the no-store baselines" in alone and "| shift |" not in alone
    assert section([], []) == ""
