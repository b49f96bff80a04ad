"""What the citation key missed, and why (MemShift Fig. 5, Table 17): each changed item-time
the key never invalidated since the fork, classed by comparing the gold dependencies at the
write it served with those at the probe, the write's citations and the events in between; and
what a forced re-derivation of those item-times would have served (the source-key cell, which
re-derived them with the same writer request)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from memshift import layout, schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import path_list, run
from memshift.artifacts import ArtifactError

KEY = "citation"
MISS_CLASSES = ("cited", "a", "b old", "b new", "c", "clock")
# recorded at write time, a set of records can hold a and b old, never b new or c
UNSEEN = ("b new", "c")


def load_writes(
    con: duckdb.DuckDBPyConnection, maintenance: Sequence[tuple[int, str, str, Path]]
) -> None:
    """Table citation_writes(world, branch, item_id, checkpoint, time, cited) from the writes
    beside each citation maintenance log (world, branch, detection, path)."""
    paths = [
        (world, branch, layout.table(path.parent, layout.WRITES))
        for world, branch, detection, path in maintenance
        if detection == KEY
    ]
    for _, _, path in paths:
        if not path.exists():
            raise ArtifactError(f"missing artifact {path} (the citation key's writes)")
    con.execute(
        "CREATE OR REPLACE TABLE citation_writes (world INTEGER, branch VARCHAR, "
        "item_id VARCHAR, checkpoint TINYINT, time TIMESTAMP, cited VARCHAR[])"
    )
    for world, branch, path in paths:
        con.execute(
            f"""
            INSERT INTO citation_writes
            SELECT {int(world)}, ?, item_id, checkpoint, time,
                coalesce(list_transform(citations, lambda c: c.object_id), [])
            FROM read_parquet({path_list([path])})
            """,
            [branch],
        )


def load_gold_deps(con: duckdb.DuckDBPyConnection, gold_files: Sequence[Path]) -> None:
    """Table gold_deps(world, branch, item_id, checkpoint, object_id) of at least one gold file:
    one row per dependency."""
    for path in gold_files:
        if not path.exists():
            raise ArtifactError(f"missing artifact {path}")
    con.execute(
        f"""
        CREATE OR REPLACE TABLE gold_deps AS
        SELECT world, branch, item_id, checkpoint, unnest(deps).object_id AS object_id
        FROM read_parquet({path_list(list(gold_files))})
        """
    )


def _has_key(con: duckdb.DuckDBPyConnection) -> bool:
    [(cells,)] = con.execute(
        f"SELECT count(*) FROM item_times WHERE detection = '{KEY}'"
    ).fetchall()
    return bool(cells)


def _empty() -> tuple[pa.Table, pa.Table]:
    return schemas.CITATION_MISSES.empty_table(), schemas.FORCED.empty_table()


def report_tables(
    con: duckdb.DuckDBPyConnection,
    resampling: Resampling,
    worlds_dir: Path,
    maintenance: Sequence[tuple[int, str, str, Path]],
) -> tuple[pa.Table, pa.Table]:
    """citation_miss_tables for the report: the gold dependencies of every world and branch
    scored and the citation key's writes are read only when the study has citation cells."""
    if not _has_key(con):
        return _empty()
    scored = con.execute("SELECT DISTINCT world, branch FROM scores ORDER BY ALL").fetchall()
    load_gold_deps(con, [layout.gold(layout.world_in(worlds_dir, w), b) for w, b in scored])
    load_writes(con, maintenance)
    return citation_miss_tables(con, resampling)


def citation_miss_tables(
    con: duckdb.DuckDBPyConnection, resampling: Resampling
) -> tuple[pa.Table, pa.Table]:
    """The CITATION_MISSES and FORCED tables (empty without a citation cell). Needs item_times,
    citation_writes, gold_deps, events, checkpoint_times and the weight tables."""
    if not _has_key(con):
        return _empty()
    run(con, "citation_misses")
    [(unserved,)] = con.execute(
        "SELECT count(*) FROM item_times AS t WHERE detection = 'citation' AND changed "
        "AND NOT detected_since_fork AND NOT EXISTS (SELECT 1 FROM citation_missed AS m "
        "WHERE m.world = t.world AND m.branch = t.branch AND m.item_id = t.item_id "
        "AND m.checkpoint = t.checkpoint)"
    ).fetchall()
    if unserved:
        raise ArtifactError(
            f"{unserved} item-times the citation key missed have no write of theirs in its "
            "writes.parquet; the writes and the maintenance log come from different runs"
        )
    misses = (
        con.sql("SELECT * FROM citation_miss_counts ORDER BY branch, item_class, cause, miss_class")
        .to_arrow_table()
        .cast(schemas.CITATION_MISSES)
    )
    forced = quantity_table(
        con, "forced_values", ["repair", "branch", "item_class"], schemas.FORCED, resampling
    )
    return misses, forced
