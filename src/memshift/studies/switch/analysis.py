"""The writer switch's measures, from `switch-scores.parquet` (the switch-score stage).

- Retention of a cell: of the fork probes answered correctly before the switch, the share still
  answered correctly after it (a ratio of world sums), tested at 97% one-sided at 90%; the net
  change in accuracy (after - before, paired by item) beside it. A cell that re-derived nothing
  keeps every answer: it passes by construction and is left out of the test (MemShift App. C.1).
- Survival by repair arm: for each B=1 detection, the item-paired difference in survival between
  its D=1 and D=0 cells, and the D=1 checker's pass rate on the new writer's writes.
- Prediction: how well each predictor of an item's type (the two writers' agreement, each
  writer's accuracy, the definition indicator) predicts survival of D=0, B=1 items: calibration
  slope and AUROC with world-bootstrap intervals (`analysis.prediction`), per switch and pooled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, register_weights, summarize
from memshift.analysis.diagnostics import RETENTION_FLOOR, TEST_LEVEL, row
from memshift.analysis.sqlfiles import records
from memshift.studies.switch.prediction_analysis import auroc_difference, predict
from memshift.vocabulary import cell_parts, cell_system

# each oriented so that a higher value predicts survival, as the paper compares them
PREDICTORS = ("agreement", "acc_to", "acc_from", "not_definition")
POOLED = "all switches"
NOT_REDERIVED = "not_rederived"
CHECK_PASSED = ("passed", "program_agreed")


def open_switches(scores: pa.Table, resampling: Resampling) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.register("switch_arrow", scores)
    con.execute("CREATE TABLE switch_scores AS SELECT * FROM switch_arrow")
    con.unregister("switch_arrow")
    worlds = [w for (w,) in con.execute("SELECT DISTINCT world FROM switch_scores").fetchall()]
    register_weights(con, worlds, [], resampling)
    return con


def retention(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """Per switch and cell: retention with its test interval, the net change with a 95% one."""
    con.execute(
        """
        CREATE OR REPLACE TABLE retention_ratios AS
        SELECT switch, system, world, '' AS unit,
            count(*) FILTER (survived) AS num, count(*) FILTER (correct_before) AS den,
            0.0 AS lowest, 1.0 AS highest
        FROM switch_scores GROUP BY ALL;
        CREATE OR REPLACE TABLE net_ratios AS
        SELECT switch, system, world, '' AS unit,
            sum(correct_after::INTEGER - correct_before::INTEGER) AS num, count(*) AS den,
            -1.0 AS lowest, 1.0 AS highest
        FROM switch_scores GROUP BY ALL;
        CREATE OR REPLACE TABLE switch_cells AS
        SELECT switch, system, any_value("from") AS old, any_value("to") AS new,
            count(*) FILTER ("check" <> 'not_rederived') AS rederived,
            count(*) FILTER (correct_before) AS correct_before,
            count(*) FILTER (survived) AS survived,
            count(DISTINCT world) AS worlds
        FROM switch_scores GROUP BY ALL
        """
    )
    keys = ("switch", "system")
    summarize(
        con, "retention_ratios", keys, "retention_summary", replace(resampling, level=TEST_LEVEL)
    )
    summarize(con, "net_ratios", keys, "net_summary", resampling)
    found = records(
        con,
        """
        SELECT c.switch, c.system, c.old, c.new, r.estimate, r.low, r.high,
            n.estimate AS net_change, n.low AS net_low, n.high AS net_high,
            c.correct_before, c.survived, c.rederived, c.worlds
        FROM switch_cells AS c
        JOIN retention_summary AS r USING (switch, system)
        JOIN net_summary AS n USING (switch, system)
        ORDER BY c.switch, c.system
        """,
    )
    rows = []
    for found_row in found:
        by_construction = found_row["rederived"] == 0
        low = found_row["low"]
        passed = None if by_construction or low is None else low >= RETENTION_FLOOR
        found_row["from"] = found_row.pop("old")
        found_row["to"] = found_row.pop("new")
        rows.append({**found_row, "passed": passed, "by_construction": by_construction})
    return pa.Table.from_pylist(rows, schema=schemas.RETENTION)


def diagnostics_rows(table: pa.Table) -> list[dict[str, Any]]:
    """One retention row per switch and cell for the diagnostics table."""
    rows = []
    for r in table.to_pylist():
        reference = f"switch {r['switch']}: {r['from']} -> {r['to']}"
        if r["by_construction"]:
            note = (
                "re-derived nothing, so every answer is kept: passes by construction and is "
                "left out of the test"
            )
            found = {"estimate": r["estimate"], "low": r["low"], "high": r["high"]}
            rows.append(
                row("retention", r["system"], reference, found, RETENTION_FLOOR, None, note)
            )
            continue
        note = (
            "share of correct fork answers still correct after the writer switch; 90% lower "
            f"bound; net change in accuracy {_points(r['net_change'])}"
        )
        rows.append(row("retention", r["system"], reference, r, RETENTION_FLOOR, r["passed"], note))
    return rows


def _points(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pp"


def survival(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """Per switch, B=1 detection and item class: survival at D=0 and D=1 paired by item, their
    difference with a 95% interval, and the D=1 checker's pass rate on the new writes."""
    systems = [s for (s,) in con.execute("SELECT DISTINCT system FROM switch_scores").fetchall()]
    pairs = []
    for system in systems:
        parts = cell_parts(system)
        if parts is not None and parts[0] == "1":
            other = cell_system(parts[1], "0")
            if other in systems:
                pairs.append((parts[1], other, system))
    if not pairs:
        return pa.Table.from_pylist([], schema=schemas.SWITCH_SURVIVAL)
    con.execute(
        "CREATE OR REPLACE TABLE survival_pairs (detection VARCHAR, d0 VARCHAR, d1 VARCHAR)"
    )
    con.executemany("INSERT INTO survival_pairs VALUES (?, ?, ?)", pairs)
    con.execute(
        """
        CREATE OR REPLACE TABLE paired_survival AS
        WITH joined AS (
            SELECT p.detection, a.switch, a.world, a.item_class,
                a.survived AS s0, b.survived AS s1, b."check" AS check1, b.correct_before
            FROM survival_pairs AS p
            JOIN switch_scores AS a ON a.system = p.d0
            JOIN switch_scores AS b ON b.system = p.d1 AND b.switch = a.switch
                AND b.world = a.world AND b.item_id = a.item_id
            WHERE b."check" <> 'not_rederived'
        )
        SELECT * FROM joined
        UNION ALL SELECT detection, switch, world, 'all' AS item_class, s0, s1, check1,
            correct_before FROM joined;
        CREATE OR REPLACE TABLE survival_ratios AS
        SELECT switch, detection, item_class, world, '' AS unit,
            sum(s1::INTEGER - s0::INTEGER) FILTER (correct_before) AS num,
            count(*) FILTER (correct_before) AS den, -1.0 AS lowest, 1.0 AS highest
        FROM paired_survival GROUP BY ALL
        """
    )
    keys = ("switch", "detection", "item_class")
    summarize(con, "survival_ratios", keys, "survival_summary", resampling)
    found = records(
        con,
        """
        SELECT s.switch, s.detection, s.item_class,
            count(*) FILTER (correct_before) AS items,
            avg(s0::DOUBLE) FILTER (correct_before) AS survival_d0,
            avg(s1::DOUBLE) FILTER (correct_before) AS survival_d1,
            any_value(d.estimate) AS difference, any_value(d.low) AS low,
            any_value(d.high) AS high,
            avg((check1 IN ('passed', 'program_agreed'))::DOUBLE) AS checker_pass_d1,
            count(*) AS rederived
        FROM paired_survival AS s
        JOIN survival_summary AS d USING (switch, detection, item_class)
        GROUP BY ALL ORDER BY ALL
        """,
    )
    return pa.Table.from_pylist(found, schema=schemas.SWITCH_SURVIVAL)


def prediction_rows(scores: pa.Table) -> dict[str, np.ndarray]:
    """The D=0, B=1 items correct before the switch: the rows the predictors are judged on.
    One D=0 cell that re-derived items per switch (the first in name order), so that no item
    counts twice."""
    table = scores.to_pylist()
    rederiving: dict[str, str] = {}
    for r in sorted(table, key=lambda r: r["system"]):
        parts = cell_parts(r["system"])
        if parts and parts[0] == "0" and r["check"] != NOT_REDERIVED:
            rederiving.setdefault(r["switch"], r["system"])
    kept = [
        r
        for r in table
        if rederiving.get(r["switch"]) == r["system"]
        and r["correct_before"]
        and r["agreement"] is not None
    ]
    columns: dict[str, np.ndarray] = {
        "switch": np.array([r["switch"] for r in kept], dtype=object),
        "world": np.array([r["world"] for r in kept], dtype=np.int64),
        "item_type": np.array([r["item_type"] for r in kept], dtype=object),
        "item_class": np.array([r["item_class"] for r in kept], dtype=object),
        "survived": np.array([bool(r["survived"]) for r in kept], dtype=bool),
    }
    for name in ("agreement", "acc_to", "acc_from"):
        columns[name] = np.array([float(r[name]) for r in kept], dtype=np.float64)
    columns["not_definition"] = np.array([0.0 if r["definition"] else 1.0 for r in kept])
    return columns


Rows = dict[str, np.ndarray]


def prediction(
    columns: Rows, resampling: Resampling, pools: Mapping[str, Sequence[str]] | None = None
) -> pa.Table:
    """Slope and AUROC of each predictor, pooled over all switches, over each named pool of
    switches and per switch (resampled by world); `columns` are `prediction_rows`."""
    level = replace(resampling, level=0.9)
    switches = sorted(set(columns["switch"].tolist()))
    scopes = {
        POOLED: switches,
        **{name: list(members) for name, members in (pools or {}).items()},
        **{name: [name] for name in switches},
    }
    rows = []
    for scope, members in scopes.items():
        chosen = np.isin(columns["switch"], members)
        for predictor in PREDICTORS:
            found = predict(
                columns["world"][chosen],
                columns[predictor][chosen],
                columns["survived"][chosen],
                level,
                name=f"switch-{scope}-{predictor}",
            )
            rows.append({"scope": scope, "predictor": predictor, **vars(found)})
    table = pa.Table.from_pylist(rows, schema=schemas.SWITCH_PREDICTION)
    return table


def accuracy_over_agreement(columns: Rows, resampling: Resampling) -> dict[str, Any]:
    """Pooled AUROC(new writer's accuracy) - AUROC(agreement), worlds x item types resampled."""
    estimate, low, high = auroc_difference(
        columns["world"],
        columns["item_type"],
        columns["acc_to"],
        columns["agreement"],
        columns["survived"],
        replace(resampling, level=0.9),
        "switch-difference",
    )
    return {"estimate": estimate, "low": low, "high": high}


def failures_by_class(columns: Rows) -> dict[str, int]:
    """How many D=0, B=1 items correct before failed after, by item class."""
    failed = columns["item_class"][~columns["survived"]]
    return {str(c): int((failed == c).sum()) for c in sorted(set(failed.tolist()))}
