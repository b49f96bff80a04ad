"""The cost model: every part charged from the call logs it belongs to, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from test_costs import call, write_log
from test_measures import maintenance_log

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.cost_model import PARTS, cost_parts, costs_table
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table

WORLDS = (1, 2, 3, 4, 5)
SYSTEMS = ("holdmem-d1-source", "holdmem-d0-source", "bm25", "bm25+audit", "oracle")


def score(world: int, system: str, index: int) -> dict[str, Any]:
    row = {name: None for name in schemas.SCORES.names}
    row.update(
        probe_id=f"p{index}",
        world=world,
        branch="src",
        system=system,
        checkpoint=1,
        item_id="person.employer",
        item_class="other",
        kind="direct",
        changed=False,
        caused_by_shift=False,
        clock_alone=False,
        sampled=True,
        gold_status="answer",
        status="answer",
        correct=True,
    )
    return row


def study(tmp_path: Path, queries: int = 4) -> tuple[Path, list[Path]]:
    rows = [score(w, s, i) for w in WORLDS for s in SYSTEMS for i in range(queries)]
    path = tmp_path / "scores.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.SCORES), schemas.SCORES, path)
    logs = []
    for w in WORLDS:
        logs.append(maintenance_log(tmp_path, w, "source", [("person.employer", 1, False)]))
        audits = tmp_path / f"w{w}/audit/src/bm25+audit/answer-audits.parquet"
        write_table(schemas.AUDITS.empty_table(), schemas.AUDITS, audits)
        logs.append(audits)
        scale = w  # tokens grow with the world, so worlds differ
        logs += [
            write_log(
                tmp_path / f"w{w}/calls-prefork.parquet",
                [call("holdmem", "writer", "none", w, checkpoint=0, tokens_in=1000 * scale)],
            ),
            write_log(
                tmp_path / f"w{w}/src/holdmem-source/calls.parquet",
                [call("holdmem-source", "writer", "src", w, tokens_in=300, tokens_out=20)] * 2
                + [call("holdmem-source", "auditor", "src", w, tokens_in=7, tokens_out=1)],
            ),
            write_log(
                tmp_path / f"w{w}/src/holdmem-d1-source/calls-programs.parquet",
                [call("holdmem-d1-source", "program", "src", w, tokens_in=50, tokens_out=5)],
            ),
            # another branch's calls are not this branch's cost
            write_log(
                tmp_path / f"w{w}/del/holdmem-source/calls.parquet",
                [call("holdmem-source", "writer", "del", w, tokens_in=99_999)],
            ),
            write_log(
                tmp_path / f"w{w}/audit/src/bm25+audit/calls-auditor.parquet",
                [call("bm25+audit", "auditor", "src", w, tokens_in=400, tokens_out=40)],
            ),
        ]
        for system in ("holdmem-d1-source", "holdmem-d0-source", "bm25", "oracle"):
            logs.append(
                write_log(
                    tmp_path / f"w{w}/src/{system}/calls-reader.parquet",
                    [call(system, "reader", "src", w, tokens_in=100 * scale, tokens_out=10)]
                    * queries,
                )
            )
    return path, logs


def parts_of(tmp_path: Path) -> dict[tuple[int, str, str], int]:
    con = open_study(*study(tmp_path))
    cost_parts(con)
    return {
        (w, s, p): t
        for w, s, p, t in con.execute(
            "SELECT world, system, part, tokens FROM cost_parts"
        ).fetchall()
    }


def test_each_part_comes_from_its_own_calls(tmp_path: Path) -> None:
    parts = parts_of(tmp_path)
    for w in WORLDS:
        cell = {p: parts[(w, "holdmem-d1-source", p)] for p in PARTS}
        assert cell == {
            "ingestion": 1000 * w + 10,
            "maintenance": 2 * 320,
            "programs_audits": 55 + 8,
            "serving_in": 4 * 100 * w,
            "serving_out": 4 * 10,
        }
        # the D=0 cell shares the store and the detection, not the D=1 cell's programs
        assert parts[(w, "holdmem-d0-source", "programs_audits")] == 8
        assert parts[(w, "holdmem-d0-source", "serving_in")] == 400 * w


def test_retrieval_without_a_store_has_no_write_parts_and_an_audit_adds_its_calls(
    tmp_path: Path,
) -> None:
    parts = parts_of(tmp_path)
    for w in WORLDS:
        for system in ("bm25", "oracle"):
            assert [parts[(w, system, p)] for p in PARTS[:3]] == [0, 0, 0]
        assert parts[(w, "bm25+audit", "programs_audits")] == 440
        assert parts[(w, "bm25+audit", "serving_in")] == parts[(w, "bm25", "serving_in")]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tokens_per_query_pool_the_worlds_and_the_ratio_compares_stored_with_no_store(
    tmp_path: Path, seed: int
) -> None:
    con = open_study(*study(tmp_path))
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    rows = {(r["system"], r["part"]): r for r in costs_table(con, resampling).to_pylist()}
    queries = 4 * len(WORLDS)
    cell_total = sum(1000 * w + 10 + 640 + 63 + 400 * w + 40 for w in WORLDS)
    bm25_total = sum(400 * w + 40 for w in WORLDS)
    total = rows[("holdmem-d1-source", "total")]
    assert (total["tokens"], total["queries"]) == (cell_total, queries)
    assert total["estimate"] == pytest.approx(cell_total / queries)
    assert total["low"] < total["estimate"] < total["high"]  # worlds differ
    assert sum(rows[("holdmem-d1-source", p)]["tokens"] for p in PARTS) == cell_total
    ratio = rows[("holdmem-d1-source/bm25", "ratio")]
    assert ratio["estimate"] == pytest.approx(cell_total / bm25_total)
    assert ratio["low"] <= ratio["estimate"] <= ratio["high"]
    assert ratio["tokens"] is None and ratio["queries"] is None  # products of two systems
