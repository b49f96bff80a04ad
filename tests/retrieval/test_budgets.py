"""Evidence budgets follow the context window of the model that reads them: with none stated
they are the fixed budgets, and with a short one every prompt a run builds fits it."""

from __future__ import annotations

from functools import cache

import pytest

from conftest import data, world
from memshift.audit.answers import Draft, answers_requests, evidence_at, request_for
from memshift.memory.baselines import NoStoreBM25
from memshift.memory.detection import prefork_writes, run_detection
from memshift.memory.programs import ProgramRunner
from memshift.memory.reading import answer, drive, questions
from memshift.models import prompts
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.build import probes_to_table
from memshift.retrieval.budgets import (
    DEFAULTS,
    MARGINS,
    evidence_budget,
    label_tokens,
    overhead,
)
from memshift.retrieval.selection import (
    AUDITOR_BUDGET,
    EVIDENCE_BUDGET,
    WRITER_BUDGET,
    pack_evidence,
)
from memshift.tokens import count_tokens
from memshift.world.records import public_view

SEED = 0
# a short window, a reply limit and a model that makes 1.25 tokens of each of memshift's
SMALL = Profile(
    "small", "rules", context_length=2048, token_ratio=1.25, decoding={"max_tokens": 256}
)


class Recording(ModelClient):
    """The rules backend, keeping every request it is sent."""

    def __init__(self, profile: Profile) -> None:
        super().__init__(profile)
        self.sent: list = []

    def generate(self, requests):  # type: ignore[no-untyped-def]
        self.sent += list(requests)
        return super().generate(requests)


def test_without_a_window_the_budgets_are_the_fixed_ones():
    for profile in (None, Profile("rules", "rules"), Profile("p", "rules", token_ratio=2.0)):
        assert evidence_budget(profile, "writer") == WRITER_BUDGET
        assert evidence_budget(profile, "auditor") == AUDITOR_BUDGET
        assert evidence_budget(profile, "reader") == EVIDENCE_BUDGET
        assert label_tokens(profile) == 0
    items = ["x " * 3000, "y " * 2000, "z " * 1000]
    assert pack_evidence(items) == pack_evidence(items, evidence_budget(None, "reader"), 0)


def test_a_window_cuts_each_budget_to_what_it_leaves():
    room = SMALL.prompt_room("writer")
    assert room == int((2048 - 256) / 1.25)
    for role, default in DEFAULTS.items():
        assert evidence_budget(SMALL, role) == room - overhead(role) < default
    wide = Profile("wide", "rules", context_length=131072, decoding={"max_tokens": 512})
    assert {role: evidence_budget(wide, role) for role in DEFAULTS} == DEFAULTS
    tiny = Profile("tiny", "rules", context_length=512, decoding={"max_tokens": 256})
    assert {evidence_budget(tiny, role) for role in DEFAULTS} == {0}
    with pytest.raises(ValueError, match="reads no evidence"):
        evidence_budget(SMALL, "program")
    # an audit of three answers keeps the margin of each
    three = evidence_budget(SMALL, "auditor", 3)
    assert three == max(0, evidence_budget(SMALL, "auditor") - 2 * MARGINS["auditor"])
    assert evidence_budget(wide, "auditor", 3) == DEFAULTS["auditor"]


def fits(request, profile: Profile) -> bool:
    """Whether a built prompt and the longest reply fit the profile's window, in the model's
    tokens as the profile's ratio estimates them."""
    tokens = sum(count_tokens(m["content"]) for m in prompts.build(request))
    return tokens * profile.token_ratio + profile.reply_tokens(request.role) <= (
        profile.context_length
    )


@cache
def built_requests() -> tuple:
    """Every request of every role that world 0's unshifted branch and a shifted one make with
    the short window: pre-fork writes, delta writes, the audit detection's audits and its
    re-derivations, programs, a baseline's and a store's reader calls, answer-level audits."""
    w = world(SEED)
    client = Recording(SMALL)
    context = CallContext(world=SEED)
    events = {name: public_view(d.branch.events) for name, d in data(SEED).items()}
    prefork = prefork_writes(w, events["none"], client, context)
    branch = next(name for name in events if name != "none")
    for detection in ("append", "audit"):
        run_detection(w, events[branch], detection, client, prefork, context)
    ProgramRunner(w.items, client, context).prepare(
        [(i.item_id, 1) for i in w.items if i.is_definition]
    )
    probes = probes_to_table(data(SEED)[branch].probes, world=SEED, branch=branch)
    asked = drive(
        NoStoreBM25(evidence_budget(SMALL, "reader")),
        events[branch],
        w.timeline.checkpoints,
        questions(probes, w.items),
        SMALL,
    )
    answer(asked, client, world=SEED, branch=branch, system="bm25", run="t")
    drafts = [
        Draft(p.probe_id, q.checkpoint, q.time, q.item, q.gold.version, q.gold.value, p.question)
        for p in data(SEED)[branch].probes
        if (q := p.point)
    ]
    evidence = evidence_at(events[branch], drafts, evidence_budget(SMALL, "auditor"))
    audits = [request_for(d, evidence[d.probe_id], context) for d in drafts]
    return (*client.sent, *(a for a in audits if a is not None))


def test_an_audit_of_three_answers_fits_the_window_its_budget_is_cut_to():
    # 2,048 tokens leave an audit of three answers no evidence at all (their margins take it):
    # such a profile audits one answer a call (systems.answer_audit_batch: 1)
    assert evidence_budget(SMALL, "auditor", 3) == 0
    middle = Profile(
        "middle", "rules", context_length=4096, token_ratio=1.25, decoding={"max_tokens": 512}
    )
    assert 0 < evidence_budget(middle, "auditor", 3) == evidence_budget(middle, "auditor") - 1024
    branch = "src"
    events = public_view(data(SEED)[branch].branch.events)
    drafts = [
        Draft(p.probe_id, q.checkpoint, q.time, q.item, q.gold.version, q.gold.value, p.question)
        for p in data(SEED)[branch].probes
        if (q := p.point)
    ]
    evidence = evidence_at(events, drafts, evidence_budget(middle, "auditor", 3))
    batched = [r for r, _ in answers_requests(drafts, evidence, lambda _: CallContext(), batch=3)]
    assert max(len(r.answers) for r in batched) == 3
    too_long = [r for r in batched if not fits(r, middle)]
    assert not too_long, f"{len(too_long)} of {len(batched)} audits overflow"


def test_with_a_short_window_every_prompt_of_every_role_fits():
    requests = built_requests()
    roles = {r.role for r in requests}
    assert roles == {"writer", "reader", "program", "auditor"}
    assert any(r.role == "writer" and r.delta_since is not None for r in requests)
    too_long = [r for r in requests if not fits(r, SMALL)]
    assert not too_long, f"{len(too_long)} of {len(requests)} prompts overflow, e.g. {too_long[0]}"


def test_at_the_fixed_budgets_the_same_prompts_would_not_fit():
    """What the test above measures: world 0's pre-fork writes at the fixed budget overflow the
    short window."""
    client = Recording(Profile("rules", "rules"))
    prefork_writes(world(SEED), public_view(data(SEED)["none"].branch.events), client,
                   CallContext(world=SEED))  # fmt: skip
    assert any(not fits(r, SMALL) for r in client.sent)
