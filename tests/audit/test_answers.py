"""The answer-level audit on a real world: drafts that still give the fork's value after it
changed are corrected only through a verified transition, and current drafts are left alone."""

from __future__ import annotations

import pyarrow as pa
import pytest

from conftest import data
from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.audit.answers import (
    Draft,
    answer_json,
    draft_value,
    evidence_at,
    request_for,
)
from memshift.audit.arbiter import STALE, judge
from memshift.errors import MemshiftError
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.stages import answer_audit
from memshift.stages.chain import build_world
from memshift.world.records import public_view

SEED = 1000


def fork_value_drafts(branch: str):
    """Every item-time after the fork drafted with the fork's value: stale where it changed."""
    points = data(SEED)[branch].gold.points
    fork = {p.item.item_id: p for p in points if p.checkpoint == 0}
    drafts, truth = [], {}
    for p in points:
        before = fork[p.item.item_id]
        if p.checkpoint == 0 or before.gold.status != "answer":
            continue
        draft = Draft(
            f"{p.item.item_id}@{p.checkpoint}",
            p.checkpoint,
            p.time,
            p.item,
            p.gold.version,
            before.gold.value,
        )
        drafts.append(draft)
        truth[draft.probe_id] = p
    return drafts, truth


def audit(branch: str):
    drafts, truth = fork_value_drafts(branch)
    evidence = evidence_at(public_view(data(SEED)[branch].branch.events), drafts)
    requests = {}
    for d in drafts:
        context = CallContext("test", SEED, branch, "x", d.item.item_id, d.checkpoint)
        request = request_for(d, evidence[d.probe_id], context)
        if request is not None:
            requests[d.probe_id] = request
    replies = ModelClient(Profile("rules", "rules")).generate(list(requests.values()))
    verdicts = {
        probe_id: judge(request, reply.value if reply.ok else None)[0]
        for (probe_id, request), reply in zip(requests.items(), replies, strict=True)
    }
    return truth, verdicts


@pytest.mark.parametrize("branch", ["none", "src", "def", "del"])
def test_a_current_draft_is_never_found_stale(branch):
    truth, verdicts = audit(branch)
    unchanged = [pid for pid, p in truth.items() if not p.changed]
    assert len(unchanged) > 80
    assert [pid for pid in unchanged if pid in verdicts and verdicts[pid].status == STALE] == []


def test_stale_drafts_after_a_source_revision_are_corrected_to_the_current_value():
    truth, verdicts = audit("src")
    stale = {pid: v for pid, v in verdicts.items() if v.status == STALE}
    assert len(stale) >= 5
    for pid, verdict in stale.items():
        assert truth[pid].changed
        assert verdict.current == truth[pid].gold.value
        assert verdict.directive == "repair"  # the answer-level adapter: correct-and-inform


def test_no_request_without_support_or_newer_records():
    drafts, _ = fork_value_drafts("src")
    draft = drafts[0]
    evidence = evidence_at(public_view(data(SEED)["src"].branch.events), [draft])[draft.probe_id]
    context = CallContext()
    unsupported = Draft(draft.probe_id, 1, draft.time, draft.item, 1, "Zzyzx Unheard-of")
    assert request_for(unsupported, evidence, context) is None
    supported = request_for(draft, evidence, context)
    if supported is not None:
        assert all(r.updated > supported.written_at for r in supported.records)
        assert request_for(draft, supported.cited, context) is None  # nothing newer


def test_answer_values_round_trip_through_the_audit():
    assert draft_value('["b", "a"]') == ("a", "b")
    assert draft_value('"Lisbon"') == "Lisbon"
    assert draft_value(None) is None
    assert answer_json(("a", "b")) == '["a", "b"]'
    assert answer_json("Lisbon") == '"Lisbon"'


def test_answers_to_unknown_probes_stop_the_stage_with_the_file(tmp_path):
    world_dir, run_dir = tmp_path / "w0", tmp_path / "run"
    build_world(0, world_dir)
    row = {name: None for name in schemas.ANSWERS.names}
    row.update(probe_id="w0-src-c9-nothing", world=0, branch="src", system="bm25", checkpoint=1)
    row.update(item_id="person.employer", status="answer", value='"Acme"', evidence_items=0)
    row.update(evidence_tokens=0, evidence_hash="")
    answers = layout.system_dir(run_dir, "src", "bm25") / "answers.parquet"
    write_table(pa.Table.from_pylist([row], schema=schemas.ANSWERS), schemas.ANSWERS, answers)
    with pytest.raises(MemshiftError, match=r"answers.parquet: 1 answer\(s\) to probes not in"):
        answer_audit.run(world_dir, run_dir, "src", "bm25", Profile("rules", "rules"), None)
