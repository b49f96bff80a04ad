"""The four diagnostic tests with fixed thresholds.

- utility floor: accuracy before any shift at least the oracle context's minus 3 pp; and the
  same test on the items other than the definition items, which tells a margin the definition
  items make from one the system has without them (MemShift F.6);
- cost ceiling: serving cost per query (the reader's evidence tokens) at most half a full
  re-read (every live record of the item's sources at that checkpoint); it bounds serving, not
  maintenance;
- retention: after a writer switch, at least 97% of the answers that were correct stay correct
  (computed with the switch's measures, `studies/switch/analysis.py`);
- leaving: after an export and import, carryover equal to the original's within ±3 pp (TOST).

Each test is one-sided at 90% (TOST: a 90% two-sided interval inside the margins), so a test
passes only when the matching end of an 80% two-sided world-bootstrap interval clears its
threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling, summarize
from memshift.analysis.contrasts import BEFORE_SHIFT_WITHOUT_DEFINITIONS, Contrast, paired
from memshift.analysis.sqlfiles import records, run
from memshift.vocabulary import UNSHIFTED

UTILITY_MARGIN = 0.03
COST_SHARE = 0.5
RETENTION_FLOOR = 0.97
LEAVING_MARGIN = 0.03
ORACLE = "oracle"
UTILITY_FLOOR = "utility floor"
UTILITY_FLOOR_WITHOUT_DEFINITIONS = "utility floor without definition items"
FLOOR_TESTS = (UTILITY_FLOOR, UTILITY_FLOOR_WITHOUT_DEFINITIONS)
TEST_LEVEL = 0.8  # two-sided 80% = one-sided 90% at each end


def row(
    test: str,
    system: str,
    reference: str,
    found: dict[str, Any] | None,
    threshold: float,
    passed: bool | None,
    note: str,
) -> dict[str, Any]:
    found = found or {}
    if found.get("estimate") is not None and found.get("low") is None:
        passed = None
        note = f"{note}; no interval: fewer than {MIN_WORLDS} worlds"
    return {
        "test": test,
        "system": system,
        "reference": reference,
        "estimate": found.get("estimate"),
        "low": found.get("low"),
        "high": found.get("high"),
        "threshold": threshold,
        "passed": passed,
        "note": note,
    }


def utility_floor(
    con: duckdb.DuckDBPyConnection,
    systems: Sequence[str],
    resampling: Resampling,
    *,
    without_definitions: bool = False,
) -> list[dict[str, Any]]:
    """Each system's accuracy before any shift minus the oracle context's, paired by probe; with
    `without_definitions`, on the items other than the definition items alone."""
    test = UTILITY_FLOOR_WITHOUT_DEFINITIONS if without_definitions else UTILITY_FLOOR
    population = BEFORE_SHIFT_WITHOUT_DEFINITIONS if without_definitions else "before_shift"
    items = " without the definition items" if without_definitions else ""
    others = [s for s in systems if s != ORACLE]
    if ORACLE not in systems:
        return [
            row(test, s, ORACLE, None, -UTILITY_MARGIN, None, "no oracle context") for s in others
        ]
    contrasts = [Contrast("utility", s, "", ((s, 1), (ORACLE, -1))) for s in others]
    level = replace(resampling, level=TEST_LEVEL)
    found = {
        (r["contrast_id"]): r
        for r in paired(con, contrasts, level, population=population)
        if r["branch"] == UNSHIFTED and r["item_class"] == "all"
    }
    rows = []
    for index, system in enumerate(others):
        result = found.get(index)
        if result is None or result["estimate"] is None:
            rows.append(row(test, system, ORACLE, None, -UTILITY_MARGIN, None, "no probes"))
            continue
        passed = None if result["low"] is None else result["low"] >= -UTILITY_MARGIN
        note = f"difference in accuracy before any shift{items}, unshifted branch; 90% lower bound"
        rows.append(row(test, system, ORACLE, result, -UTILITY_MARGIN, passed, note))
    return rows


def cost_ceiling(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> list[dict[str, Any]]:
    """Evidence tokens served per query over full re-read tokens, per system. Needs the tables
    events, checkpoint_times and item_sources."""
    run(con, "reread_tokens")
    con.execute(
        """
        CREATE OR REPLACE TABLE cost_ratios AS
        WITH reread AS (
            SELECT i.world, i.branch, i.checkpoint, i.item_id, sum(t.tokens) AS tokens
            FROM (SELECT DISTINCT world, branch, checkpoint, item_id FROM item_times) AS i
            JOIN item_sources AS s ON s.world = i.world AND s.item_id = i.item_id
            JOIN source_tokens AS t ON t.world = i.world AND t.branch = i.branch
                AND t.checkpoint = i.checkpoint AND t.source = s.source
            GROUP BY ALL
        )
        SELECT i.system, i.world, '' AS unit, sum(i.evidence_tokens) AS num,
            sum(coalesce(r.tokens, 0)) AS den, 0.0 AS lowest, NULL::DOUBLE AS highest
        FROM item_times AS i
        LEFT JOIN reread AS r USING (world, branch, checkpoint, item_id)
        GROUP BY ALL
        """
    )
    summarize(
        con, "cost_ratios", ("system",), "cost_summary", replace(resampling, level=TEST_LEVEL)
    )
    rows = []
    for found in records(con, "SELECT * FROM cost_summary ORDER BY system"):
        passed = None if found["high"] is None else found["high"] <= COST_SHARE
        note = "evidence tokens per query / tokens of a full re-read; 90% upper bound"
        rows.append(
            row("cost ceiling", found["system"], "full re-read", found, COST_SHARE, passed, note)
        )
    return rows


def leaving(
    con: duckdb.DuckDBPyConnection, original: str, imported: str, resampling: Resampling
) -> dict[str, Any]:
    """TOST: Update of the imported memory minus the original's lies within ±3 pp."""
    contrast = Contrast("leaving", imported, "", ((imported, 1), (original, -1)))
    found = [
        r
        for r in paired(con, [contrast], replace(resampling, level=0.9))
        if r["item_class"] == "all"
    ]
    if not found or found[0]["estimate"] is None:
        return row("leaving", imported, original, None, LEAVING_MARGIN, None, "no paired probes")
    result = max(found, key=lambda r: abs(r["estimate"]))  # the branch furthest from equal
    bounded = [r for r in found if r["low"] is not None]
    passed = len(bounded) == len(found) and all(
        r["low"] > -LEAVING_MARGIN and r["high"] < LEAVING_MARGIN for r in bounded
    )
    note = (
        f"difference in Update on every branch (largest: {result['branch']}); "
        "90% intervals inside ±3 pp"
    )
    return row("leaving", imported, original, result, LEAVING_MARGIN, passed, note)


def not_applicable(test: str, threshold: float, why: str) -> dict[str, Any]:
    return row(test, "", "", None, threshold, None, f"not applicable: {why}")


def table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=schemas.DIAGNOSTICS)
