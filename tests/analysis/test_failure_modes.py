"""The failure-mode measures from scored answers: abstentions where two live sources disagree."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_measures import maintenance, opened, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.failure_modes import failure_modes_table
from memshift.artifacts import write_table


def conflict_scores(world: int, abstained: list[bool]) -> list[dict]:
    """A HoldMem cell's and BM25's answers to conflict item-times of one world, and an unchanged
    contact item-time that counts for neither."""
    rows = []
    for system in ("holdmem-d1-source", "bm25"):
        for k, abstain in enumerate(abstained, start=1):
            rows.append(
                score(
                    f"contact0{k}.city",
                    1,
                    abstain,
                    world=world,
                    branch="conflict",
                    system=system,
                    gold_status="abstain",
                    status="abstain" if abstain and system == "bm25" else "answer",
                )
            )
        rows.append(
            score("contact09.city", 1, True, world=world, branch="conflict", system=system,
                  changed=False, sampled=True)
        )  # fmt: skip
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_conflict_abstention_counts_only_the_conflict_item_times(tmp_path: Path, seed: int) -> None:
    scores, logs = [], []
    pattern = {1: [True, False, False, False], 2: [True, True, False, False]}
    for w in range(1, 6):
        scores += conflict_scores(w, pattern[1 + w % 2])
        log = tmp_path / f"w{w}/conflict/holdmem-source/maintenance.parquet"
        rows = [(f"contact0{k}.city", 1, True) for k in range(1, 10)]
        write_table(maintenance(rows), schemas.MAINTENANCE, log)
        logs.append(log)
    con = opened(tmp_path, scores, logs)
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    rows = {r["system"]: r for r in failure_modes_table(con, resampling).to_pylist()}
    assert rows["holdmem-d1-source"]["estimate"] == 0.0
    bm25 = rows["bm25"]
    # worlds 1, 3 and 5 abstain on two of four item-times, worlds 2 and 4 on one
    assert bm25["n"] == 20 and bm25["numerator"] == 2 + 1 + 2 + 1 + 2
    assert bm25["estimate"] == pytest.approx(bm25["numerator"] / 20)
    assert bm25["low"] < bm25["estimate"] < bm25["high"]
