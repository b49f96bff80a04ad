"""The failures table: which calls each scored system's answers depend on, how many failed, the
threshold that marks a system not measured, the report's rendering and the failures gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from analysis.test_costs import call
from memshift import schemas
from memshift.analysis.failures import Failures, counted, failures_table, verdict_line
from memshift.analysis.sqlfiles import text_literal
from memshift.artifacts import write_table
from memshift.report.markdown import Header, render
from memshift.stages import failures_gate
from memshift.vocabulary import AUDITED_PATTERN

SCORED = ("holdmem-d0-source", "holdmem-d1-source", "holdmem-d0-append", "bm25", "bm25+audit")


def scored(system: str, branch: str, world: int = 1) -> dict[str, Any]:
    row: dict[str, Any] = {name: None for name in schemas.SCORES.names}
    row.update(system=system, branch=branch, world=world)
    return row


def study(scores: list[dict[str, Any]], calls: list[dict[str, Any]]) -> duckdb.DuckDBPyConnection:
    """The two tables of `open_study` the failures read, and the macro naming audited systems."""
    con = duckdb.connect(":memory:")
    named = text_literal(f"^{AUDITED_PATTERN}$")
    con.execute(f"CREATE MACRO audited_base(system) AS regexp_extract(system, {named}, 1)")
    con.register("s", pa.Table.from_pylist(scores, schema=schemas.SCORES))
    con.register("c", pa.Table.from_pylist(calls, schema=schemas.CALLS))
    con.execute("CREATE TABLE scores AS SELECT * FROM s")
    con.execute("CREATE TABLE calls AS SELECT * FROM c")
    return con


CALLS = [
    # the pre-fork store: every HoldMem cell of world 1, on every branch
    *[call("holdmem", "writer", "none", 1, failure="invalid_json")] * 2,
    call("holdmem", "writer", "none", 1),
    # the source key's detection: both of its repair arms, on src only
    call("holdmem-source", "writer", "src", 1, failure="truncated"),
    call("holdmem-source", "writer", "del", 1, failure="truncated"),
    call("holdmem-append", "writer", "src", 1),
    *[call(system, "reader", "src", 1) for system in SCORED if system != "bm25+audit"],
    call("holdmem-d1-source", "program", "src", 1, failure="schema_violation"),
    # the audit: its own and bm25's
    call("bm25+audit", "auditor", "src", 1, failure="refusal"),
    # another world's calls serve none of world 1's answers
    call("bm25", "reader", "src", 2, failure="invalid_json"),
    # a native library's own calls, one failed
    call("bm25", "library", "src", 1, failure="library_error", tokens_in=0, tokens_out=0),
    call("bm25", "library", "src", 1, tokens_in=0, tokens_out=0),
]


def rows() -> dict[str, Failures]:
    con = study([scored(s, "src") for s in SCORED], CALLS)
    return {r.system: r for r in counted(con)}


def test_calls_are_attributed_as_the_calls_table_names_their_callers():
    found = rows()
    d0, d1, append = (
        found["holdmem-d0-source"],
        found["holdmem-d1-source"],
        found["holdmem-d0-append"],
    )
    # pre-fork 3 (2 failed) + detection 1 (failed) + its reader 1
    assert (d0.model_calls, d0.model_failed) == (5, 3)
    assert d0.reasons == (("invalid_json", 2), ("truncated", 1))
    # the same, and its own program call
    assert (d1.model_calls, d1.model_failed) == (6, 4)
    assert dict(d1.reasons)["schema_violation"] == 1
    # another detection: the pre-fork store's failures only
    assert (append.model_calls, append.model_failed) == (5, 2)
    bm25, audited = found["bm25"], found["bm25+audit"]
    assert (bm25.model_calls, bm25.model_failed) == (1, 0)
    assert (bm25.library_calls, bm25.library_failed) == (2, 1)
    assert (bm25.calls, bm25.failed, bm25.share) == (3, 1, pytest.approx(1 / 3))
    # the audited system depends on bm25's calls and its own audit
    assert (audited.model_calls, audited.model_failed) == (2, 1)
    assert (audited.library_calls, audited.library_failed) == (2, 1)


def test_a_scored_system_without_calls_has_a_row_and_is_measured():
    con = study([scored("oracle", "none")], [])
    (row,) = failures_table(counted(con), 0.05).to_pylist()
    assert (row["system"], row["calls"], row["failed"], row["share"]) == ("oracle", 0, 0, 0.0)
    assert row["measured"] and row["reasons"] == []


def test_the_threshold_marks_a_system_not_measured_above_it_only():
    row = Failures("bm25", "src", 19, 1, (("invalid_json", 1),), 1, 0)
    assert row.share == 0.05
    assert row.measured(0.05) and not row.measured(0.049)
    table = failures_table([row], 0.049).to_pylist()
    assert table[0]["measured"] is False and table[0]["threshold"] == 0.049


def test_the_verdict_line_names_each_system_not_measured_with_its_share():
    table = failures_table(rows().values(), 0.3).to_pylist()
    line = verdict_line(table)
    assert line is not None
    assert line.startswith("5 systems not measured: more than 30.0% of their calls failed")
    assert "holdmem-d0-source (3 of 5 calls failed, 60.0%, on src)" in line
    assert "bm25 (1 of 3 calls failed, 33.3%, on src)" in line
    assert "holdmem-d0-append (2 of 5 calls failed, 40.0%, on src)" in line
    assert verdict_line(failures_table(rows().values(), 0.7).to_pylist()) is None


def measure_rows(system: str, branch: str, estimate: float) -> list[dict[str, Any]]:
    base = {
        "system": system,
        "branch": branch,
        "item_class": "all",
        "cause": "all",
        "estimate": estimate,
        "low": estimate - 0.1,
        "high": estimate + 0.1,
        "n": 10,
        "worlds": 20,
    }
    return [{**base, "measure": "update"}, {**base, "measure": "stability"}]


def test_the_report_shows_a_system_not_measured_instead_of_its_update_and_warns():
    measures = [*measure_rows("bm25", "src", 0.5), *measure_rows("oracle", "src", 0.9)]
    failures = failures_table(
        [
            Failures("bm25", "src", 20, 20, (("invalid_json", 20),), 3, 3),
            Failures("oracle", "src", 20, 0, (), 0, 0),
        ],
        0.05,
    ).to_pylist()
    header = Header("s", "run", "backend", list(range(20)), 100, 0)
    text = render(header, measures, [], [], 0, failures=failures)
    assert "> **Warning: 1 system not measured.**" in text
    assert "bm25 (23 of 23 calls failed, 100.0%, on source revision)" in text
    update = text[text.index("## Update") : text.index("## Stability")]
    assert "| bm25 | not measured (23 of 23 calls failed) | 100.0 |" in update
    assert "| oracle | 90.0 [80.0, 100.0] | 0.0 |" in update
    stability = text[text.index("## Stability") : text.index("## Premise probes")]
    assert "| bm25 | 50.0 [40.0, 60.0] | 100.0 |" in stability  # the numbers stay there
    section = text[text.index("## Failures") :]
    assert (
        "| bm25 | source revision | 20 | 20 | invalid_json 20 | 3 | 3 | 100.0 | not measured |"
        in (section)
    )
    quiet = render(header, measures, [], [], 0, failures=failures[1:])
    assert "Warning" not in quiet and "not measured (" not in quiet


def write_failures(path: Path, failed: int) -> Path:
    table = failures_table([Failures("mem0", "none", 0, 0, (), 23, failed)], 0.05)
    write_table(table, schemas.FAILURES, path)
    return path


def test_the_gate_writes_its_output_only_when_it_passes(tmp_path):
    out = tmp_path / "gate.txt"
    line = failures_gate.run(write_failures(tmp_path / "f.parquet", 23), out, False)
    assert line is not None and "mem0 (23 of 23 calls failed, 100.0%, on none)" in line
    assert not out.exists()
    assert failures_gate.run(tmp_path / "f.parquet", out, True) == line
    assert "allowed" in out.read_text()
    out.unlink()
    assert failures_gate.run(write_failures(tmp_path / "g.parquet", 1), out, False) is None
    assert out.read_text() == "every system measured\n"
