"""The score stage: every answer joined to its probe and scored."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from memshift import schemas
from memshift.artifacts import write_table
from memshift.errors import MemshiftError
from memshift.probes import probes_to_table
from memshift.stages.score import run


def test_answers_are_scored_against_their_probes_and_strangers_are_refused(tmp_path, data_1000):
    probes = probes_to_table(data_1000["src"].probes, world=1000, branch="src")
    write_table(probes, schemas.PROBES, tmp_path / "w1000" / "probes-src.parquet")
    rows = [
        {
            "probe_id": p["probe_id"],
            "world": 1000,
            "branch": "src",
            "system": "echo",
            "checkpoint": p["checkpoint"],
            "item_id": p["item_id"],
            "status": p["gold_status"],
            "value": p["gold_value"],
            "failure": None,
            "evidence_items": 0,
            "evidence_tokens": 0,
            "evidence_hash": "",
        }
        for p in probes.to_pylist()
    ]
    rows[0] = {**rows[0], "status": "failed", "value": None}
    answers = tmp_path / "answers.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.ANSWERS), schemas.ANSWERS, answers)
    out = tmp_path / "scores.parquet"
    assert run([answers], tmp_path, out) == len(rows)
    scored = pq.read_table(out).to_pylist()
    assert [s["correct"] for s in scored] == [False] + [True] * (len(rows) - 1)
    assert scored[0]["reason"] == "answer failed"
    stranger = tmp_path / "stranger.parquet"
    write_table(
        pa.Table.from_pylist([{**rows[1], "probe_id": "nope"}], schema=schemas.ANSWERS),
        schemas.ANSWERS,
        stranger,
    )
    with pytest.raises(MemshiftError, match="answer to unknown probe nope"):
        run([stranger], tmp_path, tmp_path / "x.parquet")


def test_a_cells_store_is_scored_without_the_reader(tmp_path, data_1000):
    """The newest served row of the probe's item at its checkpoint is compared with gold, status
    and value: a right value, a wrong one, an older right row under a newer wrong one, and
    nothing served (right only where gold abstains)."""
    probes = probes_to_table(data_1000["src"].probes, world=1000, branch="src")
    write_table(probes, schemas.PROBES, tmp_path / "w1000" / "probes-src.parquet")
    direct = [p for p in probes.to_pylist() if p["kind"] == "direct"]
    answered = [p for p in direct if p["gold_status"] == "answer"][:3]
    abstaining = next(p for p in direct if p["gold_status"] == "abstain")
    unserved = next(p for p in direct if p["gold_status"] == "answer" and p not in answered)
    store = [
        (answered[0], 0, answered[0]["gold_value"]),
        (answered[1], 0, '"somewhere else"'),
        (answered[2], 0, answered[2]["gold_value"]),
        (answered[2], 1, '"a newer wrong value"'),
    ]
    rows = schemas.empty_columns(schemas.STORE)
    for probe, position, value in store:
        for name, v in (
            ("checkpoint", probe["checkpoint"]),
            ("item_id", probe["item_id"]),
            ("position", position),
            ("write_id", "w"),
            ("origin", "writer"),
            ("check", "not_checked"),
            ("value", value),
            ("text", "a statement"),
            ("read_scopes", ["email"]),
            ("cited_scopes", ["email"]),
        ):
            rows[name].append(v)
    cell = tmp_path / "run/src/holdmem-d0-source"
    write_table(
        pa.Table.from_pydict(rows, schema=schemas.STORE), schemas.STORE, cell / "store.parquet"
    )
    asked = [*answered, abstaining, unserved]
    answers = [
        {
            "probe_id": p["probe_id"],
            "world": 1000,
            "branch": "src",
            "system": "holdmem-d0-source",
            "checkpoint": p["checkpoint"],
            "item_id": p["item_id"],
            "status": "abstain",
            "value": None,
            "failure": None,
            "evidence_items": 0,
            "evidence_tokens": 0,
            "evidence_hash": "",
        }
        for p in asked
    ]
    path = cell / "answers.parquet"
    write_table(pa.Table.from_pylist(answers, schema=schemas.ANSWERS), schemas.ANSWERS, path)
    run([path], tmp_path, tmp_path / "scores.parquet")
    scored = {
        s["probe_id"]: s["store_correct"]
        for s in pq.read_table(tmp_path / "scores.parquet").to_pylist()
    }
    assert [scored[p["probe_id"]] for p in asked] == [True, False, False, True, False]
