"""The trap suite: records that mention another value of an item without superseding the user's.

The provenance gate accepts a recall-first proposer's transition to every such mention (it checks
where quotes come from and their order, not what they mean); the semantic check after it refuses
every one of them, and keeps every true change. The parsers agree with the construction: a trap
states nothing about the user, a true change states the new value, and gold says the same."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.audit.gate import Decision, audit_index, review
from memshift.audit.semantic import NOT_AMONG, NOT_STATED, semantic_check
from memshift.audit.trap_suite import (
    CaseAudit,
    audit_case,
    mention_proposer,
    mentions,
    request_for,
    run_suite,
)
from memshift.gold.evaluator import evaluate
from memshift.models.requests import AuditRequest
from memshift.probes.implicit import COUNTRY, implicit_question
from memshift.rng import stream
from memshift.simulator.auditor import propose
from memshift.world import phrasing
from memshift.world.cast import draw_cast
from memshift.world.contacts import card_fields
from memshift.world.emit import Emitter
from memshift.world.items import PROSE_SOURCES, build_items
from memshift.world.parse import parse_text
from memshift.world.records import Event, LiveState, Record
from memshift.world.traps import (
    REGIMES,
    TRAP_PHRASES,
    TRUE_CHANGE,
    VALUE_POOLS,
    TrapCase,
    TrapPhrase,
    trap_cases,
    write_trap,
)

SEEDS = (1, 2, 3)
PER_REGIME = 12
DAY = timedelta(days=1)


@cache
def cases(seed: int) -> tuple[TrapCase, ...]:
    return tuple(trap_cases(seed, PER_REGIME))


@cache
def audits(seed: int) -> tuple[CaseAudit, ...]:
    return tuple(audit_case(case) for case in cases(seed))


def traps(seed: int) -> list[TrapCase]:
    return [c for c in cases(seed) if c.is_trap]


def true_changes(seed: int) -> list[TrapCase]:
    return [c for c in cases(seed) if not c.is_trap]


def fingerprint(found: list[TrapCase] | tuple[TrapCase, ...]) -> str:
    return hashlib.sha256(repr(list(found)).encode()).hexdigest()


def stated(case: TrapCase, record: Record) -> list[str]:
    return [value for _, value, _ in phrasing.find_statements(record.text, case.item.attribute)]


# --- the generator ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_cases_are_byte_identical_per_seed(seed: int) -> None:
    assert fingerprint(trap_cases(seed, PER_REGIME)) == fingerprint(cases(seed))


def test_seeds_give_different_cases() -> None:
    assert len({fingerprint(cases(seed)) for seed in SEEDS}) == len(SEEDS)


def test_cases_do_not_depend_on_the_interpreter_hash_seed() -> None:
    script = (
        "import hashlib; from memshift.world.traps import trap_cases; "
        f"print(hashlib.sha256(repr(trap_cases({SEEDS[0]}, {PER_REGIME})).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == fingerprint(cases(SEEDS[0]))


def test_a_case_stays_put_when_more_cases_are_drawn() -> None:
    # every case has its own stream, so asking for more appends and moves nothing
    fewer = trap_cases(SEEDS[0], 3)
    by_regime = {r: [c for c in cases(SEEDS[0]) if c.regime == r] for r in (*REGIMES, TRUE_CHANGE)}
    assert fewer == [c for r in (*REGIMES, TRUE_CHANGE) for c in by_regime[r][:3]]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_regime_and_the_true_changes_produce_cases(seed: int) -> None:
    counts = Counter(c.regime for c in cases(seed))
    assert counts == {regime: PER_REGIME for regime in (*REGIMES, TRUE_CHANGE)}
    assert REGIMES[:4] == (
        "friend_move",
        "hypothetical_move",
        "colleague_employer",
        "newsletter_city",
    )
    assert {c.item.attribute for c in true_changes(seed)} == {"home_city", "employer", "diet"}


def test_every_regime_has_phrases_in_several_sources() -> None:
    for regime in REGIMES:
        sources = {p.source for p in TRAP_PHRASES if p.regime == regime}
        if regime == "newsletter_city":
            assert sources == {"email"}  # mailings arrive by e-mail
        else:
            assert len(sources) >= 2


@pytest.mark.parametrize("seed", SEEDS)
def test_records_are_real_prose_records_in_time_order(seed: int) -> None:
    for case in cases(seed):
        assert case.item.item_id == f"person.{case.item.attribute}" and case.item.free_text
        assert case.stored != case.new_value
        for record in (case.old, case.new):
            assert isinstance(record, Record) and record.source in PROSE_SOURCES
            shape = parse_text(record.text)
            assert shape is not None and shape[0] == record.source
        assert case.new.updated > case.old.updated
        assert case.new.object_id != case.old.object_id


@pytest.mark.parametrize("seed", SEEDS)
def test_the_older_record_states_the_stored_value(seed: int) -> None:
    for case in cases(seed):
        assert stated(case, case.old)[-1:] == [case.stored]
        assert case.old.asserts == {case.item.attribute: case.stored}


@pytest.mark.parametrize("seed", SEEDS)
def test_parsers_and_gold_agree_that_a_trap_states_nothing_new(seed: int) -> None:
    for case in traps(seed):
        assert case.new_value not in stated(case, case.new)
        assert set(stated(case, case.new)) <= {case.stored}
        assert case.new.asserts == {}
        gold = evaluate(case.item, [case.old, case.new], case.new.updated)
        assert gold.value == case.stored


@pytest.mark.parametrize("seed", SEEDS)
def test_parsers_and_gold_agree_that_a_true_change_states_the_new_value(seed: int) -> None:
    for case in true_changes(seed):
        assert stated(case, case.new)[-1:] == [case.new_value]
        gold = evaluate(case.item, [case.old, case.new], case.new.updated)
        assert gold.value == case.new_value


@pytest.mark.parametrize("seed", SEEDS)
def test_every_newer_record_names_exactly_one_other_value(seed: int) -> None:
    # so the mention proposer proposes one transition per case, to the case's new value
    for case in cases(seed):
        pool = VALUE_POOLS[case.item.attribute]
        named = {m.group() for m in mentions(case.new.text, pool)} - {case.stored}
        assert named == {case.new_value}


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    which=st.integers(0, len(TRAP_PHRASES) - 1),
    picks=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
)
def test_no_trap_phrase_states_any_fact_about_the_user(
    seed: int, which: int, picks: tuple[int, int]
) -> None:
    phrase: TrapPhrase = TRAP_PHRASES[which]
    pool = VALUE_POOLS[phrase.attribute]
    value, home = pool[picks[0] % len(pool)], pool[picks[1] % len(pool)]
    cast = draw_cast(stream(seed, "test-traps/cast"))
    em = Emitter("test", "test", cast.id_salt)
    lo = cases(SEEDS[0])[0].old.updated
    event = write_trap(
        em, stream(seed, "test-traps"), cast, phrase, value, home, (lo, lo + 3 * DAY)
    )
    assert phrasing.find_statements(event.text) == ()
    assert value in event.text


# --- the gate and the semantic check --------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_the_gate_accepts_every_trap_transition_by_design(seed: int) -> None:
    # provenance and chronology hold: the quotes are copied and the trap is newer
    results = {r.regime: r for r in run_suite(seed, PER_REGIME)}
    for regime in REGIMES:
        result = results[regime]
        assert result.cases == result.proposed == result.gate_accepted == PER_REGIME > 0
    for audit in audits(seed):
        assert [d.reason for _, d in audit.reviewed] == ["verified"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_semantic_check_refuses_every_trap_transition(seed: int) -> None:
    results = {r.regime: r for r in run_suite(seed, PER_REGIME)}
    assert all(results[regime].semantic_accepted == 0 for regime in REGIMES)
    for audit in audits(seed):
        if not audit.case.is_trap:
            continue
        for (_, gate), checked in zip(audit.reviewed, audit.checked, strict=True):
            assert (checked.accepted, checked.reason) == (False, NOT_STATED)
            # the same entries and times: only the verdict on meaning changes
            assert dataclasses.replace(checked, accepted=True, reason=gate.reason) == gate


@pytest.mark.parametrize("seed", SEEDS)
def test_the_semantic_check_keeps_every_true_change(seed: int) -> None:
    result = next(r for r in run_suite(seed, PER_REGIME) if r.regime == TRUE_CHANGE)
    assert result.cases == result.gate_accepted == result.semantic_accepted == PER_REGIME
    for audit in audits(seed):
        if not audit.case.is_trap:
            assert audit.checked == tuple(d for _, d in audit.reviewed)
            assert audit.accepted_values() == [audit.case.new_value]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_on_any_seed_traps_are_refused_and_true_changes_kept(seed: int) -> None:
    for result in run_suite(seed, 1):
        expected = 1 if result.regime == TRUE_CHANGE else 0
        assert (result.gate_accepted, result.semantic_accepted) == (1, expected)


def test_refused_decisions_pass_through_unchanged() -> None:
    for case in cases(SEEDS[0]):
        request = request_for(case)
        reply = mention_proposer(request)
        backwards = [
            {**t, "old_quote": t["new_quote"], "new_quote": t["old_quote"]}
            for t in reply["transitions"]
        ]
        for candidate, decision in review({"transitions": backwards}, audit_index(request)):
            assert candidate is not None and not decision.accepted
            assert semantic_check(request, candidate, decision) is decision


def test_a_new_entry_outside_the_request_is_refused() -> None:
    case = true_changes(SEEDS[0])[0]
    request = request_for(case)
    ((candidate, decision),) = review(mention_proposer(request), audit_index(request))
    assert candidate is not None and decision.accepted
    elsewhere = dataclasses.replace(decision, new_entry="em-000000000000 r1")
    assert semantic_check(request, candidate, elsewhere).reason == NOT_AMONG
    assert semantic_check(request, candidate, decision) == decision


def test_the_new_value_must_be_the_one_the_record_states() -> None:
    # a transition to a value the true change does not state is refused, whatever its provenance
    case = true_changes(SEEDS[0])[0]
    request = request_for(case)
    ((candidate, decision),) = review(mention_proposer(request), audit_index(request))
    assert candidate is not None
    other = next(
        v for v in VALUE_POOLS[case.item.attribute] if v not in (case.stored, case.new_value)
    )
    wrong = dataclasses.replace(candidate, new_value=other)
    assert semantic_check(request, wrong, decision).reason == NOT_STATED
    recased = dataclasses.replace(candidate, new_value=f" {case.new_value.upper()} ")
    assert semantic_check(request, recased, decision).accepted


def test_an_implicit_question_compares_in_the_answers_terms() -> None:
    # the country of the new city is what an implicit probe's transition proposes
    case = next(c for c in true_changes(SEEDS[0]) if c.item.attribute == "home_city")
    plain = request_for(case)
    request = dataclasses.replace(plain, question=implicit_question(case.item, case.new.updated))
    ((candidate, decision),) = review(mention_proposer(request), audit_index(request))
    assert candidate is not None and decision.accepted
    in_country = dataclasses.replace(
        candidate, old_value=COUNTRY[case.stored], new_value=COUNTRY[case.new_value]
    )
    assert semantic_check(request, in_country, decision).accepted
    assert semantic_check(request, candidate, decision).reason == NOT_STATED


def card_case() -> tuple[AuditRequest, AuditRequest, str]:
    """A tracked contact's card moved from one city to another, and an e-mail that only names the
    other city: the same audit with the card's new revision, or with the e-mail, as new record."""
    cast = draw_cast(stream(7, "test-traps/cast"))
    item = next(i for i in build_items(cast) if i.item_id == "contact01.city")
    person = cast.tracked_contacts[0]
    em = Emitter("test", "test", cast.id_salt)
    t0 = cases(SEEDS[0])[0].old.updated
    old_city, new_city = "Lisbon", "Munich"
    card = cast.card_id(1)
    fields = card_fields(person, cast.organizations[5], old_city, "+1 555 123 4567")
    events = [em.insert(t0, card, "contacts", "card", card, fields)]
    events.append(em.update(t0 + 5 * DAY, card, {**fields, "city": new_city}))
    phrase = next(p for p in TRAP_PHRASES if p.regime == "newsletter_city")
    window = (t0 + DAY, t0 + 4 * DAY)
    events.append(write_trap(em, stream(7, "test-traps"), cast, phrase, new_city, old_city, window))
    old, moved, mail = live(events)

    def request(new: Record) -> AuditRequest:
        return AuditRequest(item, 1, "", old_city, t0, (old,), (new,), as_of=new.updated)

    return request(moved), request(mail), new_city


def live(events: list[Event]) -> list[Record]:
    """The record each event leaves behind, the events applied in order."""
    state = LiveState()
    found = []
    for event in events:
        state.apply(event)
        found.append(state.records[event.object_id])
    return found


def test_structured_items_are_read_by_the_gold_evaluator_on_the_one_record() -> None:
    by_card, by_mail, new_city = card_case()
    for request, kept in ((by_card, True), (by_mail, False)):
        ((candidate, decision),) = review(mention_proposer(request), audit_index(request))
        assert candidate is not None and candidate.new_value == new_city
        assert decision.accepted
        checked = semantic_check(request, candidate, decision)
        assert checked.accepted is kept
        assert checked.reason == ("verified" if kept else NOT_STATED)


def test_a_definition_is_never_confirmed_by_one_record() -> None:
    case = true_changes(SEEDS[0])[0]
    cast = draw_cast(stream(7, "test-traps/cast"))
    definition = next(i for i in build_items(cast) if i.is_definition)
    request = dataclasses.replace(request_for(case), item=definition)
    ((candidate, decision),) = review(mention_proposer(request_for(case)), audit_index(request))
    assert candidate is not None and decision.accepted
    refused = semantic_check(request, candidate, decision)
    assert not refused.accepted
    assert isinstance(refused, Decision) and refused.new_entry == decision.new_entry


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rule_based_auditor_proposes_nothing_on_a_trap_and_the_change_on_a_true_one(seed):
    for case in trap_cases(seed, 6):
        reply = propose(request_for(case))
        new_values = {t["new_value"] for t in reply["transitions"]}
        if case.is_trap:
            assert new_values == set(), case.regime
        else:
            assert new_values == {case.new_value}
