"""The analysis database: scored answers and reported invalidations as DuckDB relations."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import duckdb

from memshift.analysis.sqlfiles import path_literal, run
from memshift.errors import MemshiftError

# results/runs/<run>/w<world>/<branch>/holdmem-<detection>/maintenance.parquet
MAINTENANCE_PATH = re.compile(r"w(\d+)/([^/]+)/holdmem-([^/]+)/maintenance\.parquet$")


def maintenance_sources(paths: Sequence[Path]) -> list[tuple[int, str, str, Path]]:
    sources = []
    for path in paths:
        match = MAINTENANCE_PATH.search(path.as_posix())
        if match is None:
            raise MemshiftError(
                f"{path}: a maintenance log must live at w<world>/<branch>/holdmem-<detection>/"
                "maintenance.parquet"
            )
        sources.append((int(match[1]), match[2], match[3], path))
    return sources


def open_study(scores: Path, maintenance: Sequence[Path]) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory database with the tables `scores`, `invalidations` and `item_times`."""
    if not scores.exists():
        raise MemshiftError(f"missing scores table {scores}")
    con = duckdb.connect(":memory:")
    con.execute("SET threads TO 2")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"CREATE TABLE scores AS SELECT * FROM read_parquet({path_literal(scores)})")
    sources = maintenance_sources(maintenance)
    con.execute("CREATE TABLE maintenance_files (world INTEGER, branch VARCHAR, detection VARCHAR)")
    if sources:
        con.executemany(
            "INSERT INTO maintenance_files VALUES (?, ?, ?)",
            [(world, branch, detection) for world, branch, detection, _ in sources],
        )
    selects = [
        f"SELECT {world}::INTEGER AS world, '{branch}' AS branch, '{detection}' AS detection, "
        f"item_id, checkpoint FROM read_parquet({path_literal(path)}) WHERE invalidated"
        for world, branch, detection, path in sources
    ]
    empty = (
        "SELECT NULL::INTEGER AS world, NULL::VARCHAR AS branch, NULL::VARCHAR AS detection, "
        "NULL::VARCHAR AS item_id, NULL::TINYINT AS checkpoint WHERE false"
    )
    con.execute("CREATE TABLE invalidations AS " + " UNION ALL ".join([empty, *selects]))
    _check_reports(con)
    run(con, "item_times")
    return con


def _check_reports(con: duckdb.DuckDBPyConnection) -> None:
    """Every HoldMem cell scored needs the maintenance log of its detection, or its m would
    silently read as 'never invalidated'."""
    missing = con.execute(
        """
        SELECT DISTINCT s.world, s.branch, s.system
        FROM scores AS s
        WHERE regexp_matches(s.system, '^holdmem-d[^-]+-.+$')
            AND regexp_extract(s.system, '^holdmem-d[^-]+-(.+)$', 1) NOT IN (
                SELECT detection FROM maintenance_files AS f
                WHERE f.world = s.world AND f.branch = s.branch
            )
        ORDER BY ALL
        """
    ).fetchall()
    if missing:
        world, branch, system = missing[0]
        raise MemshiftError(
            f"{len(missing)} scored HoldMem cell(s) have no maintenance log, e.g. {system} on "
            f"branch {branch} of world {world}; pass every holdmem-<detection>/maintenance.parquet"
        )
