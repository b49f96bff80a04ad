"""The four diagnostic tests on small tables whose outcome is known."""

from __future__ import annotations

from datetime import datetime

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from memshift.analysis import diagnostics
from memshift.analysis.bootstrap import Resampling, register_weights
from memshift_tools.bench.simulated import OTHER, Population, item_times, simulate

RESAMPLING = Resampling(draws=400, seed=1)


def paired_systems(worlds: int, per_world: int, accuracy: dict[str, float]) -> pa.Table:
    """Before-shift probes on the unshifted branch, every system answering the same probes."""
    rng = np.random.default_rng(0)
    base = item_times(simulate(Population(), (per_world,), 1, worlds, np.random.default_rng(1)))
    base = base.filter(pc.equal(base["system"], OTHER))
    tables = []
    for system, share in accuracy.items():
        correct = rng.random(base.num_rows) < share
        table = base.set_column(
            base.schema.get_field_index("system"), "system", pa.array([system] * base.num_rows)
        )
        table = table.set_column(
            table.schema.get_field_index("correct"), "correct", pa.array(correct)
        )
        table = table.set_column(
            table.schema.get_field_index("branch"), "branch", pa.array(["none"] * base.num_rows)
        )
        table = table.set_column(
            table.schema.get_field_index("before_shift"),
            "before_shift",
            pa.array(np.ones(base.num_rows, bool)),
        )
        tables.append(table)
    return pa.concat_tables(tables)


def database(table: pa.Table) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    con.register("simulated", table)
    con.execute("CREATE TABLE item_times AS SELECT * FROM simulated")
    worlds = [w for (w,) in con.execute("SELECT DISTINCT world FROM item_times").fetchall()]
    register_weights(con, worlds, [], RESAMPLING)
    return con


def test_utility_floor_passes_near_the_oracle_and_fails_far_below_it() -> None:
    con = database(paired_systems(20, 60, {"oracle": 0.95, "near": 0.95, "far": 0.70}))
    rows = {
        r["system"]: r
        for r in diagnostics.utility_floor(con, ["far", "near", "oracle"], RESAMPLING)
    }
    assert rows["near"]["passed"] is True
    assert rows["far"]["passed"] is False
    assert rows["far"]["estimate"] == pytest.approx(-0.25, abs=0.05)


def test_a_margin_the_definition_items_make_fails_without_them() -> None:
    """A system right on every definition item and ten points below the oracle context on the
    other items passes the floor on every item and fails it on the others (MemShift F.6)."""
    table = paired_systems(20, 60, {"oracle": 0.9, "carried": 0.9})
    block = table.num_rows // 2
    is_definition = np.arange(table.num_rows) % block % 2 == 0
    table = table.set_column(
        table.schema.get_field_index("item_class"),
        "item_class",
        pa.array(np.where(is_definition, "definition", "other")),
    )
    oracle = table["correct"].to_numpy(zero_copy_only=False)[:block]
    # the carried system: the oracle's answers, but right on every definition item and wrong on
    # every tenth other item
    position = np.arange(block)
    carried = np.where(is_definition[:block], True, oracle & (position % 20 != 1))
    correct = np.concatenate([oracle, carried])
    table = table.set_column(table.schema.get_field_index("correct"), "correct", pa.array(correct))
    con = database(table)
    (every,) = diagnostics.utility_floor(con, ["carried", "oracle"], RESAMPLING)
    (others,) = diagnostics.utility_floor(
        con, ["carried", "oracle"], RESAMPLING, without_definitions=True
    )
    assert every["test"] == diagnostics.UTILITY_FLOOR and every["passed"] is True
    assert others["test"] == diagnostics.UTILITY_FLOOR_WITHOUT_DEFINITIONS
    assert others["passed"] is False
    assert others["estimate"] == pytest.approx(-0.09, abs=0.03)


def test_utility_floor_without_an_oracle_says_so() -> None:
    con = database(paired_systems(3, 5, {"a": 0.5}))
    (row,) = diagnostics.utility_floor(con, ["a"], RESAMPLING)
    assert row["passed"] is None and row["note"] == "no oracle context"


def test_leaving_is_equivalence_within_three_points() -> None:
    table = paired_systems(20, 60, {"original": 0.8})
    table = table.set_column(
        table.schema.get_field_index("changed"), "changed", pa.array(np.ones(table.num_rows, bool))
    )
    copy = table.set_column(
        table.schema.get_field_index("system"), "system", pa.array(["copy"] * table.num_rows)
    )
    noisy = copy.set_column(
        copy.schema.get_field_index("system"), "system", pa.array(["noisy"] * table.num_rows)
    )
    noisy = noisy.set_column(
        noisy.schema.get_field_index("correct"),
        "correct",
        pa.array(np.random.default_rng(4).random(table.num_rows) < 0.6),
    )
    con = database(pa.concat_tables([table, copy, noisy]))
    assert diagnostics.leaving(con, "original", "copy", RESAMPLING)["passed"] is True
    assert diagnostics.leaving(con, "original", "noisy", RESAMPLING)["passed"] is False


def _cost_database(worlds: int) -> duckdb.DuckDBPyConnection:
    """Two systems served 10 and 900 evidence tokens per query, where a full re-read is 1500."""
    table = paired_systems(worlds, 2, {"small": 1.0, "large": 1.0})
    tokens = [10 if s == "small" else 900 for s in table["system"].to_pylist()]
    table = table.append_column("evidence_tokens", pa.array(tokens, pa.int32()))
    con = database(table)
    t0, t1 = datetime(2026, 1, 1), datetime(2026, 2, 1)
    con.execute(
        "CREATE TABLE checkpoint_times AS SELECT DISTINCT world, branch, checkpoint, "
        "$t::TIMESTAMP AS time FROM item_times",
        {"t": t1},
    )
    con.execute(
        "CREATE TABLE events (world INTEGER, branch VARCHAR, time TIMESTAMP, op VARCHAR, "
        "object_id VARCHAR, source VARCHAR, revision INTEGER, tokens INTEGER)"
    )
    for world in range(worlds):
        con.executemany(
            "INSERT INTO events VALUES (?, 'none', ?, ?, ?, ?, ?, ?)",
            [
                (world, t0, "insert", "r1", "email", 1, 500),
                (world, t0, "insert", "r2", "email", 1, 700),
                (world, t1, "update", "r2", "email", 2, 1000),  # the newest revision counts
                (world, t0, "insert", "r3", "email", 1, 300),
                (world, t1, "delete", "r3", "email", 2, 0),  # a deleted record costs nothing
                (world, t0, "insert", "c1", "calendar", 1, 9999),  # not a source of the item
            ],
        )
    items = {i for (i,) in con.execute("SELECT DISTINCT item_id FROM item_times").fetchall()}
    con.execute("CREATE TABLE item_sources (world INTEGER, item_id VARCHAR, source VARCHAR)")
    con.executemany(
        "INSERT INTO item_sources VALUES (?, ?, 'email')",
        [(w, i) for w in range(worlds) for i in items],
    )
    return con


def test_cost_ceiling_compares_evidence_with_the_live_records_of_the_items_sources() -> None:
    rows = {r["system"]: r for r in diagnostics.cost_ceiling(_cost_database(5), RESAMPLING)}
    assert rows["small"]["estimate"] == pytest.approx(10 / 1500)
    assert rows["small"]["passed"] is True
    assert rows["large"]["estimate"] == pytest.approx(900 / 1500)
    assert rows["large"]["passed"] is False


def test_a_test_over_fewer_than_five_worlds_has_no_result() -> None:
    rows = {r["system"]: r for r in diagnostics.cost_ceiling(_cost_database(2), RESAMPLING)}
    assert rows["small"]["estimate"] == pytest.approx(10 / 1500)
    assert rows["small"]["passed"] is None and rows["large"]["passed"] is None
    assert "no interval: fewer than 5 worlds" in rows["large"]["note"]
