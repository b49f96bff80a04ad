"""The rule-based auditor's two passes on constructed records: an implicit question is audited
in its own terms, so a change of the item that leaves the answer alone is not material."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from memshift.audit.arbiter import REPAIR, VALID, VERIFY, judge
from memshift.models.requests import AuditRequest
from memshift.probes.implicit import COUNTRY, implicit_question
from memshift.simulator.auditor import propose
from memshift.world.traps import TRUE_CHANGE, TrapCase, trap_cases


def moves(seed: int) -> list[TrapCase]:
    return [
        c
        for c in trap_cases(seed, 12)
        if c.regime == TRUE_CHANGE and c.item.item_id == "person.home_city"
    ]


def within_country(case: TrapCase) -> TrapCase | None:
    """The same move, to another city of the stored city's country."""
    country = COUNTRY[case.stored]
    other = next((c for c in COUNTRY if COUNTRY[c] == country and c != case.stored), None)
    if other is None:
        return None
    new = dataclasses.replace(case.new, text=case.new.text.replace(case.new_value, other))
    return dataclasses.replace(case, new=new, new_value=other)


def request(case: TrapCase, variant: str = "full") -> AuditRequest:
    when = case.new.updated + timedelta(days=1)
    return AuditRequest(
        case.item,
        1,
        f"The draft answers: {COUNTRY[case.stored]}.",
        COUNTRY[case.stored],
        case.old.updated,
        (case.old,),
        (case.new,),
        question=implicit_question(case.item, when),
        as_of=when,
        variant=variant,
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_move_within_the_country_is_not_material_to_where_the_user_lives(seed):
    cases = [c for c in map(within_country, moves(seed)) if c is not None]
    assert cases
    for case in cases:
        audit = judge(request(case), propose(request(case)))
        assert (audit.verdict.status, audit.verdict.directive) == (VALID, "none"), case.new_value
        # without the state pass nothing checks the country: the user is asked
        draft_only = judge(request(case, "draftonly"), propose(request(case, "draftonly")))
        assert draft_only.verdict.directive == VERIFY


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_move_abroad_repairs_the_answer_to_the_new_country(seed):
    abroad = [c for c in moves(seed) if COUNTRY[c.new_value] != COUNTRY[c.stored]]
    assert abroad
    for case in abroad:
        audit = judge(request(case), propose(request(case)))
        assert audit.verdict.directive == REPAIR
        assert audit.verdict.current == COUNTRY[case.new_value]
        assert all(t.material for t, _ in audit.decisions if t is not None)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_right_answer_whose_record_the_audit_was_not_shown_is_verified_not_repaired(seed):
    """The draft read the newer record; the audit was shown only the older one, which states
    another value and was never revised: nothing shows an update, so nothing is repaired."""
    for case in moves(seed):
        when = case.new.updated + timedelta(days=1)
        direct = AuditRequest(
            case.item,
            1,
            f"The draft answers: {case.new_value}.",
            case.new_value,
            when,
            (),
            (case.old,),
            question=f"As of {when:%Y-%m-%d %H:%M}: {case.item.question}",
            as_of=when,
        )
        assert case.old.revision == 1
        audit = judge(direct, propose(direct))
        assert audit.verdict.directive == VERIFY, case.new_value


UNREAD = {"premise": "x", "pass": "draft", "verdict": "STALE", "current_value": "Porto"}


@pytest.mark.parametrize(
    ("reply", "failure"),
    [
        (None, "no reply"),
        ([], "reply not parsed: the reply is not an object"),
        ({"premises": "STALE", "transitions": []}, "reply not parsed: premises is not a list"),
        ({"premises": [{"premise": "x"}], "transitions": []}, "reply not parsed: malformed"),
        ({"premises": [], "transitions": "all"}, "reply not parsed: transitions is not a list"),
        (
            {"premises": [{**UNREAD, "pass": "side", "material": True}], "transitions": []},
            "reply not parsed: pass must be one of draft, state",
        ),
        (
            {"premises": [{**UNREAD, "material": "yes"}], "transitions": []},
            "reply not parsed: material must be true or false",
        ),
    ],
)
def test_a_reply_that_failed_or_cannot_be_read_leaves_the_value_and_says_why(reply, failure):
    case = moves(1)[0]
    audit = judge(request(case), reply)
    assert audit.failure.startswith(failure)
    assert (audit.verdict.status, audit.verdict.directive) == (VALID, "none")
    assert audit.verdict.current == COUNTRY[case.stored]
    assert audit.decisions == () and audit.premises == ()
