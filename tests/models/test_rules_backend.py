"""The rule-based backend: honest about being no model, and exact where its input allows."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from conftest import data, world
from memshift.gold.evaluator import evaluate
from memshift.memory.programs import typed_rows
from memshift.models.profiles import Profile
from memshift.models.requests import ProgramRequest, ReaderRequest, WriterRequest
from memshift.sandbox.helpers import HELPERS
from memshift.simulator.errors import ErrorModel, corrupt
from memshift.simulator.programs import item_program
from memshift.simulator.reader import read
from memshift.simulator.writer import write
from memshift.statements import render
from memshift.timeutil import fmt
from memshift.world.items import item_group
from memshift.world.parse import record_evidence
from memshift.world.records import public_view, snapshots


def item_times(seed, branches=("none", "src", "def", "del", "conflict")):
    w, d = world(seed), data(seed)
    for name in branches:
        states = list(snapshots(public_view(d[name].branch.events), list(w.timeline.checkpoints)))
        for p in d[name].gold.points:
            if p.gold.status == "blocked":
                continue
            live = sorted(
                (r for r in states[p.checkpoint].records.values() if r.source in p.item.sources),
                key=lambda r: (r.updated, r.object_id),
            )
            yield p, live


def expected(p):
    return p.gold.value if p.gold.status == "answer" else None


def as_value(raw):
    return tuple(raw) if isinstance(raw, list) else raw


@pytest.mark.parametrize("seed", [1000, 7])
def test_the_writer_equals_gold_whenever_its_selection_holds_every_dependency(seed):
    rng = np.random.default_rng(seed)
    checked = Counter()
    for p, live in item_times(seed, ("src", "del", "conflict")):
        deps = {oid for oid, _ in p.gold.deps}
        if not deps <= {r.object_id for r in live}:
            # a conflict: gold also reads the contact's message, which lies outside the sources
            # the writer selects from (and carries no label a memory could read)
            continue
        keep = rng.random(len(live)) < rng.uniform(0.05, 0.6)
        selection = tuple(r for r, k in zip(live, keep, strict=True) if k or r.object_id in deps)
        reply = write(WriterRequest(p.item, p.gold.version, p.time, selection))
        assert as_value(reply["value"]) == expected(p), (p.item.item_id, p.checkpoint)
        checked[p.item.item_class] += 1
    assert sum(checked.values()) > 600 and len(checked) == 6


def test_the_writer_cites_exact_quotes_of_at_most_25_words():
    for p, live in item_times(1000, ("src",)):
        reply = write(WriterRequest(p.item, p.gold.version, p.time, tuple(live)))
        by_id = {r.object_id: r for r in live}
        assert len(reply["citations"]) <= 6
        for c in reply["citations"]:
            record = by_id[c["object_id"]]
            assert c["revision"] == record.revision
            assert c["quote"] in record.text and len(c["quote"].split()) <= 25
        if reply["value"] not in (None, []):
            assert reply["citations"], p.item.item_id


def test_a_selection_missing_a_record_gives_a_wrong_value_not_an_error():
    p, live = next(
        (p, live)
        for p, live in item_times(1000, ("none",))
        if p.item.item_id == "def.important_contacts" and p.checkpoint == 2
    )
    meetings = tuple(r for r in live if r.kind == "meeting")
    reply = write(WriterRequest(p.item, 1, p.time, meetings[-5:]))
    assert as_value(reply["value"]) != expected(p)


def test_the_writer_is_deterministic():
    p, live = next(item_times(1001, ("def",)))
    request = WriterRequest(p.item, p.gold.version, p.time, tuple(live))
    assert write(request) == write(request)


@pytest.mark.parametrize("seed", [1000, 1002])
def test_generated_programs_compute_what_gold_computes(seed):
    for p, live in item_times(seed, ("none", "def", "del")):
        if p.item.free_text:
            continue
        code = item_program(ProgramRequest(p.item, p.gold.version, ()))
        namespace = dict(HELPERS)
        exec(code, namespace)
        rows = typed_rows(live)  # fmt: skip
        assert as_value(namespace["derive"](rows, fmt(p.time))) == expected(p), p.item.item_id


def test_the_reader_answers_from_the_newest_statement():
    w = world(1000)
    employer = next(i for i in w.items if i.item_id == "person.employer")
    fork = w.timeline.fork
    old = render(employer.label, fork.date().replace(month=3), "Old Company", is_set=False)
    new = render(employer.label, fork.date(), "New Company", is_set=False)
    question = "As of 2026-10-01 00:00: Who is the user's employer?"
    for evidence in ((old, new), (new, old)):
        reply = read(ReaderRequest(employer, 1, fork, question, evidence))
        assert reply == {"status": "answer", "value": "New Company"}
    assert read(ReaderRequest(employer, 1, fork, question, ()))["status"] == "abstain"
    none = render(employer.label, fork.date(), None, is_set=False)
    assert read(ReaderRequest(employer, 1, fork, question, (old, none)))["status"] == "abstain"


def test_the_reader_computes_from_records_when_served_records():
    for p, live in item_times(1000, ("none", "del")):
        deps = {oid for oid, _ in p.gold.deps}
        evidence = tuple(record_evidence(r) for r in live if r.object_id in deps)
        reply = read(ReaderRequest(p.item, p.gold.version, p.time, "q", evidence))
        assert as_value(reply["value"]) == expected(p), p.item.item_id


def test_the_error_model_strikes_at_its_rate_and_only_its_class():
    w = world(1000)
    model = ErrorModel({"definition": 0.3}, seed=5)
    items = {item_group(i): i for i in w.items}
    strikes = sum(model.strikes(items["definition"], f"write {n}") for n in range(4000))
    assert abs(strikes / 4000 - 0.3) < 0.03
    assert not any(model.strikes(items["other"], f"write {n}") for n in range(500))
    with pytest.raises(ValueError, match="unknown item group"):
        ErrorModel({"definitions": 0.1})


def test_corrupted_values_always_differ():
    w = world(1000)
    for p, _ in item_times(1000, ("none",)):
        value = expected(p)
        assert corrupt(p.item, value) != value
    assert w is not None


def test_the_error_model_is_applied_by_the_backend():
    from memshift.simulator.backend import RulesBackend

    backend = RulesBackend(
        Profile("weak", "rules", error_model={"seed": 1, "rates": {"definition": 1.0}})
    )
    p, live = next((p, live) for p, live in item_times(1000, ("none",)) if p.item.is_definition)
    request = WriterRequest(p.item, p.gold.version, p.time, tuple(live))
    assert as_value(backend.answer(request)["value"]) != expected(p)
    assert as_value(write(request)["value"]) == expected(p)
    assert evaluate(p.item, live, p.time).value == p.gold.value


def _delta_request(item, records, as_of, since, version=1):
    return WriterRequest(item, version, as_of, tuple(records), delta_since=since)


def _records_at(seed, branch, checkpoint):
    w, d = world(seed), data(seed)
    states = list(snapshots(public_view(d[branch].branch.events), list(w.timeline.checkpoints)))
    return w, states[checkpoint]


def test_a_delta_write_says_nothing_new_unless_a_record_bears_on_its_item():
    w, state = _records_at(1000, "src", 2)
    since, now = w.timeline.checkpoints[1], w.timeline.checkpoints[2]
    items = {i.item_id: i for i in w.items}
    cards = [r for r in state.records.values() if r.kind == "card"]
    contact = items["contact03.city"]
    own = next(r for r in cards if r.object_id == contact.target)
    others = [r for r in cards if r.object_id != contact.target][:5]
    nothing = write(_delta_request(contact, others, now, since))
    assert nothing == {"bears_on_item": False, "value": None, "statement": "", "citations": []}
    found = write(_delta_request(contact, [*others, own], now, since))
    assert found["bears_on_item"] is True and found["value"] == own.fields["city"]
    assert [c["object_id"] for c in found["citations"]] == [own.object_id]
    # free text: mail that names cities without stating where the user lives says nothing
    city = items["person.home_city"]
    digests = [r for r in state.records.values() if r.fields.get("category") == "newsletter"][:4]
    assert digests and write(_delta_request(city, digests, now, since))["bears_on_item"] is False


def test_a_delta_bears_on_a_definition_only_through_records_it_ranges_over_now():
    w, state = _records_at(1000, "none", 2)
    since, now = w.timeline.checkpoints[1], w.timeline.checkpoints[2]
    item = next(i for i in w.items if i.item_id == "def.important_contacts")
    meetings = sorted(
        (r for r in state.records.values() if r.kind == "meeting"), key=lambda r: r.fields["start"]
    )
    old = [r for r in meetings if r.fields["start"] < fmt(now - (now - since) * 20)]
    recent = [r for r in meetings if fmt(since) < r.fields["start"] <= fmt(now)]
    assert old and recent
    assert write(_delta_request(item, old[:3], now, since))["bears_on_item"] is False
    reply = write(_delta_request(item, recent[:1], now, since))
    # one meeting bears on the item, and the writer derives (a wrong) value from the delta alone
    assert reply["bears_on_item"] is True and reply["value"] == []


def test_a_delta_write_with_news_equals_a_full_write_on_the_same_records():
    w, state = _records_at(1001, "src", 1)
    since, now = w.timeline.checkpoints[0], w.timeline.checkpoints[1]
    checked = 0
    for item in w.items:
        delta = sorted(
            (r for r in state.records.values() if r.source in item.sources and r.updated > since),
            key=lambda r: (r.updated, r.object_id),
        )
        reply = write(_delta_request(item, delta, now, since))
        full = write(WriterRequest(item, 1, now, tuple(delta)))
        assert "bears_on_item" not in full
        if reply.pop("bears_on_item"):
            assert reply == full
            checked += 1
        else:
            assert reply["citations"] == [] and reply["value"] is None
    assert checked >= 10
