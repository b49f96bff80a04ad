"""The rule-based auditor: the base audit in two passes and transitions, read from the records of
the request with the project's own parsers.

The draft-anchored pass checks the value the statement states against the records that state
it in so many words: VALID when nothing later gives another value, STALE (with the value as of
the audit) when something does, UNKNOWN when no record states it (an implicit answer, such as a
country, is stated by no record of the item). An abstention states nothing, so this pass finds no
premise in it. The state-anchored pass reads the item's timeline from every record given: its
current value as of the audit (the newest statement of a free-text attribute, the gold rules over
the records for a structured item) and checks the statement against it: VALID when they agree,
STALE when they differ and the records show the update (the held value is on the timeline
before the current one, or a record stating the current value was revised), UNKNOWN when the
records establish no value but the statement holds one, or show no update and never state the
held value (they cannot tell a stale draft from one that read a record the audit was not
shown).
A question the reader answered through an implicit dependency (`memshift.probes.implicit`) is
checked in its own terms: the item's values are mapped through the relation the question's wording
names, and a change that leaves the answer alone is not material.

Transitions: the draft-anchored pass proposes one from the record stating the held value to each
later record stating another; the state-anchored pass one from the record of the previous value
to the record of the current one. Definition items get no premises and no transitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memshift.gold.evaluator import Value, evaluate
from memshift.models.profiles import Profile
from memshift.models.readings import answer_map, audited_records, stated_value
from memshift.models.requests import AnswersAuditRequest, AuditRequest
from memshift.statements import value_text
from memshift.world.quotes import quote_of
from memshift.world.records import Record

Answer = Callable[[Value], Value]
# A transition the audit found, as the records (and their values) of its old and its new
# evidence and the pass that found it; `_transition` writes it in one answer's terms.
Found = tuple[tuple[Record, Value], tuple[Record, Value], str]


def _surface(value: Value) -> str:
    return value[0] if isinstance(value, tuple) and value else value_text(value)


def _json(value: Value) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _records(request: AuditRequest) -> list[Record]:
    return sorted(
        audited_records(request).values(), key=lambda r: (r.updated, r.object_id, r.revision)
    )


def _current(request: AuditRequest, timeline: Sequence[tuple[Record, Value]]) -> Value:
    """The item's value as of the audit, from every record given."""
    if request.item.free_text or request.as_of is None:
        return timeline[-1][1] if timeline else None
    records = [r for r in _records(request) if r.updated <= request.as_of]
    gold = evaluate(request.item, records, request.as_of, version=request.version)
    return gold.value if gold.status == "answer" else None


def _transition(
    old: tuple[Record, Value], new: tuple[Record, Value], answer: Answer, found_by: str
) -> dict[str, Any] | None:
    old_quote = quote_of(old[0].text, _surface(old[1]))
    new_quote = quote_of(new[0].text, _surface(new[1]))
    if old_quote is None or new_quote is None:
        return None
    before, after = answer(old[1]), answer(new[1])
    if before is None or after is None:
        return None
    return {
        "dimension": "",
        "old_value": _json(before),
        "new_value": _json(after),
        "old_quote": old_quote,
        "new_quote": new_quote,
        "causal_path": [old[0].object_id, new[0].object_id],
        "pass": found_by,
        "material": before != after,
    }


def _premise(text: str, found_by: str, verdict: str, current: Value) -> dict[str, Any]:
    return {
        "premise": text,
        "pass": found_by,
        "verdict": verdict,
        "current_value": _json(current),
        "material": True,
    }


def _draft_pass(
    request: AuditRequest,
    timeline: Sequence[tuple[Record, Value]],
    current: Value,
    answer: Answer,
) -> tuple[list[dict[str, Any]], list[Found]]:
    held = request.value
    if held is None:
        return [], []
    # what the draft says: records that state its value in so many words (an implicit answer,
    # such as a country, is stated by no record of the item, so this pass cannot check it)
    said = _surface(held)
    support = [
        (r, v) for r, v in timeline if answer(v) == held and quote_of(r.text, said) is not None
    ]
    if not support:
        return [_premise(request.statement, "draft", "UNKNOWN", None)], []
    since = support[-1][0].updated
    later = [(r, v) for r, v in timeline if r.updated > since and answer(v) != held]
    if not later:
        return [_premise(request.statement, "draft", "VALID", held)], []
    # a later value that no longer holds as of the audit (an appointment since past) is no
    # transition to repair to: only the current value is
    premise = _premise(request.statement, "draft", "STALE", answer(current))
    return [premise], [(support[-1], new, "draft") for new in later if new[1] == current]


def _state_pass(
    request: AuditRequest,
    timeline: Sequence[tuple[Record, Value]],
    current: Value,
    answer: Answer,
) -> tuple[list[dict[str, Any]], list[Found]]:
    held = request.value
    label = request.item.label
    if current is None:
        if held is None:
            return [_premise(f"no value of {label} is established", "state", "VALID", None)], []
        return [_premise(f"the records establish {label}", "state", "UNKNOWN", None)], []
    now = answer(current)
    text = f"{label} is currently {value_text(current)}"  # type: ignore[arg-type]
    if now == held:
        return [_premise(text, "state", "VALID", now)], []
    revised = any(r.revision > 1 for r, v in timeline if v == current)
    if held is not None and held not in {answer(v) for _, v in timeline} and not revised:
        # the records never show the held value and the current one was never revised, so they
        # show no update: they cannot tell a stale draft from one that read a record the audit
        # was not shown
        unseen = f"the records never state {value_text(held)} for {label}"  # type: ignore[arg-type]
        return [_premise(unseen, "state", "UNKNOWN", now)], []
    premises = [_premise(text, "state", "STALE", now)]
    holders = [k for k, (_, v) in enumerate(timeline) if v == current]
    if not holders:
        return premises, []
    at = holders[-1]
    previous = [tv for tv in timeline[:at] if answer(tv[1]) != now]
    if not previous:
        return premises, []
    return premises, [(previous[-1], timeline[at], "state")]


def _found(request: AuditRequest) -> tuple[list[dict[str, Any]], list[Found]]:
    """The base audit's premises and the transitions found, in the order the passes found them."""
    if request.item.is_definition:
        return [], []
    timeline = [
        (r, v)
        for r in _records(request)
        if (v := stated_value(request.item, r, request.version)) is not None
    ]
    answer, current = answer_map(request), _current(request, timeline)
    premises, found = _draft_pass(request, timeline, current, answer)
    if request.state_pass:
        more_premises, more = _state_pass(request, timeline, current, answer)
        premises += more_premises
        found += more
    return premises, found


def _reply(
    request: AuditRequest, premises: list[dict[str, Any]], found: Sequence[Found]
) -> dict[str, Any]:
    """The audit's reply: the premises, and the transitions found in the answer's terms, each
    the draft-anchored pass did not already give."""
    answer = answer_map(request)
    transitions: list[dict[str, Any]] = []
    for old, new, found_by in found:
        t = _transition(old, new, answer, found_by)
        if t is None:
            continue
        if found_by != "draft" and any(
            (t["old_quote"], t["new_quote"]) == (u["old_quote"], u["new_quote"])
            for u in transitions
        ):
            continue
        transitions.append(t)
    return {"premises": premises, "transitions": transitions if request.proposes else []}


def propose(request: AuditRequest) -> dict[str, Any]:
    return _reply(request, *_found(request))


def _joint(request: AnswersAuditRequest) -> dict[str, Any]:
    """The scenario-joint audit: each answer's own audit, and a transition found for any answer
    also in the audit of every other whose answer is not its new value, in that answer's terms.
    This reaches past what an answer's own audit can tell: an answer that no record of the
    evidence states (it may have read a newer record than the audit was shown) is repaired to
    the value its sibling's transition verified."""
    alone = [request.alone(k) for k in range(len(request.answers))]
    found = [_found(r) for r in alone]
    audits = []
    for r, (premises, own) in zip(alone, found, strict=True):
        reply = _reply(r, premises, own)
        given = {(t["old_quote"], t["new_quote"]) for t in reply["transitions"]}
        answer = answer_map(r)
        for old, new, found_by in (f for _, other in found for f in other if f not in own):
            t = _transition(old, new, answer, found_by)
            pair = None if t is None else (t["old_quote"], t["new_quote"])
            if t is not None and pair not in given and t["new_value"] != _json(r.value):
                given.add(pair)
                if r.proposes:
                    reply["transitions"].append(t)
        audits.append(reply)
    return {"audits": audits}


def audit(request: AuditRequest | AnswersAuditRequest) -> dict[str, Any]:
    """One audit, or one per answer of an audit of several: each on its own, or (the joint
    variant) sharing what any of them found."""
    if isinstance(request, AnswersAuditRequest):
        if request.joint:
            return _joint(request)
        return {"audits": [propose(request.alone(k)) for k in range(len(request.answers))]}
    return propose(request)


def simulated_auditor(
    profile: Profile,
) -> Callable[[AuditRequest | AnswersAuditRequest], dict[str, Any]]:
    """The auditor role of a `rules` profile."""
    return audit
