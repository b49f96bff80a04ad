"""What each system's answers cost, in tokens per query, from the run's model call logs.

Five parts (sql/cost_parts.sql): ingestion (the pre-fork store), maintenance (re-writes after
the fork), programs and audits, and the reader's input and output. The write parts are
amortized over the queries the system served on the same world and branch (every probe it
answered), so a query's cost is its share of the store's upkeep plus what reading for it took.
Each part's tokens per query is a pooled ratio over worlds with its world-bootstrap interval;
`STORED / NO_STORE` compares the source-keyed store with no-store retrieval (the paper's 3.64x
at twelve months). Every call is logged whether or not the response cache served it, so the
maintenance part replays the detection's schedule at the tokens its writes measured.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, summarize
from memshift.analysis.sqlfiles import run
from memshift.vocabulary import cell_system

PARTS = ("ingestion", "maintenance", "programs_audits", "serving_in", "serving_out")
WRITE_PARTS = PARTS[:3]
TOTAL = "total"
RATIO = "ratio"
STORED = cell_system("source", "1")
NO_STORE = "bm25"


def cost_parts(con: duckdb.DuckDBPyConnection) -> None:
    """Table cost_parts(world, branch, system, part, tokens, queries). Needs scores and calls."""
    run(con, "cost_parts")


def costs_table(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """The COSTS table: per system and part (and their total), tokens per query with its
    interval, and the ratio row of the stored cell over no-store retrieval where both ran.
    Needs the bootstrap's weight tables (measures.compute registers them)."""
    cost_parts(con)
    first = PARTS[0]  # every part row of a system carries its queries; count them once
    con.execute(
        f"""
        CREATE OR REPLACE TABLE query_cost_ratios AS
        WITH per_world AS (
            SELECT system, part, world, sum(tokens) AS tokens, sum(queries) AS queries
            FROM cost_parts GROUP BY ALL
            UNION ALL
            SELECT system, '{TOTAL}', world, sum(tokens), sum(queries) FILTER (part = '{first}')
            FROM cost_parts GROUP BY ALL
        ),
        totals AS (SELECT * FROM per_world WHERE part = '{TOTAL}')
        SELECT system, part, world, '' AS unit, tokens::DOUBLE AS num, queries::DOUBLE AS den,
            0.0 AS lowest, NULL::DOUBLE AS highest
        FROM per_world
        UNION ALL
        SELECT '{STORED}/{NO_STORE}', '{RATIO}', s.world, '',
            (s.tokens * n.queries)::DOUBLE, (n.tokens * s.queries)::DOUBLE, 0.0, NULL
        FROM totals AS s JOIN totals AS n ON n.world = s.world
        WHERE s.system = '{STORED}' AND n.system = '{NO_STORE}'
        """
    )
    summarize(con, "query_cost_ratios", ["system", "part"], "query_cost_summary", resampling)
    order = ", ".join(f"'{p}'" for p in (*PARTS, TOTAL, RATIO))
    # a part's pooled numerator and denominator are its tokens and queries; the ratio row's are
    # products of the two systems' and mean nothing alone
    return (
        con.sql(
            f"""
            SELECT system, part,
                CASE WHEN part = '{RATIO}' THEN NULL ELSE numerator END::BIGINT AS tokens,
                CASE WHEN part = '{RATIO}' THEN NULL ELSE n END::BIGINT AS queries,
                estimate, low, high, worlds
            FROM query_cost_summary
            ORDER BY system, list_position([{order}], part)
            """
        )
        .to_arrow_table()
        .cast(schemas.COSTS)
    )
