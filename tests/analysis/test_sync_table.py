"""The sync study's table from scored sync probes: accuracy under each delivery, the paired
difference per source and pooled, and the sync x key interaction."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pytest
from test_measures import opened, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.artifacts import write_table
from memshift.studies.sync.analysis import sync_table

T = datetime(2026, 10, 5, 12, 0)


def sync_row(world: int, k: int, source: str, system: str, delivery: str, correct: bool) -> dict:
    return {
        "world": world, "probe_id": f"w{world}-sync-{k}", "source": source, "event_time": T,
        "time": T, "item_id": f"item{k}", "item_class": "task", "touches": k % 2 == 0,
        "gold_status": "answer", "gold_value": '"x"', "system": system, "delivery": delivery,
        "status": "answer", "value": '"x"', "correct": correct,
    }  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sync_minus_ideal_per_source_pooled_and_against_the_key(tmp_path: Path, seed: int):
    rows = []
    for w in range(1, 6):
        for k in range(4):
            source = "calendar" if k < 2 else "email"
            # B=1 loses its first calendar probe under sync, B=0 both calendar probes, BM25 none
            for system, lost in (("holdmem-d1-source", k == 0), ("holdmem-d1-append", k < 2),
                                 ("bm25", False)):  # fmt: skip
                rows.append(sync_row(w, k, source, system, "ideal", True))
                rows.append(sync_row(w, k, source, system, "sync", not lost))
    path = tmp_path / "w" / "sync-scores.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.SYNC_SCORES), schemas.SYNC_SCORES, path)
    con = opened(tmp_path, [score("a", 1, True, world=w, system="bm25") for w in range(1, 6)], [])
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    table = {(r["system"], r["source"], r["quantity"]): r
             for r in sync_table(con, [path], resampling).to_pylist()}  # fmt: skip
    assert table[("holdmem-d1-source", "calendar", "difference")]["estimate"] == -0.5
    assert table[("holdmem-d1-append", "calendar", "difference")]["estimate"] == -1.0
    assert table[("holdmem-d1-append", "all", "difference")]["estimate"] == -0.5
    assert table[("holdmem-d1-source", "calendar", "ideal")]["estimate"] == 1.0
    assert table[("bm25", "email", "sync")]["estimate"] == 1.0
    interaction = table[("sync x key", "calendar", "difference")]
    assert interaction["estimate"] == pytest.approx(0.5) and interaction["n"] == 10
    assert table[("sync x key", "all", "difference")]["estimate"] == pytest.approx(0.25)
    assert table[("sync x key", "email", "difference")]["estimate"] == 0.0
