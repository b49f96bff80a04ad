"""Each system's Update against the no-store baselines on the same worlds (MemShift F.9, Table 32:
after a source revision every native system but LightRAG updates like no-store BM25 and plain
RAG): the paired difference in Update from no-store BM25 and from plain RAG, per shift, with the
percentile interval over the same world draws as the measures. A difference is left out
on a branch where too many of either side's calls failed (`analysis.failures`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.draws import draw_ratios
from memshift.vocabulary import UNSHIFTED, is_floor

BASELINES = ("bm25", "rag")


def versus_baselines_table(
    con: duckdb.DuckDBPyConnection,
    systems: list[str],
    resampling: Resampling,
    unmeasured: Collection[tuple[str, str]] = frozenset(),
) -> pa.Table:
    """The VERSUS_BASELINES table (empty without a baseline and another system), without a
    system or a baseline on a branch where `unmeasured` (system, branch) says too many of its
    calls failed. Needs measure_summary, measure_ratios and the weight tables."""
    baselines = [b for b in BASELINES if b in systems]
    others = sorted(s for s in systems if s not in BASELINES and not is_floor(s))
    rows: list[dict[str, Any]] = []
    if not baselines or not others:
        return pa.Table.from_pylist(rows, schema=schemas.VERSUS_BASELINES)
    draw_ratios(con, [*baselines, *others], ["update"])
    tail = resampling.tail
    found = con.execute(
        f"""
        WITH point AS (
            SELECT s.system, b.system AS baseline, s.branch, s.estimate AS update,
                b.estimate AS baseline_update, least(s.worlds, b.worlds) AS worlds
            FROM measure_summary AS s
            JOIN measure_summary AS b USING (branch, item_class, cause, checkpoint, measure)
            WHERE s.measure = 'update' AND s.item_class = 'all' AND s.cause = 'all'
                AND s.checkpoint = -1 AND s.branch <> ?
                AND s.system IN (SELECT unnest(?)) AND b.system IN (SELECT unnest(?))
                AND s.estimate IS NOT NULL AND b.estimate IS NOT NULL
        ),
        spread AS (
            SELECT s.system, b.system AS baseline, s.branch,
                quantile_cont(s.value - b.value, [{tail!r}, {1 - tail!r}]) AS q
            FROM draw_ratios AS s
            JOIN draw_ratios AS b USING (branch, item_class, measure, draw)
            WHERE s.item_class = 'all' AND s.system IN (SELECT unnest(?))
                AND b.system IN (SELECT unnest(?))
                AND s.value IS NOT NULL AND b.value IS NOT NULL
            GROUP BY ALL
        )
        SELECT p.system, p.baseline, p.branch, p.update, p.baseline_update, p.worlds, s.q
        FROM point AS p LEFT JOIN spread AS s USING (system, baseline, branch)
        ORDER BY p.system, p.baseline, p.branch
        """,
        [UNSHIFTED, others, baselines, others, baselines],
    ).fetchall()
    for system, baseline, branch, update, baseline_update, worlds, q in found:
        if (system, branch) in unmeasured or (baseline, branch) in unmeasured:
            continue
        bounded = q is not None and worlds >= MIN_WORLDS
        rows.append(
            {
                "system": system,
                "baseline": baseline,
                "branch": branch,
                "update": update,
                "baseline_update": baseline_update,
                "estimate": update - baseline_update,
                "low": q[0] if bounded else None,
                "high": q[1] if bounded else None,
                "worlds": worlds,
            }
        )
    return pa.Table.from_pylist(rows, schema=schemas.VERSUS_BASELINES)
