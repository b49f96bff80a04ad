"""`memshift explain`: one score drilled into, from a small study's real artifacts."""

from __future__ import annotations

import dataclasses
import sys
from functools import cache
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import data, world
from memshift import layout, schemas
from memshift.artifacts import write_json, write_table
from memshift.cli import main
from memshift.errors import MemshiftError
from memshift.explain import Explanation, Target, explain, gather, render
from memshift.explain.gather import detect, not_recomputed
from memshift.gold.tables import gold_to_table
from memshift.layout import Study
from memshift.models.profiles import Profile
from memshift.probes.build import probes_to_table
from memshift.scoring.scorer import score
from memshift.stages import answer_audit, audit_repair, ingest, prefork, probe
from memshift.stages import score as score_stage
from memshift.world.tables import events_to_table, world_description

SEED, BRANCH, CELL = 1000, "src", "holdmem-d1-source"
RULES = Profile("rules", "rules")


def laid_out(root: Path) -> Study:
    """Where the study of these tests lives under `root`, as its config file says."""
    return Study(root, "explain", 9, "rules")


STUDY_FILE = """study: explain
results: {root}
worlds: {{seeds: 1000}}
branches: [none, src]
"""


def study(root: Path) -> Path:
    """World 1000's src branch laid out under `root` as the pipeline lays out a study: a HoldMem
    cell and bm25 asked, only bm25's answers scored (the cell's score is computed on the spot)."""
    laid = laid_out(root)
    world_dir, run_dir = laid.world(SEED), laid.run_world(SEED)
    write_json(world_description(world(SEED)), layout.world_description(world_dir))
    for branch in ("none", BRANCH):
        d = data(SEED)[branch]
        events = events_to_table(d.branch.events, world=SEED, branch=branch)
        write_table(events, schemas.EVENTS, layout.events(world_dir, branch))
    d = data(SEED)[BRANCH]
    gold = gold_to_table(d.gold.points, world=SEED, branch=BRANCH)
    write_table(gold, schemas.GOLD, layout.gold(world_dir, BRANCH))
    probes = probes_to_table(d.probes, world=SEED, branch=BRANCH)
    write_table(probes, schemas.PROBES, layout.probes(world_dir, BRANCH))
    prefork.run(world_dir, run_dir, RULES, None)
    ingest.run(world_dir, run_dir, BRANCH, "source", RULES, None)
    audit_repair.run(world_dir, run_dir, BRANCH, "source", "1", RULES, None)
    for system in (CELL, "bm25"):
        probe.run(world_dir, run_dir, BRANCH, system, RULES, None)
    answer_audit.run(world_dir, run_dir, BRANCH, "bm25", RULES, None)
    bm25_answers = layout.system_dir(run_dir, BRANCH, "bm25") / "answers.parquet"
    score_stage.run([bm25_answers], laid.worlds, laid.scores)
    return root


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    return study(tmp_path_factory.mktemp("study"))


@cache
def explained(results: Path, system: str, item: str, checkpoint: int) -> Explanation:
    return explain(laid_out(results), Target(SEED, BRANCH, system, item, checkpoint))


def table(results: Path, relative: str) -> list[dict]:
    return pq.read_table(results / relative).to_pylist()


def detected_changed_item(results: Path) -> tuple[str, int]:
    """A changed item-time of the branch with an answer, whose item the source key invalidated
    in its window."""
    maintenance = table(
        results,
        f"runs/explain/h9/rules/w{SEED}/detections/{BRANCH}/holdmem-source/maintenance.parquet",
    )
    invalidated = {(m["item_id"], m["checkpoint"]) for m in maintenance if m["invalidated"]}
    for p in table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet"):
        window = range(max(p["last_change"], 1), p["checkpoint"] + 1)
        answered = p["changed"] and p["gold_status"] == "answer"
        if answered and any((p["item_id"], c) in invalidated for c in window):
            return p["item_id"], p["checkpoint"]
    raise AssertionError("no changed item-time was invalidated")


def test_the_probe_and_its_dependencies_are_those_of_the_gold_table(results):
    item, k = detected_changed_item(results)
    e = explained(results, CELL, item, k)
    (gold,) = [
        g
        for g in table(results, f"worlds/w{SEED}/gold-{BRANCH}.parquet")
        if g["item_id"] == item and g["checkpoint"] == k
    ]
    assert (e.probe.gold_status, e.probe.gold_value) == (gold["status"], gold["value"])
    assert e.probe.changed and e.probe.last_change == gold["last_change"]
    deps = [(d.object_id, d.revision) for d in e.probe.dependencies]
    assert deps == [(d["object_id"], d["revision"]) for d in gold["deps"]]
    assert deps, "a changed item-time with an answer depends on records"
    texts = {
        (ev["object_id"], ev["revision"]): ev["text"]
        for ev in table(results, f"worlds/w{SEED}/events-{BRANCH}.parquet")
        if ev["op"] in ("insert", "update")
    }
    assert [d.text for d in e.probe.dependencies] == [texts[dep] for dep in deps]
    shown = render(e)
    assert f"gold        {gold['status']} {gold['value']}" in shown
    for d in e.probe.dependencies:
        assert f"{d.object_id} r{d.revision}: " in shown


def test_a_holdmem_cell_shows_the_invalidation_that_detected_a_changed_item(results):
    item, k = detected_changed_item(results)
    e = explained(results, CELL, item, k)
    assert e.holdmem is not None
    assert e.holdmem.detection.detected
    assert e.holdmem.detection.reason == "key changed"
    assert all(m.checkpoint <= k for m in e.holdmem.maintenance)
    assert all(w.checkpoint <= k for w in e.holdmem.writes)
    store = [
        s
        for s in table(
            results, f"runs/explain/h9/rules/w{SEED}/stores/{BRANCH}/{CELL}/store.parquet"
        )
        if s["item_id"] == item and s["checkpoint"] == k
    ]
    assert [s.text for s in e.holdmem.store] == [s["text"] for s in store]
    shown = render(e)
    assert f"detected: invalidated at checkpoint {e.holdmem.detection.at} (key changed)" in shown


def test_detection_counts_only_invalidations_from_the_last_change_to_the_checkpoint():
    rows = [{"checkpoint": c, "invalidated": c in (1, 4), "reason": "key changed"} for c in (1, 2)]
    assert detect(rows, last_change=2, checkpoint=3).at is None
    assert detect(rows, last_change=0, checkpoint=3).at == 1
    assert detect(rows, last_change=0, checkpoint=0).at is None


@pytest.mark.parametrize("system", [CELL, "bm25"])
def test_the_recomputed_evidence_is_what_the_reader_saw(results, system):
    item, k = detected_changed_item(results)
    e = explained(results, system, item, k)
    assert e.evidence.items is not None
    assert e.evidence.matches is True
    assert len(e.evidence.items) == e.answer.evidence_items
    assert "hashes match     yes" in render(e)


def test_a_hash_that_differs_is_said_plainly(results):
    item, k = detected_changed_item(results)
    e = explained(results, CELL, item, k)
    tampered = dataclasses.replace(e, evidence=dataclasses.replace(e.evidence, stored_hash="0"))
    assert "hashes match     NO: the recomputed evidence differs" in render(tampered)


def test_an_audited_answer_shows_the_draft_the_audit_and_the_audited_systems_evidence(results):
    audits = table(
        results, f"runs/explain/h9/rules/w{SEED}/audit/{BRANCH}/bm25+audit/answer-audits.parquet"
    )
    stale = next(a for a in audits if a["row"] == "verdict" and a["source"] == "transition")
    (p,) = [
        p
        for p in table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet")
        if p["probe_id"] == stale["probe_id"]
    ]
    target = Target(SEED, BRANCH, "bm25+audit", p["item_id"], p["checkpoint"], p["kind"])
    e = explain(laid_out(results), target)
    assert e.audit is not None and e.audit.audited == "bm25"
    assert e.evidence.matches is True  # bm25's evidence, recomputed
    assert e.answer.value == stale["current_value"] != e.audit.draft.value
    shown = render(e)
    assert f"draft of bm25: answer {e.audit.draft.value}" in shown
    assert "verdict STALE from transition (verified transition" in shown
    assert "directive correct-and-inform" in shown
    assert ": verified" in shown and "premise (state pass)" in shown
    assert (
        e.holdmem is None
        and explained(results, "bm25", p["item_id"], p["checkpoint"]).audit is None
    )


def test_systems_whose_evidence_is_not_recomputed_say_why():
    assert not_recomputed("bm25") is None and not_recomputed("holdmem-dm-citation") is None
    assert "dense embedding model" in (not_recomputed("rag") or "")
    assert "custom system" in (not_recomputed("mine") or "")


def test_a_registered_baseline_is_not_called_a_custom_system(monkeypatch):
    # a baseline added as docs/extending.md shows is a baseline to explain, not a custom system
    monkeypatch.setattr(gather, "BASELINES", (*gather.BASELINES, "recent"))
    why = gather.not_recomputed("recent") or ""
    assert "baseline" in why and "custom" not in why


def test_the_score_is_read_from_scores_parquet_or_computed_and_said_so(results):
    item, k = detected_changed_item(results)
    assert explained(results, "bm25", item, k).score.scored_now is None
    e = explained(results, CELL, item, k)
    assert e.score.scored_now is not None and "has no row for this answer" in e.score.scored_now
    (p,) = [
        p
        for p in table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet")
        if p["item_id"] == item and p["checkpoint"] == k and p["kind"] == "direct"
    ]
    verdict = score(
        p["value_type"], p["gold_status"], p["gold_value"], e.answer.status, e.answer.value
    )
    assert (e.score.correct, e.score.reason) == (verdict.correct, verdict.reason)
    assert "scored now:" in render(e)


def test_a_checkpoint_without_a_probe_names_the_probed_checkpoints(results):
    probes = table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet")
    checkpoints: dict[str, list[int]] = {}
    for p in probes:
        if p["kind"] == "direct":
            checkpoints.setdefault(p["item_id"], []).append(p["checkpoint"])
    item, probed = next((i, sorted(c)) for i, c in checkpoints.items() if 0 < len(c) < 5)
    missing = next(k for k in range(5) if k not in probed)
    expected = (
        f"no direct probe for item {item} at checkpoint {missing} on branch {BRANCH} of world "
        f"{SEED}; "
        f"probed checkpoints: {', '.join(map(str, probed))}"
    )
    with pytest.raises(MemshiftError) as error:
        explain(laid_out(results), Target(SEED, BRANCH, CELL, item, missing))
    assert str(error.value) == expected


def test_a_premise_probe_is_explained_with_the_value_it_presupposes(results):
    probes = table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet")
    premise = next(p for p in probes if p["kind"] == "premise")
    target = Target(SEED, BRANCH, CELL, premise["item_id"], premise["checkpoint"], "premise")
    text = render(explain(laid_out(results), target))
    assert f"probe       {premise['probe_id']}\n" in text
    assert f"presupposes {premise['premise_value']} (the value at the fork)" in text
    direct = render(explain(laid_out(results), dataclasses.replace(target, kind="direct")))
    assert "presupposes" not in direct


def test_a_missing_system_lists_the_systems_answered(results):
    answered = r"systems answered there: bm25, bm25\+audit, holdmem-d1-source$"
    with pytest.raises(MemshiftError, match=answered):
        explain(laid_out(results), Target(SEED, BRANCH, "oracle", "person.employer", 0))


def memshift(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["memshift", *args])
    try:
        main()
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_prints_every_section(results, monkeypatch, capsys):
    item, k = detected_changed_item(results)
    config = results / "study.yaml"
    config.write_text(STUDY_FILE.format(root=results))
    where = ["--configfile", str(config), "--world", str(SEED)]
    code, out, _ = memshift(
        monkeypatch,
        capsys,
        "explain",
        *where,
        *("--branch", BRANCH, "--system", CELL, "--item", item, "--checkpoint", str(k)),
    )
    assert code == 0
    for section in (
        "Probe",
        "Gold dependencies",
        "HoldMem writes up to checkpoint",
        "Maintenance up to checkpoint",
        "Detection for this item-time",
        "Repaired store at checkpoint",
        "Evidence the reader saw",
        "Answer",
        "Score",
    ):
        assert f"\n{section}" in out
    code, _, err = memshift(
        monkeypatch,
        capsys,
        "explain",
        *where,
        *("--branch", BRANCH, "--system", CELL, "--item", "no.such", "--checkpoint", "0"),
    )
    assert code == 2
    assert err.startswith("memshift: error: no direct probe for item no.such on branch src")


def test_an_implicit_probe_is_explained_with_its_own_question_and_gold(results):
    implicit = next(
        p
        for p in table(results, f"worlds/w{SEED}/probes-{BRANCH}.parquet")
        if p["kind"] == "implicit"
    )
    target = Target(SEED, BRANCH, "bm25", implicit["item_id"], implicit["checkpoint"], "implicit")
    shown = render(explain(laid_out(results), target))
    assert implicit["question"] in shown and implicit["probe_id"] in shown


def test_an_answer_lists_the_calls_it_depends_on_with_a_failed_calls_reason_and_raw_text():
    from analysis.test_costs import call
    from memshift.explain.gather import answered_by, item_calls
    from memshift.explain.render import _call_lines

    item, k = "person.employer", 2
    target = Target(SEED, BRANCH, "holdmem-d0-source+audit", item, k)
    assert answered_by(target.system) == (
        "holdmem-d0-source+audit",
        "holdmem-d0-source",
        "holdmem-source",
        "holdmem",
    )
    rows = [
        call("holdmem", "writer", "none", SEED, item=item, checkpoint=0),
        call("holdmem-source", "writer", BRANCH, SEED, item=item, checkpoint=1),
        call("holdmem-source", "writer", BRANCH, SEED, item=item, checkpoint=3),  # after it
        call("holdmem-source", "writer", "del", SEED, item=item, checkpoint=1),  # another branch
        call("holdmem-append", "writer", BRANCH, SEED, item=item, checkpoint=1),  # another cell
        call("holdmem-d0-source", "reader", BRANCH, SEED, item=item, checkpoint=1),  # another time
        call("holdmem-d0-source", "reader", BRANCH, SEED, item="other.item", checkpoint=k),
        {
            **call("holdmem-d0-source", "reader", BRANCH, SEED, item=item, checkpoint=k),
            "failure": "invalid_json",
            "detail": "Expecting property name",
            "raw": "{not json",
        },
        # a log written before the raw column existed
        {
            key: value
            for key, value in call(
                "holdmem-d0-source+audit",
                "auditor",
                BRANCH,
                SEED,
                item=item,
                checkpoint=k,
                failure="truncated",
                detail="cut at 512 tokens",
            ).items()
            if key != "raw"
        },
    ]
    calls = item_calls(rows, target)
    assert [(c.role, c.system, c.checkpoint) for c in calls] == [
        ("writer", "holdmem", 0),
        ("writer", "holdmem-source", 1),
        ("reader", "holdmem-d0-source", k),
        ("auditor", "holdmem-d0-source+audit", k),
    ]
    shown = "\n".join(_call_lines(calls))
    assert "reader of holdmem-d0-source at checkpoint 2 (server, 100 in, 10 out): FAILED: " in shown
    assert "    detail: Expecting property name\n    raw reply:\n        {not json" in shown
    assert "FAILED: truncated\n    detail: cut at 512 tokens\n    raw reply: - (none kept)" in shown
    assert "writer of holdmem at checkpoint 0 (server, 100 in, 10 out): ok" in shown


def test_the_explanation_of_an_answer_shows_its_model_calls(results):
    item, k = detected_changed_item(results)
    shown = render(explained(results, CELL, item, k))
    assert "Model calls (" in shown
    assert f"reader of {CELL} at checkpoint {k}" in shown
