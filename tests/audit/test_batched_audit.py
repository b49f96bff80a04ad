"""One call audits several of a system's answers about one item at one time against the records
they share: each answer is decided as its audit alone would decide it, the records are sent once,
and a failed call leaves each of its answers as drafted, counted as one failed call."""

from __future__ import annotations

import json
from dataclasses import replace

import pyarrow.parquet as pq
import pytest

from audit.test_answers import fork_value_drafts, written_answers
from conftest import data
from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.audit.answers import answers_requests, evidence_at, request_for
from memshift.audit.arbiter import judge
from memshift.errors import ConfigError
from memshift.intake.reading import config_schema
from memshift.models import prompts
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.reply_schemas import MAX_AUDITED_ANSWERS, check_reply, schema_name
from memshift.models.requests import CallContext
from memshift.stages import answer_audit
from memshift.stages.chain import build_world
from memshift.world.records import public_view
from memshift_tools.localserver import FaultRule, LocalServer
from models.batchwork import openai_profile

RULES = Profile("rules", "rules")
SEEDS = [1000, 1001, 1002]


def three_drafts_an_item_time(branch: str, seed: int):
    """Every item-time after the fork drafted three ways: the fork's value, the current value,
    and an abstention, as three probes of one item-time are."""
    drafts, truth = fork_value_drafts(branch, seed)
    more = []
    for d in drafts:
        gold = truth[d.probe_id].gold
        current = gold.value if gold.status == "answer" else None
        more += [d, replace(d, probe_id=f"{d.probe_id}-now", value=current),
                 replace(d, probe_id=f"{d.probe_id}-none", value=None)]  # fmt: skip
    return more


def context(draft) -> CallContext:
    return CallContext("test", 0, "src", "x", draft.item.item_id, draft.checkpoint)


@pytest.mark.parametrize(("seed", "branch"), list(zip(SEEDS, ["src", "del", "def"], strict=True)))
def test_each_answer_is_decided_as_its_audit_alone_decides_it(seed, branch):
    drafts = three_drafts_an_item_time(branch, seed)
    evidence = evidence_at(public_view(data(seed)[branch].branch.events), drafts)
    calls = answers_requests(drafts, evidence, context, batch=3)
    assert max(len(ids) for _, ids in calls) == 3
    replies = ModelClient(RULES).generate([request for request, _ in calls])
    by_draft = {d.probe_id: d for d in drafts}
    together = {}
    for (request, ids), reply in zip(calls, replies, strict=True):
        assert reply.ok
        for k, probe_id in enumerate(ids):
            together[probe_id] = judge(request.alone(k), reply.value["audits"][k])
            draft = by_draft[probe_id]
            assert request.alone(k) == request_for(draft, evidence[probe_id], context(draft))
    alone = {
        d.probe_id: request_for(d, evidence[d.probe_id], context(d))
        for d in drafts
        if evidence[d.probe_id]
    }
    singles = ModelClient(RULES).generate(list(alone.values()))
    assert together.keys() == alone.keys()
    for (probe_id, request), single in zip(alone.items(), singles, strict=True):
        assert together[probe_id] == judge(request, single.value), probe_id


def test_the_records_are_sent_once_for_all_the_answers_of_a_call():
    drafts = three_drafts_an_item_time("src", 1000)
    evidence = evidence_at(public_view(data(1000)["src"].branch.events), drafts)
    (one, ids), *_ = answers_requests(drafts, evidence, context, batch=3)
    alone = [request_for(d, evidence[d.probe_id], context(d)) for d in drafts if d.probe_id in ids]

    def tokens(request) -> int:
        return sum(len(m["content"]) for m in prompts.build(request))

    assert tokens(one) < 0.5 * sum(tokens(a) for a in alone)
    text = prompts.build(one)[1]["content"]
    assert text.count(one.records[0].text) == 1
    shared, own = prompts.shared_part(text)
    assert own.startswith("\n\nStored item: ") and one.records[-1].text in shared


def test_answers_are_grouped_by_item_time_in_calls_of_at_most_the_batch():
    drafts = three_drafts_an_item_time("src", 1000)
    evidence = evidence_at(public_view(data(1000)["src"].branch.events), drafts)
    evidence[drafts[0].probe_id] = ()  # a draft with no evidence is not audited
    calls = answers_requests(drafts, evidence, context, batch=2)
    ids = [probe_id for _, members in calls for probe_id in members]
    assert drafts[0].probe_id not in ids
    assert sorted(ids) == sorted(d.probe_id for d in drafts[1:])
    assert {len(members) for _, members in calls} == {1, 2}
    for request, members in calls:
        times = {(d.item.item_id, d.time) for d in drafts if d.probe_id in members}
        assert len(times) == 1
        assert schema_name(request) == f"auditor_x{len(members)}"
        # one answer alone goes as its own audit, in the form `models check` checks
        if len(members) == 1:
            assert request.sent == request.alone(0) and schema_name(request.sent) == "auditor"
        else:
            assert request.sent is request
    with pytest.raises(ConfigError, match=r"systems\.answer_audit_batch"):
        answers_requests(drafts, evidence, context, batch=7)


def test_a_reply_with_another_number_of_audits_breaks_the_schema():
    drafts = three_drafts_an_item_time("src", 1000)
    evidence = evidence_at(public_view(data(1000)["src"].branch.events), drafts)
    (request, _), *_ = answers_requests(drafts, evidence, context, batch=3)
    audit = {"premises": [], "transitions": []}
    name = schema_name(request)

    def reply(audits: list) -> str | None:
        return check_reply(name, json.dumps({"audits": audits}))[1]

    assert reply([audit] * 3) is None
    assert reply([audit] * 2) == reply([audit] * 4) == reply([{}] * 3) == "schema_violation"


def test_the_study_setting_allows_what_the_reply_schemas_hold():
    setting = config_schema()["properties"]["systems"]["properties"]
    batch = setting["answer_audit_batch"]
    assert (batch["minimum"], batch["maximum"]) == (1, MAX_AUDITED_ANSWERS)


def test_a_failed_call_leaves_each_of_its_answers_as_drafted_and_counts_once(tmp_path):
    world_dir, run_dir = tmp_path / "w0", tmp_path / "run"
    build_world(0, world_dir, ("none", "src"))
    probes = read_table(layout.probes(world_dir, "src"), schemas.PROBES).to_pylist()
    asked = [p for p in probes if p["kind"] in ("direct", "premise", "implicit")]
    rows = written_answers(run_dir, "src", [(p, "answer", '"Zzyzx Unheard-of"') for p in asked])
    calls_log = tmp_path / "calls.parquet"
    log = CallLog()
    with LocalServer(lambda *_: "{}") as server:
        server.set_faults([FaultRule("invalid_json", attempts=None)])
        profile = openai_profile(server.url, max_attempts=1)
        answer_audit.run_audits(
            world_dir, run_dir, "src", [("bm25", "full")], profile, None, log, batch=3
        )
    log.write(calls_log)
    out = layout.system_dir(run_dir, "src", "bm25+audit")
    kept = read_table(out / "answers.parquet", schemas.ANSWERS).to_pylist()
    assert [(r["status"], r["value"]) for r in kept] == [(r["status"], r["value"]) for r in rows]
    logged = pq.read_table(calls_log).to_pylist()
    assert logged and all(r["failure"] == "invalid_json" for r in logged)
    assert {r["system"] for r in logged} == {"bm25+audit"}
    # fewer calls than answers: each call held the answers of one item-time
    assert len(logged) < len(rows)


def test_two_systems_audits_of_an_item_time_go_out_side_by_side(tmp_path):
    """A job auditing two systems sends their calls about one item at one time one after the
    other: the second reads the records the first just sent, which a server's prefix cache
    then serves; each system's audited answers are those of its audit run alone."""
    world_dir, together, apart = tmp_path / "w0", tmp_path / "together", tmp_path / "apart"
    build_world(0, world_dir, ("none", "src"))
    probes = read_table(layout.probes(world_dir, "src"), schemas.PROBES).to_pylist()
    asked = [p for p in probes if p["kind"] in ("direct", "premise", "implicit")]
    systems = {"bm25": '"Zzyzx Unheard-of"', "rag": None}
    for run_dir in (together, apart):
        for system, value in systems.items():
            status = "abstain" if value is None else "answer"
            written_answers(run_dir, "src", [(p, status, value) for p in asked], system)
    log = CallLog()
    audits = [(system, "full") for system in systems]
    answer_audit.run_audits(world_dir, together, "src", audits, RULES, None, log, batch=3)
    for system in systems:
        answer_audit.run(world_dir, apart, "src", system, RULES, None)
    for system in systems:
        out = [layout.system_dir(run, "src", f"{system}+audit") for run in (together, apart)]
        for table, schema in (
            (layout.ANSWERS, schemas.ANSWERS),
            (layout.ANSWER_AUDITS, schemas.AUDITS),
        ):
            assert read_table(layout.table(out[0], table), schema) == read_table(
                layout.table(out[1], table), schema
            )
    calls_log = tmp_path / "calls.parquet"
    log.write(calls_log)
    rows = pq.read_table(calls_log).to_pylist()
    pairs = list(zip(rows[::2], rows[1::2], strict=True))
    assert len(pairs) > 20
    for first, second in pairs:
        assert (first["system"], second["system"]) == ("bm25+audit", "rag+audit")
        assert (first["item"], first["checkpoint"]) == (second["item"], second["checkpoint"])
    # the records come before the answers, so the second call is served nearly whole
    served = sum(s["prefix_hit_tokens"] for _, s in pairs)
    assert served > 0.8 * sum(s["prompt_tokens"] for _, s in pairs)
