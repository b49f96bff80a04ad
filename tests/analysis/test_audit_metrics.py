"""The audit's own metrics on a constructed study whose every share is known by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_measures import score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.audit_metrics import (
    audit_metrics_table,
    load_answer_audits,
    load_detection_audits,
)
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import log_sources, open_study
from memshift.artifacts import ArtifactError, write_table

WORLDS = range(1, 7)
AUDITED = "bm25+audit"
# probe: (kind, changed, sampled, draft right, directive, source, right after, stale premise,
# gold abstains)
CASES: dict[str, tuple[Any, ...]] = {
    "a": ("direct", True, False, False, "repair", "transition", True, True, False),
    "b": ("direct", True, False, False, "verify", "base", False, False, False),
    "c": ("direct", False, True, True, "none", "base", True, False, False),
    "d": ("direct", False, True, True, "repair", "base", False, False, False),
    "e": ("implicit", True, False, False, "repair", "transition", True, True, False),
    "f": ("direct", False, True, True, "none", "base", True, False, True),
}
# over the direct probes a, b, c, d, f (c, d and f unchanged) unless said otherwise
# e asks about a's item (its implicit probe): their two audits share an item and a checkpoint
ITEM = {"e": "a"}
EXPECTED = {
    "stale_precision": 1 / 2,  # a of the repairs a, d
    "true_change_recall": 1 / 2,  # a of the wrong drafts a, b on changed item-times
    "false_invalidation": 1 / 3,  # d of c, d, f
    "verify_rate": 1 / 5,  # b
    "rewrite_conflict_free": 1 / 3,  # d of the right drafts c, d, f
    "parse_failure": 1 / 6,  # c's reply, of six audits
    "alignment": 1.0,  # a and e, repaired from a verified transition, end right
    "stale_premise_recall_direct": 1 / 2,  # a of a, b
    "stale_premise_recall_implicit": 1.0,  # e
    "abstention_kept": 1.0,  # f
    "abstention_verified": 0.0,
    "accuracy_direct": 3 / 5,  # a, c, f
    "calls_per_audit": 1.0,
    "tokens_per_audit": 601 / 6,  # e's call read one more token
}


def rows_of(world: int) -> tuple[list[dict[str, Any]], ...]:
    scores, audits, calls = [], [], []
    for probe, case in CASES.items():
        kind, changed, sampled, draft, directive, source, after, stale, abstains = case
        fields = {
            "world": world,
            "kind": kind,
            "changed": changed,
            "sampled": sampled,
            "gold_status": "abstain" if abstains else "answer",
        }
        status = "abstain" if abstains else "answer"
        item = ITEM.get(probe, probe)
        fields.update(status=status, probe_id=f"{probe}-1")
        scores.append(score(item, 1, draft, system="bm25", **fields))
        scores.append(score(item, 1, after, system=AUDITED, **fields))
        verdict = {"repair": "STALE", "verify": "UNKNOWN", "none": "VALID"}[directive]
        common = {"probe_id": f"{probe}-1", "item_id": item, "checkpoint": 1, "causal_path": []}
        audits.append(
            {
                **common,
                "row": "verdict",
                "verdict": verdict,
                "directive": directive,
                "source": source,
                "parsed": probe != "c",
            }
        )
        audits.append(
            {
                **common,
                "row": "premise",
                "premise_verdict": "STALE" if stale else "VALID",
                "found_by": "state",
                "parsed": True,
            }
        )
        calls.append(
            {
                "run": "rules",
                "role": "auditor",
                "world": world,
                "branch": "src",
                "system": AUDITED,
                "item": item,
                "checkpoint": 1,
                "tokens_in": 90,
                "tokens_out": 11 if probe == "e" else 10,
            }
        )
    return scores, audits, calls


def study(tmp_path: Path) -> list[Path]:
    scores, logs, calls = [], [], []
    for world in WORLDS:
        s, a, c = rows_of(world)
        scores += s
        calls += c
        path = tmp_path / f"w{world}/audit/src/{AUDITED}/answer-audits.parquet"
        write_table(pa.Table.from_pylist(a, schema=schemas.AUDITS), schemas.AUDITS, path)
        logs.append(path)
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    call_log = tmp_path / "calls-auditor.parquet"
    write_table(pa.Table.from_pylist(calls, schema=schemas.CALLS), schemas.CALLS, call_log)
    return [*logs, call_log]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_share_is_the_hand_computed_one_with_an_interval_around_it(tmp_path, seed):
    logs = study(tmp_path)
    con = open_study(tmp_path / "s.parquet", logs)
    load_answer_audits(con, log_sources(logs).answer_audits)
    load_detection_audits(con, [], tmp_path)
    resampling = Resampling(draws=50, seed=seed)
    measures.compute(con, resampling)  # the world draws every quantity shares
    rows = audit_metrics_table(con, resampling).to_pylist()
    found = {r["quantity"]: r for r in rows if r["system"] == AUDITED}
    for quantity, expected in EXPECTED.items():
        row = found[quantity]
        assert row["estimate"] == pytest.approx(expected), quantity
        assert row["worlds"] == len(WORLDS)
        # every world is alike, so every draw gives the same share
        assert row["low"] == pytest.approx(expected) and row["high"] == pytest.approx(expected)
    assert {r["system"] for r in rows} == {AUDITED}


def test_a_detection_that_audits_needs_its_audits_beside_its_maintenance_log(tmp_path):
    maintenance = tmp_path / "w1/detections/src/holdmem-audit/maintenance.parquet"
    maintenance.parent.mkdir(parents=True)
    with pytest.raises(ArtifactError, match=r"audits\.parquet"):
        load_detection_audits(duckdb.connect(), [(1, "src", "audit", maintenance)], tmp_path)


# --- the audit detection ---------------------------------------------------------------------

# gold per item and checkpoint; every item written at the fork, x written again at checkpoint 1
GOLD = {"x": ("A", "B", "B"), "y": ("C", "C", "C"), "z": ("D", "D", "E")}
WRITES = [("x", 0), ("y", 0), ("z", 0), ("x", 1)]
# (item, checkpoint): directive, source, current value, a STALE premise
DETECTION_AUDITS = {
    ("x", 1): ("repair", "transition", "B", True),
    ("y", 1): ("verify", "base", None, False),
    ("y", 2): ("repair", "base", "X", False),
    ("z", 2): ("none", "base", None, False),
}
# item-times after the fork: x1 changed (repaired), x2 unchanged since x's write at 1, y1 and
# y2 unchanged, z1 unchanged, z2 changed (missed)
EXPECTED_DETECTION = {
    "stale_precision": 1 / 2,  # x1 of the repairs x1, y2
    "true_change_recall": 1 / 2,  # x1 of x1, z2
    "false_invalidation": 1 / 4,  # y2 of x2, y1, y2, z1
    "verify_rate": 1 / 4,  # y1 of four audits
    "rewrite_conflict_free": 1.0,  # y1 and y2, the audits of unchanged item-times
    "parse_failure": 0.0,
    "alignment": 1.0,  # x1's current value is the gold
    "stale_premise_recall_direct": 1 / 2,  # x1 of x1, z2
    "calls_per_audit": 1.0,
}


def detection_study(tmp_path: Path) -> tuple[list[Path], list[tuple[int, str, str, Path]]]:
    scores, calls, maintenance = [], [], []
    for world in WORLDS:
        folder = tmp_path / f"w{world}/detections/src/holdmem-audit"
        audits = []
        for (item, k), (directive, source, current, stale) in DETECTION_AUDITS.items():
            verdict = {"repair": "STALE", "verify": "UNKNOWN", "none": "VALID"}[directive]
            common = {"probe_id": "", "item_id": item, "checkpoint": k, "causal_path": []}
            audits.append(
                {
                    **common,
                    "row": "verdict",
                    "verdict": verdict,
                    "directive": directive,
                    "source": source,
                    "current_value": None if current is None else f'"{current}"',
                    "parsed": True,
                }
            )
            audits.append(
                {**common, "row": "premise", "parsed": True, "found_by": "state"}
                | {"premise_verdict": "STALE" if stale else "VALID"}
            )
            calls.append(
                {"run": "rules", "role": "auditor", "world": world, "branch": "src"}
                | {"system": "holdmem-audit", "item": item, "checkpoint": k}
                | {"tokens_in": 50, "tokens_out": 5}
            )
        write_table(
            pa.Table.from_pylist(audits, schema=schemas.AUDITS),
            schemas.AUDITS,
            folder / "audits.parquet",
        )
        writes = [{"write_id": f"{i}{k}", "item_id": i, "checkpoint": k} for i, k in WRITES]
        write_table(
            pa.Table.from_pylist(writes, schema=schemas.WRITES),
            schemas.WRITES,
            folder / "writes.parquet",
        )
        gold = [
            {"world": world, "branch": "src", "item_id": item, "checkpoint": k}
            | {"status": "answer", "value": f'"{value}"'}
            for item, values in GOLD.items()
            for k, value in enumerate(values)
        ]
        write_table(
            pa.Table.from_pylist(gold, schema=schemas.GOLD),
            schemas.GOLD,
            tmp_path / f"worlds/w{world}/gold-src.parquet",
        )
        maintenance.append((world, "src", "audit", folder / "maintenance.parquet"))
        scores.append(score("x", 1, True, world=world, system="bm25"))
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    call_log = tmp_path / "calls.parquet"
    write_table(pa.Table.from_pylist(calls, schema=schemas.CALLS), schemas.CALLS, call_log)
    return [call_log], maintenance


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_audit_detection_counts_changes_since_each_items_last_write(tmp_path, seed):
    logs, maintenance = detection_study(tmp_path)
    con = open_study(tmp_path / "s.parquet", logs)
    load_answer_audits(con, [])
    load_detection_audits(con, maintenance, tmp_path / "worlds")
    resampling = Resampling(draws=50, seed=seed)
    measures.compute(con, resampling)
    rows = audit_metrics_table(con, resampling).to_pylist()
    found = {r["quantity"]: r for r in rows if r["system"] == "holdmem-audit"}
    for quantity, expected in EXPECTED_DETECTION.items():
        assert found[quantity]["estimate"] == pytest.approx(expected), quantity
        assert found[quantity]["low"] == pytest.approx(expected), quantity
    assert found["tokens_per_audit"]["estimate"] == pytest.approx(55.0)


ABLATION = "bm25+audit-control"


def test_an_ablation_is_set_against_the_full_audit_on_the_same_probes(tmp_path):
    """The ablation answers as the full audit does, except that it leaves a's wrong draft: one
    right answer fewer of the five direct probes and none fewer of e, the implicit one."""
    logs = study(tmp_path)
    scores = pq.read_table(tmp_path / "s.parquet").to_pylist()
    ablated = [
        {**r, "system": ABLATION, "correct": r["correct"] and r["probe_id"] != "a-1"}
        for r in scores
        if r["system"] == AUDITED
    ]
    write_table(
        pa.Table.from_pylist(scores + ablated, schema=schemas.SCORES),
        schemas.SCORES,
        tmp_path / "s.parquet",
    )
    for world in WORLDS:
        path = tmp_path / f"w{world}/audit/src/{ABLATION}/answer-audits.parquet"
        write_table(schemas.AUDITS.empty_table(), schemas.AUDITS, path)
        logs.append(path)
    con = open_study(tmp_path / "s.parquet", logs)
    load_answer_audits(con, log_sources(logs).answer_audits)
    load_detection_audits(con, [], tmp_path)
    resampling = Resampling(draws=50)
    measures.compute(con, resampling)
    rows = audit_metrics_table(con, resampling).to_pylist()
    found = {(r["system"], r["quantity"]): r["estimate"] for r in rows}
    assert found[(ABLATION, "versus_full_direct")] == pytest.approx(-1 / 5)
    assert found[(ABLATION, "versus_full_implicit")] == pytest.approx(0.0)
    assert (AUDITED, "versus_full_direct") not in found  # the full audit has no such row
