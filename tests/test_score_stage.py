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
