"""The audit's own metrics (StateAuditor §6.1, §6.3, §6.4) for every system audited at answer
level and every HoldMem audit detection, each with its world-bootstrap interval: how precise and
complete its repairs are, how often it asks to verify or rewrites a right answer, whether its
replies parse, whether a repair from a verified transition lands on the gold, what an audit
costs, how often a stale draft gets a STALE premise (by probe kind), whether an abstention the
gold wants survives, and an ablation's answers against the full audit's on the same probes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from memshift import layout, schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import identifiers, path_list, run, text_literal
from memshift.artifacts import ArtifactError
from memshift.vocabulary import detection_system

# Each quantity, the probes it is a share of, and the paper's figure where it gives one.
QUANTITIES = {
    "stale_precision": "repairs of a wrong draft, of all repairs (direct probes)",
    "true_change_recall": "repairs, of wrong drafts on changed item-times",
    "false_invalidation": "repairs, of unchanged item-times",
    "verify_rate": "verify directives, of direct probes",
    "rewrite_conflict_free": "any directive, of right drafts on unchanged item-times",
    "parse_failure": "replies that could not be read, of audits",
    "alignment": "right answers, of repairs from a verified transition",
    "stale_premise_recall_direct": "a STALE premise, of wrong drafts on changed item-times",
    "stale_premise_recall_premise": "the same on premise probes",
    "stale_premise_recall_implicit": "the same on implicit-dependency probes",
    "abstention_kept": "abstentions kept, of abstaining drafts the gold wants",
    "abstention_verified": "verify directives, of abstaining drafts the gold wants",
    "calls_per_audit": "auditor calls per audited probe",
    "tokens_per_audit": "auditor tokens (in + out) per audited probe",
    "accuracy_direct": "right answers after the audit, direct probes after the fork",
    "accuracy_premise": "the same on premise probes",
    "accuracy_implicit": "the same on implicit-dependency probes",
    "versus_full_direct": "an ablation's right answers minus the full audit's, same probes",
    "versus_full_premise": "the same on premise probes",
    "versus_full_implicit": "the same on implicit-dependency probes",
}
# the HoldMem detections whose audits the metrics read
AUDITING = ("audit",)
ROWS_COLUMNS = (
    "probe_id",
    "item_id",
    "checkpoint",
    "row",
    "accepted",
    "current_value",
    "found_by",
    "premise_verdict",
    "verdict",
    "source",
    "directive",
    "parsed",
)


def load_answer_audits(
    con: duckdb.DuckDBPyConnection, answer_audits: Sequence[tuple[int, str, str, Path]]
) -> None:
    """Table answer_audit_rows: the rows of every answer-audit log (world, branch, audited
    system, path), with where they come from."""
    _union_rows(con, "answer_audit_rows", answer_audits, ROWS_COLUMNS, schemas.AUDITS)


def load_detection_audits(
    con: duckdb.DuckDBPyConnection,
    maintenance: Sequence[tuple[int, str, str, Path]],
    worlds_dir: Path,
) -> None:
    """Tables detection_audit_rows, detection_writes (world, branch, system, item_id,
    checkpoint) and gold_outcomes (world, branch, item_id, checkpoint, status, value) for every
    HoldMem detection that audits, from the audits and writes beside its maintenance logs
    (world, branch, detection, path) and the worlds' gold."""
    audited = [
        (world, branch, detection_system(detection), path.parent)
        for world, branch, detection, path in maintenance
        if detection in AUDITING
    ]
    for _, _, _, folder in audited:
        for name in (layout.AUDITS, layout.WRITES):
            if not layout.table(folder, name).exists():
                raise ArtifactError(f"missing artifact {layout.table(folder, name)}")
    rows = [(w, b, s, layout.table(f, layout.AUDITS)) for w, b, s, f in audited]
    _union_rows(con, "detection_audit_rows", rows, ROWS_COLUMNS, schemas.AUDITS)
    writes = [(w, b, s, layout.table(f, layout.WRITES)) for w, b, s, f in audited]
    _union_rows(con, "detection_writes", writes, ("item_id", "checkpoint"), schemas.WRITES)
    gold = sorted({layout.gold(layout.world_in(worlds_dir, w), b) for w, b, _, _ in audited})
    for path in gold:
        if not path.exists():
            raise ArtifactError(f"missing artifact {path}")
    source = (
        f"read_parquet({path_list(gold)})"
        if gold
        else "(SELECT NULL::INTEGER AS world, NULL::VARCHAR AS branch, NULL::VARCHAR AS item_id, "
        "NULL::TINYINT AS checkpoint, NULL::VARCHAR AS status, NULL::VARCHAR AS value WHERE false)"
    )
    con.execute(
        "CREATE OR REPLACE TABLE gold_outcomes AS "
        f"SELECT world, branch, item_id, checkpoint, status, value FROM {source}"
    )


def _union_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    logs: Sequence[tuple[int, str, str, Path]],
    columns: Sequence[str],
    schema: pa.Schema,
) -> None:
    """Table `table` (world, branch, system, `columns`) of the rows of `logs` (world, branch,
    system, path), empty (with the schema's types) without any."""
    names = identifiers(list(columns))
    con.register(f"no_{table}", schema.empty_table().select(list(columns)))
    selects = [
        "SELECT NULL::INTEGER AS world, NULL::VARCHAR AS branch, NULL::VARCHAR AS system, "
        f"{names} FROM no_{table}"
    ] + [
        f"SELECT {int(world)}, {text_literal(branch)}, {text_literal(system)}, {names} "
        f"FROM read_parquet({path_list([path])})"
        for world, branch, system, path in logs
    ]
    con.execute(f"CREATE OR REPLACE TABLE {table} AS " + " UNION ALL ".join(selects))
    con.unregister(f"no_{table}")


def audit_metrics_table(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """The AUDIT_METRICS table (empty without audits). Needs scores, calls, answer_audit_rows
    and the tables of `load_detection_audits`."""
    run(con, "audit_metrics", out="answer_audit_values")
    run(con, "audit_detection_metrics", out="detection_audit_values")
    con.execute(
        "CREATE OR REPLACE TABLE audit_values AS SELECT * FROM answer_audit_values "
        "UNION ALL SELECT * FROM detection_audit_values"
    )
    return quantity_table(con, "audit_values", ["system"], schemas.AUDIT_METRICS, resampling)
