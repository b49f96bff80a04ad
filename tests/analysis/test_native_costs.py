"""What each native library spent per event it was given: its metered model calls (role
`library-model`) over the record events and stated redefinitions up to each branch's last
checkpoint, and its tokens per event as a share of a Mem0 system's."""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb
import pyarrow as pa
import pytest

from analysis.test_costs import call
from memshift import schemas
from memshift.analysis.native_costs import native_costs_table
from memshift.report.native_costs import section

START = datetime(2026, 7, 1)


def database(calls: list[dict]) -> duckdb.DuckDBPyConnection:
    """Two worlds, branches none and del; each branch has 10 record events and one redefinition
    up to its last checkpoint, and events after it and of other ops that no library is given."""
    con = duckdb.connect(":memory:")
    events, checkpoints = [], []
    for world in (1, 2):
        for branch in ("none", "del"):
            checkpoints += [(world, branch, k, START + timedelta(days=10 * k)) for k in range(3)]
            ops = ["insert"] * 6 + ["update"] * 3 + ["delete", "define", "consent"]
            events += [(world, branch, START + timedelta(days=i), op) for i, op in enumerate(ops)]
            events.append((world, branch, START + timedelta(days=30), "insert"))  # after the last
    con.execute("CREATE TABLE events (world INT, branch VARCHAR, time TIMESTAMP, op VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", events)
    con.execute(
        "CREATE TABLE checkpoint_times (world INT, branch VARCHAR, checkpoint INT, time TIMESTAMP)"
    )
    con.executemany("INSERT INTO checkpoint_times VALUES (?, ?, ?, ?)", checkpoints)
    con.register("c", pa.Table.from_pylist(calls, schema=schemas.CALLS))
    con.execute("CREATE TABLE calls AS SELECT * FROM c")
    return con


def metered(system: str, library: str, route: str, n: int, tokens: tuple[int, int], **kw) -> list:
    return [
        call(system, "library-model", branch, world, item=route, backend=library,
             tokens_in=tokens[0], tokens_out=tokens[1], **kw)
        for world in (1, 2)
        for branch in ("none", "del")
        for _ in range(n)
    ]  # fmt: skip


@pytest.mark.parametrize("per_branch", [1, 3, 7])
def test_calls_and_tokens_per_event_and_against_mem0(per_branch):
    calls = [
        *metered("mem0", "mem0", "chat", 2 * per_branch, (400, 100)),
        *metered("cognee", "cognee", "chat", per_branch, (300, 20)),
        *metered("cognee", "cognee", "embed", 4, (50, 0)),
        *metered("cognee", "cognee", "chat", 1, (0, 0), failure="http_error"),
        # the reader's calls are not the library's
        call("cognee", "reader", "del", 1, tokens_in=9999),
    ]
    rows = {r["system"]: r for r in native_costs_table(database(calls)).to_pylist()}
    assert set(rows) == {"mem0", "cognee"}
    cognee, mem0 = rows["cognee"], rows["mem0"]
    # 2 worlds x 2 branches x 11 events (10 record events and a redefinition)
    assert cognee["events"] == mem0["events"] == 44 and cognee["worlds"] == 2
    assert cognee["chat_calls"] == 4 * (per_branch + 1) and cognee["failed"] == 4
    assert cognee["embed_calls"] == 16 and cognee["embed_tokens"] == 16 * 50
    assert cognee["calls_per_event"] == pytest.approx(4 * (per_branch + 1) / 44)
    assert cognee["tokens_per_event"] == pytest.approx(4 * per_branch * 320 / 44)
    assert mem0["tokens_per_event"] == pytest.approx(4 * 2 * per_branch * 500 / 44)
    assert cognee["versus"] == "mem0"
    assert cognee["tokens_versus"] == pytest.approx(320 / 1000)
    assert mem0["tokens_versus"] == pytest.approx(1.0)
    text = section(list(rows.values()))
    assert "tokens per event / mem0's" in text and "| cognee | cognee | 44 |" in text


def test_without_a_native_system_there_is_no_table_and_without_mem0_no_share():
    assert native_costs_table(database([call("bm25", "reader", "del", 1)])).num_rows == 0
    assert section([]) == ""
    (row,) = native_costs_table(database(metered("memos", "memos", "chat", 1, (10, 1)))).to_pylist()
    assert (row["versus"], row["tokens_versus"]) == (None, None)
    assert "tokens per event / " not in section([row])
