"""The export table: an imported memory beside the cell it was exported from, with the
difference under the world bootstrap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from test_measures import maintenance, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.studies.export import analysis as export

CELL, EXT, NOEXT = "holdmem-d1-source", "pm-d1-source-ext", "pm-d1-source-noext"
WORLDS = range(1, 9)
ITEMS = "abcdef"


def stale(world: int, item: str) -> bool:
    """Which item-times the cell invalidates (and then answers right): most, varying by world."""
    return (world + ITEMS.index(item)) % 3 != 0


def study(tmp_path: Path, resampling: Resampling) -> Any:
    scores: list[dict[str, Any]] = []
    logs: list[Path] = []
    for world in WORLDS:
        for item in ITEMS:
            found = stale(world, item)
            wrong_when_missed = (world * 7 + ITEMS.index(item)) % 4 != 0
            right = found or not wrong_when_missed
            for system in (CELL, EXT):
                scores.append(score(item, 1, right, system=system, world=world))
            # without the keys nothing is invalidated, so only what the fork's statement got
            # right stays right
            scores.append(score(item, 1, not wrong_when_missed, system=NOEXT, world=world))
        detected = [(i, 1, True) for i in ITEMS if stale(world, i)]
        log = tmp_path / f"w{world}/detections/src/holdmem-source/maintenance.parquet"
        write_table(maintenance(detected), schemas.MAINTENANCE, log)
        logs.append(log)
        for system, rows in ((EXT, detected), (NOEXT, [])):
            path = tmp_path / f"w{world}/src/{system}/invalidations.parquet"
            table = pa.Table.from_pylist(
                [
                    {"item_id": i, "checkpoint": k, "invalidated": v, "reason": ""}
                    for i, k, v in rows
                ],
                schema=schemas.INVALIDATIONS,
            )
            write_table(table, schemas.INVALIDATIONS, path)
            logs.append(path)
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    con = open_study(tmp_path / "s.parquet", logs)
    measures.compute(con, resampling)
    systems = [CELL, EXT, NOEXT]
    return export.export_table(con, export.pairs(systems), resampling).to_pylist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_with_the_keys_every_difference_is_exactly_zero(tmp_path: Path, seed: int) -> None:
    rows = study(tmp_path, Resampling(draws=200, seed=seed))
    ext = [r for r in rows if r["system"] == EXT]
    assert {r["measure"] for r in ext} == {"update", "m", "r", "a"}  # no unchanged item-times
    for r in ext:
        assert (r["diff_vs_original"], r["diff_low"], r["diff_high"]) == (0.0, 0.0, 0.0)
        assert r["estimate"] == r["original_estimate"] and r["cell"] == CELL and r["arm"] == "ext"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_without_the_keys_m_is_one_and_the_interval_holds_the_difference(
    tmp_path: Path, seed: int
) -> None:
    rows = {
        r["measure"]: r
        for r in study(tmp_path, Resampling(draws=200, seed=seed))
        if r["system"] == NOEXT
    }
    m = rows["m"]
    assert m["estimate"] == 1.0 and m["arm"] == "noext"
    assert m["diff_vs_original"] == pytest.approx(1.0 - m["original_estimate"])
    assert 0 < m["diff_low"] <= m["diff_vs_original"] <= m["diff_high"] <= 1
    update = rows["update"]
    assert update["estimate"] == rows["a"]["estimate"]  # nothing detected: Update = a
    assert update["diff_high"] < 0  # the cell's repairs are lost without the keys
    assert "r" not in rows  # no item-time was re-derived: r has no estimate
