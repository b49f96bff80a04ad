"""The analysis database: scored answers and reported invalidations as DuckDB relations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from memshift import layout, schemas
from memshift.analysis.sqlfiles import path_list, path_literal, run, text_literal
from memshift.errors import MemshiftError
from memshift.vocabulary import AUDITED_PATTERN, FLOORS, detection_system


@dataclass(frozen=True)
class Logs:
    maintenance: list[tuple[int, str, str, Path]]  # world, branch, detection, path
    answer_audits: list[tuple[int, str, str, Path]]  # world, branch, audited system, path
    reported: list[tuple[int, str, str, Path]]  # world, branch, system, path
    calls: list[Path]


def log_sources(paths: Sequence[Path]) -> Logs:
    """The maintenance logs, answer-audit logs, invalidation logs and model call logs among
    `paths`."""
    logs = Logs([], [], [], [])
    kept = {
        layout.MAINTENANCE: logs.maintenance,
        layout.ANSWER_AUDITS: logs.answer_audits,
        layout.INVALIDATIONS: logs.reported,
    }
    for path in paths:
        log = layout.run_log(path)
        if log is None:
            raise MemshiftError(
                f"{path}: a log must be w<world>/{layout.DETECTIONS}/<branch>/holdmem-<detection>/"
                "maintenance.parquet,"
                f" w<world>/{layout.AUDIT_JOB}/<branch>/<system>+audit/answer-audits.parquet,"
                " w<world>/<branch>/<system>/invalidations.parquet or a calls*.parquet"
            )
        if log.kind == layout.CALLS:
            logs.calls.append(path)
        else:
            kept[log.kind].append((log.world, log.branch, log.name, path))
    return logs


_TYPES = {"checkpoint": "TINYINT", "probe_id": "VARCHAR"}


def _union(
    con: duckdb.DuckDBPyConnection,
    table: str,
    logs: list[tuple[int, str, str, Path]],
    name: str,
    column: str,
    where: str,
) -> None:
    """Table `table` (world, branch, `name`, `column`) of the rows of `logs` (world, branch,
    name, path) that meet `where`."""
    empty = (
        f"SELECT NULL::INTEGER AS world, NULL::VARCHAR AS branch, NULL::VARCHAR AS {name}, "
        f"NULL::VARCHAR AS item_id, NULL::{_TYPES[column]} AS {column} WHERE false"
    )
    selects = [
        f"SELECT DISTINCT {world}::INTEGER AS world, {text_literal(branch)} AS branch, "
        f"{text_literal(value)} AS {name}, item_id, {column} "
        f"FROM read_parquet({path_literal(path)}) WHERE {where}"
        for world, branch, value, path in logs
    ]
    con.execute(f"CREATE TABLE {table} AS " + " UNION ALL ".join([empty, *selects]))


def open_study(scores: Path, logs: Sequence[Path]) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory database with the tables `scores`, `invalidations` (the item-times
    where a log reports an invalidation, by the log's name: holdmem-<detection> for a HoldMem
    detection's maintenance log, the system's name for its own invalidation log), `derived`
    (where a HoldMem detection wrote a new item), `flagged` (answers an answer-level audit found
    stale), `calls` (the model call logs), `log_files` (the world, branch and name of every log
    but the call logs) and `item_times`. The floors' scores (`memshift.scoring.floors`) are kept
    apart, in `floor_scores` and `floor_item_times` (the same SQL), so that every table of the
    systems is the one a study without floors has: only the measures count the floors."""
    if not scores.exists():
        raise MemshiftError(f"missing scores table {scores}")
    con = duckdb.connect(":memory:")
    # one thread: parallel aggregation adds floating-point sums in whatever order the threads
    # finish, and a rerun of the report must reproduce its tables byte for byte
    con.execute("SET threads TO 1")
    con.execute("SET enable_progress_bar = false")
    # an audited system's name as vocabulary.audited_parts reads it: the audited system and
    # the audit's variant ('' for the full audit; both '' for any other system)
    named = text_literal(f"^{AUDITED_PATTERN}$")
    con.execute(f"CREATE MACRO audited_base(system) AS regexp_extract(system, {named}, 1)")
    con.execute(f"CREATE MACRO audit_variant(system) AS regexp_extract(system, {named}, 2)")
    # the floors (memshift/scoring/floors.py): measured beside the systems, as systems that report
    # invalidations and made none; no other table counts them (they test, price or explain
    # systems, and a floor is none)
    floors = ", ".join(text_literal(floor) for floor in FLOORS)
    con.execute(f"CREATE MACRO is_floor(system) AS system IN ({floors})")
    source = f"read_parquet({path_literal(scores)})"
    con.execute(f"CREATE TABLE scores AS SELECT * FROM {source} WHERE NOT is_floor(system)")
    con.execute(f"CREATE TABLE floor_scores AS SELECT * FROM {source} WHERE is_floor(system)")
    found = log_sources(logs)
    maintenance, answer_audits = found.maintenance, found.answer_audits
    con.execute("CREATE TABLE log_files (world INTEGER, branch VARCHAR, system VARCHAR)")
    files = [(w, b, detection_system(d)) for w, b, d, _ in maintenance]
    files += [(w, b, s) for w, b, s, _ in [*answer_audits, *found.reported]]
    if files:
        con.executemany("INSERT INTO log_files VALUES (?, ?, ?)", files)
    # one table of every logged invalidation, by the log's name: holdmem-<detection> for a
    # HoldMem detection's maintenance log (its cells share it), the system's own otherwise
    logged = [(w, b, detection_system(d), p) for w, b, d, p in maintenance] + found.reported
    _union(con, "invalidations", logged, "log", "checkpoint", "invalidated")
    _union(con, "derived", maintenance, "detection", "checkpoint", "rederived")
    _union(
        con,
        "flagged",
        answer_audits,
        "system",
        "probe_id",
        "row = 'verdict' AND directive = 'repair'",
    )
    if found.calls:
        con.execute(
            f"CREATE TABLE calls AS SELECT * FROM read_parquet({path_list(found.calls)}, "
            "union_by_name = true)"
        )
    else:
        con.register("no_calls", schemas.CALLS.empty_table())
        con.execute("CREATE TABLE calls AS SELECT * FROM no_calls")
        con.unregister("no_calls")
    _check_reports(con)
    run(con, "item_times", out="item_times", scores="scores")
    run(con, "item_times", out="floor_item_times", scores="floor_scores")
    return con


def _check_reports(con: duckdb.DuckDBPyConnection) -> None:
    """Every HoldMem cell scored needs the maintenance log of its detection, every audited
    system its answer-audit log, and every imported memory (pm-*) or system that reported its
    invalidations on some branch its invalidation log on every branch scored, or its m would
    silently read as 'never invalidated' or drop out of the m, r and a of some branches."""
    missing = con.execute(
        r"""
        WITH needed AS (
            SELECT DISTINCT world, branch, system,
                CASE
                    WHEN regexp_matches(system, '^holdmem-d[^-]+-[^+]+$')
                        THEN 'holdmem-' || regexp_extract(system, '^holdmem-d[^-]+-([^+]+)$', 1)
                    ELSE system
                END AS log
            FROM scores
            WHERE audited_base(system) <> ''
                OR regexp_matches(system, '^holdmem-d[^-]+-[^+]+$')
                OR system LIKE 'pm-%'
                OR system IN (SELECT system FROM log_files)
        )
        SELECT world, branch, system FROM needed AS n
        WHERE NOT EXISTS (
            SELECT 1 FROM log_files AS f
            WHERE f.world = n.world AND f.branch = n.branch AND f.system = n.log
        )
        ORDER BY ALL
        """
    ).fetchall()
    if missing:
        world, branch, system = missing[0]
        raise MemshiftError(
            f"{len(missing)} scored system(s) have no log of their invalidations, e.g. {system} "
            f"on branch {branch} of world {world}; pass every {layout.DETECTIONS}/<branch>/"
            f"holdmem-<detection>/maintenance.parquet, every {layout.AUDIT_JOB}/<branch>/"
            "<system>+audit/answer-audits.parquet "
            "and every <system>/invalidations.parquet"
        )
