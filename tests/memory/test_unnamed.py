"""Unnamed probes on a real world: asked beside each definition item's probe after a
redefinition, without the sentence that names the definition; the memory and the reader get no
version for them, and the rule-based reader answers a stored statement the same either way."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import world
from memshift import layout, vocabulary
from memshift.analysis.bootstrap import Resampling, register_weights
from memshift.analysis.frame import open_study
from memshift.analysis.unnamed import unnamed_table
from memshift.memory.reading import questions
from memshift.models.profiles import Profile
from memshift.models.requests import ReaderRequest
from memshift.probes.build import NAMING, UNNAMED
from memshift.simulator.reader import version_in_evidence
from memshift.stages import audit_repair, ingest, prefork, probe, score
from memshift.stages.chain import build_world
from memshift.world.stored import load

RULES = Profile("rules", "rules")
BRANCHES = ("none", "def")
CELLS = [vocabulary.cell_system(d, r) for d in ("append", "source") for r in ("0", "1")]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("unnamed")
    world_dir, run_dir = root / "w1000", root / "run" / "w1000"
    build_world(1000, world_dir, BRANCHES)
    prefork.run(world_dir, run_dir, RULES, None)
    for detection in ("append", "source"):
        ingest.run(world_dir, run_dir, "def", detection, RULES, None)
        for repair in ("0", "1"):
            audit_repair.run(world_dir, run_dir, "def", detection, repair, RULES, None)
    for system in CELLS:
        probe.run(world_dir, run_dir, "def", system, RULES, None)
    return world_dir, run_dir


def probes(world_dir: Path, branch: str) -> list[dict]:
    return pq.read_table(layout.probes(world_dir, branch)).to_pylist()


def test_each_definition_probe_after_a_redefinition_has_an_unnamed_twin(study) -> None:
    world_dir, _ = study
    rows = probes(world_dir, "def")
    by_id = {r["probe_id"]: r for r in rows}
    unnamed = [r for r in rows if r["kind"] == UNNAMED]
    named = [
        r
        for r in rows
        if r["kind"] == "direct"
        and r["item_class"] == "definition"
        and r["checkpoint"] > 0
        and (r["changed"] or r["sampled"])
    ]
    assert unnamed and len(unnamed) == len(named)
    for r in unnamed:
        twin = by_id[r["probe_id"].removesuffix("-unnamed")]
        assert "Definition in effect" not in r["question"] and r["definition_text"] is None
        assert twin["question"] == r["question"] + NAMING + twin["definition_text"]
        same = ("item_id", "checkpoint", "gold_value", "gold_status", "changed", "sampled")
        assert {k: r[k] for k in same} == {k: twin[k] for k in same}
    assert not [r for r in probes(world_dir, "none") if r["kind"] == UNNAMED]


def test_an_unnamed_question_carries_no_version(study) -> None:
    world_dir, _ = study
    table = pq.read_table(layout.probes(world_dir, "def"))
    kinds = table.column("kind").to_pylist()
    asked = questions(table, load(world_dir, with_events=False).items)
    assert all(
        (q.version is None) == (kind == UNNAMED) for (_, q), kind in zip(asked, kinds, strict=True)
    )


def test_the_rule_based_cells_answer_an_unnamed_probe_as_its_named_twin(study) -> None:
    _, run_dir = study
    for system in CELLS:
        answers = {
            r["probe_id"]: (r["status"], r["value"])
            for r in pq.read_table(
                layout.table(layout.system_dir(run_dir, "def", system), layout.ANSWERS)
            ).to_pylist()
        }
        pairs = [
            (a, answers[a.removesuffix("-unnamed")]) for a in answers if a.endswith("-unnamed")
        ]
        assert pairs
        assert all(answers[a] == twin for a, twin in pairs), system


def test_without_a_named_definition_the_reader_takes_the_newest_the_evidence_announces() -> None:
    item = next(i for i in world(1000).items if i.item_id == "def.important_contacts")
    announce = "Definition important_contact is now version {}: ..."

    def request(*evidence: str) -> ReaderRequest:
        return ReaderRequest(item, None, datetime(2026, 11, 1), "q", evidence)

    assert version_in_evidence(request()) == 1
    assert version_in_evidence(request(announce.format(2))) == 2
    assert version_in_evidence(request(announce.format(2), announce.format(1))) == 1


def test_named_and_unnamed_differ_by_exactly_zero_and_stay_out_of_the_measures(
    study, tmp_path: Path
) -> None:
    world_dir, run_dir = study
    scores = tmp_path / "scores.parquet"
    answers = [layout.table(layout.system_dir(run_dir, "def", s), layout.ANSWERS) for s in CELLS]
    score.run(answers, world_dir.parent, scores, stores={1000: layout.stores_dir(run_dir)})
    maintenance = [
        layout.table(layout.detection_dir(run_dir, "def", f"holdmem-{d}"), layout.MAINTENANCE)
        for d in ("append", "source")
    ]
    con = open_study(scores, maintenance)
    counted = "SELECT count(*) FROM item_times WHERE probe_id LIKE '%-unnamed'"
    assert con.execute(counted).fetchall() == [(0,)]
    resampling = Resampling(draws=50)
    register_weights(con, [1000], [], resampling)
    rows = {r["quantity"]: r for r in unnamed_table(con, resampling).to_pylist()}
    assert rows["b_named"]["n"] > 0
    assert rows["b_difference"]["estimate"] == rows["bxd_difference"]["estimate"] == 0.0
    assert rows["b_named"]["estimate"] == rows["b_unnamed"]["estimate"]
