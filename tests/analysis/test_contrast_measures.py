"""Contrasts on detection and on re-derived accuracy (MemShift Table 18), and m counted from the
fork beside m after the last change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from test_measures import maintenance, maintenance_log, opened, score

from memshift import schemas
from memshift.analysis import contrasts, measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.errors import MemshiftError

WORLDS = range(1, 7)
ITEMS = "abcdefgh"


def cells_study(tmp_path: Path, seed: int) -> Any:
    """Four cells (append/source x D=0/1) on six worlds: the source key invalidates most changed
    items, append none; D=1 answers every detected item right, D=0 some of them."""
    scores: list[dict[str, Any]] = []
    logs: list[Path] = []
    for world in WORLDS:
        found = {i for n, i in enumerate(ITEMS) if (n + world + seed) % 4 != 0}
        for item in ITEMS:
            n = ITEMS.index(item)
            for detection in ("append", "source"):
                detected = detection == "source" and item in found
                for repair in ("0", "1"):
                    stored = (repair == "1" and detected) or (n * world + seed) % 3 == 0
                    # the reader misreads some right stores and guesses some wrong ones right
                    right = stored != ((n + world + int(repair)) % 5 == 0)
                    system = f"holdmem-d{repair}-{detection}"
                    scores.append(
                        score(item, 2, right, system=system, world=world, store_correct=stored)
                    )
        for detection, rows in (
            ("source", [(i, 2, True) for i in sorted(found)]),
            ("append", []),
        ):
            logs.append(maintenance_log(tmp_path, world, detection, rows))
    con = opened(tmp_path, scores, logs)
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    systems = sorted({s["system"] for s in scores})
    return contrasts.compute(con, contrasts.declare(systems), resampling).to_pylist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_d_never_changes_detection_and_b_does(tmp_path: Path, seed: int) -> None:
    rows = [r for r in cells_study(tmp_path, seed) if r["item_class"] == "all"]
    detection = {(r["contrast"], r["detection"]): r for r in rows if r["measure"] == "detection"}
    for key in ("append", "source"):
        d = detection[("D", key)]
        assert (d["estimate"], d["low"], d["high"]) == (0.0, 0.0, 0.0)
    b = detection[("B", "source")]
    assert b["estimate"] > 0 and b["low"] > 0  # the key detects, append-only never does
    assert not [r for r in rows if r["measure"] != "update" and r["in_family"]]
    assert {r["measure"] for r in rows if r["in_family"]} == {"update"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_d_on_rederived_accuracy_pairs_the_items_both_cells_rederived(
    tmp_path: Path, seed: int
) -> None:
    rows = cells_study(tmp_path, seed)
    d = next(
        r
        for r in rows
        if (r["contrast"], r["detection"], r["measure"], r["item_class"])
        == ("D", "source", "rederived_accuracy", "all")
    )
    detected = next(
        r
        for r in rows
        if (r["contrast"], r["detection"], r["measure"], r["item_class"])
        == ("B", "source", "detection", "all")
    )
    assert d["n"] == round(detected["estimate"] * detected["n"])
    assert 0 < d["estimate"] <= 1 and d["low"] <= d["estimate"] <= d["high"]
    # append re-derives nothing, so it has no such pairs
    assert not [
        r
        for r in rows
        if (r["detection"], r["measure"]) == ("append", "rederived_accuracy") and r["n"]
    ]


def test_m_from_the_fork_counts_an_invalidation_before_the_last_change(tmp_path: Path) -> None:
    write_table(
        pa.Table.from_pylist(
            [
                score("a", 4, True, last_change=3),  # invalidated at 2 only
                score("b", 4, True, last_change=3),  # invalidated at 3
                score("c", 4, True, last_change=3),  # never
            ],
            schema=schemas.SCORES,
        ),
        schemas.SCORES,
        tmp_path / "s.parquet",
    )
    log = tmp_path / "w1/detections/src/holdmem-source/maintenance.parquet"
    write_table(maintenance([("a", 2, True), ("b", 3, True)]), schemas.MAINTENANCE, log)
    con = open_study(tmp_path / "s.parquet", [log])
    found = con.execute(
        "SELECT item_id, detected, detected_since_fork FROM item_times ORDER BY 1"
    ).fetchall()
    assert found == [("a", False, True), ("b", True, True), ("c", False, False)]
    measures.compute(con, Resampling(draws=20))
    by_name = {
        r["measure"]: r["estimate"]
        for r in measures.measures_table(con).to_pylist()
        if (r["item_class"], r["cause"]) == ("all", "all")
    }
    assert (by_name["m"], by_name["m_from_fork"]) == (2 / 3, 1 / 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_store_and_reader_parts_add_up_to_the_update_contrast(
    tmp_path: Path, seed: int
) -> None:
    rows = cells_study(tmp_path, seed)
    by = {
        (r["contrast"], r["detection"], r["setting"], r["measure"]): r
        for r in rows
        if r["item_class"] == "all"
    }
    contrasts_seen = {key[:3] for key in by}
    assert ("BxD", "source", "D=1") in contrasts_seen
    for key in contrasts_seen:
        update, store, reader = (by[(*key, m)] for m in ("update", "store", "reader"))
        assert store["estimate"] + reader["estimate"] == pytest.approx(
            update["estimate"], abs=1e-12
        )
        assert store["n"] == reader["n"] == update["n"]
        assert reader["low"] <= reader["estimate"] <= reader["high"]


def test_r_splits_into_the_stored_state_and_the_reader_on_every_group(tmp_path: Path) -> None:
    cells_study(tmp_path, 0)  # the report's identity checks run inside measures.check_identity
    con_rows = _measure_rows(tmp_path)
    groups = {
        (r["system"], r["item_class"], r["cause"]) for r in con_rows if r["measure"] == "r_store"
    }
    assert ("holdmem-d1-source", "all", "all") in groups
    assert measures.check_identity(con_rows) > 0
    broken = [
        {**r, "numerator": r["numerator"] + 1} if r["measure"] == "u" else r for r in con_rows
    ]
    with pytest.raises(MemshiftError, match="store/reader counts do not add up"):
        measures.check_identity(broken)


def _measure_rows(tmp_path: Path) -> list[dict[str, Any]]:
    logs = sorted(tmp_path.glob("w*/detections/src/*/maintenance.parquet"))
    con = open_study(tmp_path / "s.parquet", logs)
    measures.compute(con, Resampling(draws=20))
    return measures.measures_table(con).to_pylist()
