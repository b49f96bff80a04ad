"""The key audit: what a detection key invalidated, counted from its maintenance log."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from test_measures import maintenance, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.analysis.keys import key_audit
from memshift.artifacts import write_table


def audited(
    tmp_path: Path,
    scores: list[dict],
    logs: list[Path],
    *,
    worlds: int,
    checkpoints: int,
    draws: int,
    seed: int = 0,
):
    """The analysis database of `scores` and `logs` with its measures, the checkpoints of the
    src branch of worlds 1..`worlds` and an empty world_items table."""
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    con = open_study(tmp_path / "s.parquet", logs)
    measures.compute(con, Resampling(draws=draws, seed=seed))
    con.execute(
        "CREATE TABLE checkpoint_times AS SELECT w.world::INTEGER AS world, 'src' AS branch, "
        f"k.checkpoint FROM range(1, {worlds + 1}) AS w(world), "
        f"range(0, {checkpoints}) AS k(checkpoint)"
    )
    con.execute("CREATE TABLE world_items (world INTEGER, item_id VARCHAR, item_class VARCHAR)")
    return con


def test_a_keys_invalidations_are_counted_once_per_detection(tmp_path: Path) -> None:
    items = {"a": "other", "b": "other", "d": "definition"}
    scores = []
    for repair in ("0", "1"):  # two cells of one detection: counted once
        system = f"holdmem-d{repair}-source"
        scores += [
            score("a", 2, True, system=system, last_change=2),  # invalidated at 2: found
            score("b", 2, True, system=system, last_change=2),  # never invalidated: missed
            score(
                "d",
                2,
                True,
                system=system,
                changed=False,
                sampled=True,
                last_change=0,
                item_class="definition",
            ),  # unchanged, invalidated at 1
        ]
    scores.append(score("a", 2, True, system="holdmem-d0-append", last_change=2))
    logs = []
    for detection, rows in (
        ("source", [("a", 2, True), ("d", 1, True), ("d", 2, True), ("a", 0, True)]),
        ("append", []),
    ):
        log = tmp_path / f"w1/detections/src/holdmem-{detection}/maintenance.parquet"
        write_table(maintenance(rows), schemas.MAINTENANCE, log)
        logs.append(log)
    con = audited(tmp_path, scores, logs, worlds=1, checkpoints=3, draws=20)
    con.executemany("INSERT INTO world_items VALUES (1, ?, ?)", list(items.items()))
    rows = {(r["detection"], r["item_class"]): r for r in key_audit(con).to_pylist()}
    assert set(rows) == {("source", "all"), ("source", "other"), ("source", "definition")}
    overall = rows[("source", "all")]
    assert (overall["changed"], overall["changed_missed_since_fork"]) == (2, 0.5)
    assert (overall["unchanged"], overall["unchanged_invalidated"]) == (1, 1.0)
    assert overall["changed_missed_low"] is None  # one world: no interval
    # three re-derivations after the fork (the one at the fork does not count), over
    # 3 items x 2 checkpoints after the fork
    assert (overall["rederivations"], overall["item_times_after_fork"]) == (3, 6)
    assert rows[("source", "definition")]["rederived_share"] == 1.0
    assert rows[("source", "other")]["rederived_share"] == 0.25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_shares_carry_the_cells_measure_intervals(tmp_path: Path, seed: int) -> None:
    scores, logs = [], []
    for world in range(1, 7):
        for item in ("a", "b", "c"):
            scores.append(score(item, 1, True, world=world, last_change=1))
        # the key finds a and b; c only in even worlds, so the missed share varies by world
        found = [("a", 1, True), ("b", 1, True)] + ([("c", 1, True)] if world % 2 == 0 else [])
        log = tmp_path / f"w{world}/detections/src/holdmem-source/maintenance.parquet"
        write_table(maintenance(found), schemas.MAINTENANCE, log)
        logs.append(log)
    con = audited(tmp_path, scores, logs, worlds=6, checkpoints=2, draws=200, seed=seed)
    overall = next(r for r in key_audit(con).to_pylist() if r["item_class"] == "all")
    [(estimate, low, high)] = con.execute(
        "SELECT estimate, low, high FROM measure_summary WHERE system = 'holdmem-d0-source' "
        "AND branch = 'src' AND item_class = 'all' AND cause = 'all' AND checkpoint = -1 "
        "AND measure = 'm_from_fork'"
    ).fetchall()
    assert overall["changed_missed_since_fork"] == pytest.approx(estimate) == pytest.approx(1 / 6)
    assert (overall["changed_missed_low"], overall["changed_missed_high"]) == (low, high)
    assert low < 1 / 6 < high
