"""The report's model-call table: calls and tokens by caller, role and branch, from call logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import schemas
from memshift.analysis.costs import call_costs
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.report.markdown import calls_table


def call(system: str, role: str, branch: str, world: int, **fields: Any) -> dict[str, Any]:
    row = {name: None for name in schemas.CALLS.names}
    row.update(
        run="rules",
        role=role,
        world=world,
        branch=branch,
        system=system,
        item="person.employer",
        checkpoint=1,
        backend="rules",
        model="rules",
        cache_key="",
        cache_hit=False,
        attempts=1,
        tokens_in=100,
        tokens_out=10,
        latency_ms=0.1,
        finish_reason="stop",
        failure=None,
        detail="",
    )
    row.update(fields)
    return row


def write_log(path: Path, rows: list[dict[str, Any]]) -> Path:
    write_table(pa.Table.from_pylist(rows, schema=schemas.CALLS), schemas.CALLS, path)
    return path


def scores(tmp_path: Path) -> Path:
    path = tmp_path / "scores.parquet"
    write_table(schemas.SCORES.empty_table(), schemas.SCORES, path)
    return path


def test_calls_are_counted_by_caller_role_and_branch(tmp_path: Path) -> None:
    logs = [
        write_log(
            tmp_path / f"w{world}/src/holdmem-source/calls.parquet",
            [call("holdmem-source", "writer", "src", world, tokens_in=200)] * 3,
        )
        for world in (1, 2)
    ]
    logs.append(
        write_log(
            tmp_path / "w1/src/bm25/calls-reader.parquet",
            [
                call("bm25", "reader", "src", 1, cache_hit=True),
                call("bm25", "reader", "src", 1, failure="invalid_json", tokens_out=0),
            ],
        )
    )
    con = open_study(scores(tmp_path), logs)
    rows = {(r["system"], r["role"]): r for r in call_costs(con).to_pylist()}
    writer = rows[("holdmem-source", "writer")]
    assert (writer["calls"], writer["worlds"]) == (6, 2)
    assert (writer["tokens_in_spent"], writer["tokens_out_spent"]) == (1200, 60)
    assert (writer["tokens_in_cached"], writer["tokens_out_cached"]) == (0, 0)
    reader = rows[("bm25", "reader")]
    assert (reader["calls"], reader["cache_hits"], reader["failures"]) == (2, 1, 1)
    # the cache hit's tokens are cached, not spent; the failed call's were spent
    assert (reader["tokens_in_spent"], reader["tokens_out_spent"]) == (100, 0)
    assert (reader["tokens_in_cached"], reader["tokens_out_cached"]) == (100, 10)
    text = calls_table(list(rows.values()))
    assert "| holdmem-source | writer | 3 | 600 | 30 | 0 | 0 | 0 | 0 |" in text  # per world
    assert "| bm25 | reader | 2 | 100 | 0 | 100 | 10 | 1 | 1 |" in text


def test_a_rerun_served_from_the_cache_spends_no_tokens(tmp_path: Path) -> None:
    """The same calls answered by the cache the second time: the tokens move from spent to
    cached, their sum stays."""
    first = [call("bm25", "reader", "src", 1, tokens_in=50 + n) for n in range(3)]
    rerun = [{**row, "cache_hit": True} for row in first]
    tables = []
    for name, rows in (("first", first), ("rerun", rerun)):
        log = write_log(tmp_path / name / "w1/src/bm25/calls-reader.parquet", rows)
        tables.append(call_costs(open_study(scores(tmp_path / name), [log])).to_pylist()[0])
    before, after = tables
    assert (before["tokens_in_spent"], before["tokens_in_cached"]) == (153, 0)
    assert (after["tokens_in_spent"], after["tokens_in_cached"]) == (0, 153)
    assert (after["tokens_out_spent"], after["tokens_out_cached"]) == (0, 30)


def test_a_run_without_call_logs_has_an_empty_table(tmp_path: Path) -> None:
    con = open_study(scores(tmp_path), [])
    assert call_costs(con).num_rows == 0


def test_the_study_database_sums_in_one_order(tmp_path: Path) -> None:
    """With several threads DuckDB adds floating-point sums in the order its threads finish, and
    the main study's report tables then differed between two runs on the same scores."""
    con = open_study(scores(tmp_path), [])
    assert con.execute("SELECT current_setting('threads')").fetchone() == (1,)
