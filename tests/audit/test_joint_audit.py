"""The scenario-joint audit (StateAuditor §3, §4.4, Table 1; the `joint` audit variant): the
answers about one item-time go out in one call whatever the batch, the auditor is told they
describe one situation, and a transition verified for any of them repairs every other whose
answer is not its new value: also an answer its own audit could not tell stale (no record of the
evidence states it), which is what makes it privileged."""

from __future__ import annotations

from dataclasses import replace

import pytest

from audit.test_batched_audit import RULES, context, three_drafts_an_item_time
from conftest import data
from memshift.audit.answers import answers_requests, evidence_at
from memshift.audit.arbiter import REPAIR, TRANSITION, judge
from memshift.models import prompts
from memshift.models.client import ModelClient
from memshift.simulator.errors import corrupt
from memshift.world.records import public_view

SEEDS = [1000, 1001, 1002]


def four_drafts_an_item_time(branch: str, seed: int):
    """The three drafts of `three_drafts_an_item_time` and, where the fork held a value, one no
    record states (a draft that read what the audit was not shown, or made it up)."""
    drafts = three_drafts_an_item_time(branch, seed)
    unstated = [
        replace(d, probe_id=d.probe_id + "-unstated", value=corrupt(d.item, d.value))
        for d in drafts
        if not d.probe_id.endswith(("-now", "-none")) and d.value is not None
    ]
    return drafts + unstated


def decided(drafts, evidence, variant: str, batch: int):
    calls = answers_requests(drafts, evidence, context, variant, batch)
    replies = ModelClient(RULES).generate([request.sent for request, _ in calls])
    out = {}
    for (request, ids), reply in zip(calls, replies, strict=True):
        assert reply.ok
        for k, probe_id in enumerate(ids):
            out[probe_id] = judge(request.alone(k), request.audits(reply.value)[k])
    return calls, out


def item_time(probe_id: str) -> str:
    return probe_id.removesuffix("-unstated").removesuffix("-now").removesuffix("-none")


def test_an_item_times_answers_go_out_in_one_call_whatever_the_batch():
    drafts = four_drafts_an_item_time("src", 1000)
    evidence = evidence_at(public_view(data(1000)["src"].branch.events), drafts)
    calls = answers_requests(drafts, evidence, context, "joint", batch=1)
    groups = {item_time(d.probe_id) for d in drafts if evidence[d.probe_id]}
    assert len(calls) == len(groups)
    assert max(len(ids) for _, ids in calls) == 4
    for _, ids in calls:
        assert {item_time(i) for i in ids} == {item_time(ids[0])}
    joint = prompts.build(calls[0][0])[0]["content"]
    assert "together: they answer questions about one situation" in joint
    alone, _ = answers_requests(drafts, evidence, context, "full", batch=4)[0]
    assert (
        "each on its own (one statement's audit never uses another"
        in (prompts.build(alone)[0]["content"])
    )


@pytest.mark.parametrize(("seed", "branch"), list(zip(SEEDS, ["src", "del", "def"], strict=True)))
def test_a_transition_verified_for_one_answer_repairs_each_other_answer_it_changes(seed, branch):
    drafts = four_drafts_an_item_time(branch, seed)
    evidence = evidence_at(public_view(data(seed)[branch].branch.events), drafts)
    _, alone = decided(drafts, evidence, "full", batch=1)
    _, joint = decided(drafts, evidence, "joint", batch=1)
    assert joint.keys() == alone.keys()
    verified: dict[str, set] = {}
    for probe_id, audit in alone.items():
        if audit.verdict.source == TRANSITION:
            verified.setdefault(item_time(probe_id), set()).add(str(audit.verdict.current))
    by_id = {d.probe_id: d for d in drafts}
    reached = 0
    for probe_id, audit in joint.items():
        own, value = alone[probe_id].verdict, str(by_id[probe_id].value)
        others = verified.get(item_time(probe_id), set()) - {value}
        if own.directive == REPAIR:
            # nothing an answer's own audit repairs is lost, nor repaired elsewhere
            assert (audit.verdict.directive, audit.verdict.current) == (REPAIR, own.current)
        elif others:
            assert audit.verdict.directive == REPAIR, probe_id
            assert audit.verdict.source == TRANSITION and str(audit.verdict.current) in others
            reached += 1
        else:
            assert audit.verdict == own, probe_id
    # the joint audit reaches answers their own audit cannot tell stale (it asks to verify)
    assert reached > 0
