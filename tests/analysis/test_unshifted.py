"""The interaction without the shift (MemShift Table 21b): shift-caused item-times paired with
the same item-times on the unshifted branch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_measures import maintenance, opened, score

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, register_weights
from memshift.analysis.unshifted import paired_keys, unshifted_table
from memshift.artifacts import write_table
from memshift.errors import MemshiftError

WORLDS = range(1, 7)
ITEMS = [f"i{n:02d}" for n in range(10)]
CELLS = ("holdmem-d0-append", "holdmem-d1-append", "holdmem-d0-source", "holdmem-d1-source")


def log(tmp_path: Path, world: int, branch: str, detection: str) -> Path:
    path = tmp_path / f"w{world}/detections/{branch}/holdmem-{detection}/maintenance.parquet"
    write_table(maintenance([]), schemas.MAINTENANCE, path)
    return path


def build(
    tmp_path: Path,
    right: dict[tuple[str, str], int],
    *,
    moved: int = 4,
    skip: tuple[str, str] | None = None,
    census: bool = True,
) -> tuple[Any, list[int]]:
    """Ten shift-caused item-times per world on src; `right[(branch, cell)]` of them answered
    right; the first `moved` also changed on the unshifted branch; `skip` (cell, item): that
    unshifted answer is missing; without `census` the unshifted branch has only the moved."""
    scores, logs = [], []
    for world in WORLDS:
        for cell in CELLS:
            for n, item in enumerate(ITEMS):
                scores.append(score(item, 1, n < right[("src", cell)], system=cell, world=world))
                changed_unshifted = n < moved
                if (cell, item) == skip or not (census or changed_unshifted):
                    continue
                scores.append(
                    score(
                        item,
                        1,
                        n < right[("none", cell)],
                        system=cell,
                        world=world,
                        branch="none",
                        changed=changed_unshifted,
                        caused_by_shift=False,
                        probe_id=f"none-{item}",
                    )
                )
        logs += [log(tmp_path, world, b, d) for b in ("src", "none") for d in ("append", "source")]
    return opened(tmp_path, scores, logs), list(WORLDS)


RIGHT = {
    ("src", "holdmem-d1-source"): 10,
    ("src", "holdmem-d1-append"): 2,
    ("src", "holdmem-d0-source"): 3,
    ("src", "holdmem-d0-append"): 2,
    ("none", "holdmem-d1-source"): 6,
    ("none", "holdmem-d1-append"): 3,
    ("none", "holdmem-d0-source"): 3,
    ("none", "holdmem-d0-append"): 3,
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_interaction_on_both_branches_and_its_paired_difference(tmp_path: Path, seed: int):
    con, worlds = build(tmp_path, RIGHT)
    resampling = Resampling(draws=200, seed=seed)
    register_weights(con, worlds, [], resampling)
    rows = {
        (r["item_class"], r["quantity"]): r for r in unshifted_table(con, resampling).to_pylist()
    }
    # shifted: (10 - 2) - (3 - 2) = 7 of 10; unshifted: (6 - 3) - (3 - 3) = 3 of 10
    expected = {"shifted": 0.7, "unshifted": 0.3, "difference": 0.4, "moved": 0.4}
    for quantity, value in expected.items():
        row = rows[("all", quantity)]
        assert row["estimate"] == pytest.approx(value), quantity
        assert (row["low"], row["high"]) == pytest.approx((value, value))  # every world alike
        assert row["n"] == 10 * len(WORLDS) and row["worlds"] == len(WORLDS)
        assert rows[("other", quantity)]["estimate"] == pytest.approx(value)
    assert {r["detection"] for r in unshifted_table(con, resampling).to_pylist()} == {"source"}


def test_an_unshifted_answer_missing_for_a_caused_item_time_is_refused(tmp_path: Path):
    con, worlds = build(tmp_path, RIGHT, skip=("holdmem-d0-source", "i07"))
    resampling = Resampling(draws=20)
    register_weights(con, worlds, [], resampling)
    with pytest.raises(MemshiftError, match=r"holdmem-d0-source .*i07 at checkpoint 1"):
        unshifted_table(con, resampling)


def test_without_cells_answering_every_unshifted_item_time_there_is_no_table(tmp_path: Path):
    con, worlds = build(tmp_path, RIGHT, census=False)
    resampling = Resampling(draws=20)
    register_weights(con, worlds, [], resampling)
    assert unshifted_table(con, resampling).num_rows == 0


def test_a_key_pairs_only_when_its_four_cells_answered_every_item_time():
    assert paired_keys(CELLS) == ["source"]
    assert paired_keys([*CELLS, "holdmem-d1-citation", "bm25"]) == ["source"]
    assert paired_keys([*CELLS, "holdmem-d0-citation", "holdmem-d1-citation"]) == [
        "citation",
        "source",
    ]
    assert paired_keys(CELLS[1:]) == []
