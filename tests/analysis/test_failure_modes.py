"""The failure-mode measures from scored answers: abstentions where two live sources disagree."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_measures import CELL, maintenance, opened, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.failure_modes import failure_modes_table
from memshift.artifacts import write_table
from memshift.report.failure_modes import section


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
        log = tmp_path / f"w{w}/detections/conflict/holdmem-source/maintenance.parquet"
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


def held(world: int, branch: str, system: str, k: int, **fields) -> dict:
    return score(
        f"item{k}",
        1 + k % 3,
        fields.pop("correct", False),
        world=world,
        branch=branch,
        system=system,
        kind="held",
        changed=False,
        probe_id=f"w{world}-{branch}-{system}-{k}-held",
        **fields,
    )


def failure_rows(tmp_path: Path, scores: list[dict], seed: int) -> dict:
    """The failure-mode table's rows by (system, quantity), with an empty invalidation log for
    every HoldMem detection scored."""
    logs = []
    for world, branch, system in sorted({(s["world"], s["branch"], s["system"]) for s in scores}):
        if system.startswith("holdmem-d"):
            detection = f"holdmem-{system.split('-')[2]}"
            log = tmp_path / f"w{world}/detections/{branch}/{detection}/maintenance.parquet"
            write_table(maintenance([]), schemas.MAINTENANCE, log)
            logs.append(log)
    con = opened(tmp_path, scores, sorted(set(logs)))
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    rows = failure_modes_table(con, resampling).to_pylist()
    return {(r["system"], r["quantity"]): r for r in rows}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_consent_probe_counts_once_as_a_leak_or_an_over_block(tmp_path: Path, seed: int):
    scores = []
    for w in range(1, 6):
        # three blocked item-times: B=0 answers all, B=1 refuses the first, BM25 the first two
        # (BM25 abstains on the third: it found nothing in the scopes left, not a leak)
        for k in range(3):
            scores.append(held(w, "cons", "holdmem-d1-append", k, gold_status="blocked"))
            status = "blocked" if k == 0 else "answer"
            scores.append(held(w, "cons", "holdmem-d1-source", k, gold_status="blocked",
                               status=status))  # fmt: skip
            status = "blocked" if k < 2 else "abstain"
            scores.append(held(w, "cons", "bm25", k, gold_status="blocked", status=status))
        # two answerable ones: B=1 refuses the first in worlds 1-2 (a read set wider than the
        # dependencies), nobody else refuses any
        for k in range(3, 5):
            status = "blocked" if k == 3 and w <= 2 else "answer"
            scores.append(held(w, "cons", "holdmem-d1-source", k, status=status))
            scores.append(held(w, "cons", "holdmem-d1-append", k, gold_status="abstain",
                               status="abstain"))  # fmt: skip
        # a direct probe of the same branch counts for neither
        scores.append(score("item9", 1, True, world=w, branch="cons", gold_status="blocked"))
    rows = failure_rows(tmp_path, scores, seed)
    assert rows[("holdmem-d1-append", "leak")]["estimate"] == 1.0
    assert rows[("holdmem-d1-append", "leak")]["n"] == 15
    assert rows[("holdmem-d1-append", "over_block")]["estimate"] == 0.0
    b1 = rows[("holdmem-d1-source", "leak")]
    assert b1["numerator"] == 10 and b1["n"] == 15
    over = rows[("holdmem-d1-source", "over_block")]
    assert over["numerator"] == 2 and over["n"] == 10
    assert over["low"] <= over["estimate"] <= over["high"]
    assert rows[("bm25", "leak")]["estimate"] == 0.0
    assert (CELL, "leak") not in rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unstated_carryover_beside_its_gold_bound(tmp_path: Path, seed: int):
    scores = []
    for w in range(1, 6):
        for k in range(4):
            # the old definition's value equals the new gold on item-time 0 only
            caused = k != 0
            for system, right in (("bm25", k == 0), ("oracle", True)):
                scores.append(held(w, "undef", system, k, correct=right, caused_by_shift=caused,
                                   item_class="definition"))  # fmt: skip
    rows = failure_rows(tmp_path, scores, seed)
    assert rows[("bm25", "undef_bound")]["estimate"] == pytest.approx(0.25)
    assert rows[("oracle", "undef_bound")]["estimate"] == pytest.approx(0.25)
    assert rows[("bm25", "undef_carryover")]["estimate"] == pytest.approx(0.25)
    assert rows[("oracle", "undef_carryover")]["estimate"] == 1.0
    assert rows[("bm25", "undef_beyond_bound")]["estimate"] == 0.0
    assert rows[("oracle", "undef_beyond_bound")]["estimate"] == pytest.approx(0.75)
    text = section(list(rows.values()))
    assert "## Unstated redefinition" in text and "| oracle | 20 | 100.0" in text
    assert "beyond the bound (%)" in text
