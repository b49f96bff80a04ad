"""The arbiter: one verdict per audit from the base audit's premises and the gate's decisions on
the proposed transitions, and its typed directive.

A verified transition is the only path to a repair where one exists (verified-only authority),
and carries the value of the newest one. Without a verified transition the base audit's verdict
stands: a material STALE premise repairs to its current value, a material UNKNOWN one (memory
neither confirms nor refutes) asks the user to verify; anything else keeps the value. A reply
that cannot be read keeps the value too, and the audit records why.

The ablations (`AuditRequest.variant`): `nogate` accepts every parsed transition unchecked;
`noauthority` lets the base audit's STALE override a verified transition; `control` asks for no
transitions (the same evidence and call, the base audit alone); `draftonly` runs the base audit
without its state-anchored pass; `semantic` adds a semantic check after the gate. The `joint`
audit changes what is asked (an item-time's answers together), not how a reply is judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from memshift.audit.answers import answer_json
from memshift.audit.gate import (
    NO_CANDIDATE,
    PASSES,
    Candidate,
    Decision,
    audit_index,
    review,
)
from memshift.audit.semantic import semantic_check
from memshift.models.requests import AuditRequest

VALID, STALE, UNKNOWN = "VALID", "STALE", "UNKNOWN"
VERDICTS = (VALID, STALE, UNKNOWN)
REPAIR, VERIFY, NO_DIRECTIVE = "repair", "verify", "none"
# Which channel decided a verdict: a verified transition, the base audit, or nothing (no reply
# that could be read, or nothing audited).
TRANSITION, BASE, NOTHING = "transition", "base", "none"

Decided = tuple[Candidate | None, Decision]


@dataclass(frozen=True)
class Verdict:
    status: str
    current: Any
    reason: str
    source: str = NOTHING
    material: bool = False

    @property
    def directive(self) -> str:
        """Material STALE repairs (and informs), material UNKNOWN asks to verify."""
        if self.material and self.status == STALE:
            return REPAIR
        if self.material and self.status == UNKNOWN:
            return VERIFY
        return NO_DIRECTIVE


@dataclass(frozen=True)
class Premise:
    """One premise of the base audit, from its draft-anchored or its state-anchored pass."""

    premise: str
    found_by: str
    verdict: str
    current: Any
    material: bool

    @classmethod
    def parse(cls, data: Any) -> Premise:
        """A premise from a reply; raises ValueError when a field is missing or mistyped."""
        if not isinstance(data, Mapping):
            raise ValueError("a premise must be an object")
        try:
            found_by, verdict, material = data["pass"], data["verdict"], data["material"]
            if found_by not in PASSES:
                raise ValueError(f"pass must be one of {', '.join(PASSES)}")
            if verdict not in VERDICTS:
                raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
            if not isinstance(material, bool):
                raise ValueError("material must be true or false")
            return cls(str(data["premise"]), found_by, verdict, data["current_value"], material)
        except KeyError as exc:
            raise ValueError(f"malformed premise: missing {exc}") from exc


@dataclass(frozen=True)
class Audit:
    """What one audit found: the verdict, each proposal with its decision, the premises, and why
    the reply could not be read (empty when it could)."""

    verdict: Verdict
    decisions: tuple[Decided, ...]
    premises: tuple[Premise, ...]
    failure: str = ""


def base_verdict(stored: Any, premises: Sequence[Premise]) -> Verdict:
    """The base audit's verdict: a STALE premise first (the state-anchored pass's before the
    draft-anchored one's, since it reads the timeline's current value); then UNKNOWN, unless a
    premise was found VALID (a pass that read the records settles what another could not
    check); else VALID. Material when the premise it rests on is."""
    confirmed = any(p.verdict == VALID for p in premises)
    for status in (STALE, UNKNOWN):
        found = [p for p in premises if p.verdict == status]
        if found and not (status == UNKNOWN and confirmed):
            found.sort(key=lambda p: (not p.material, p.found_by != "state"))
            p = found[0]
            current = p.current if status == STALE else stored
            return Verdict(status, current, f"base audit: {p.premise}", BASE, p.material)
    if premises:
        return Verdict(VALID, stored, "base audit: every premise valid", BASE)
    return Verdict(VALID, stored, "base audit: no premise")


def arbitrate(
    stored: Any,
    decisions: Sequence[Decided],
    premises: Sequence[Premise] = (),
    variant: str = "full",
) -> Verdict:
    base = base_verdict(stored, premises)
    if variant == "noauthority" and base.directive == REPAIR:
        return base
    verified = [(c, d) for c, d in decisions if d.accepted and c is not None]
    if verified:
        # the newest verified transition; without the gate's times, the last one proposed
        _, (candidate, decision) = max(
            enumerate(verified),
            key=lambda kcd: (kcd[1][1].new_time is not None, kcd[1][1].new_time, kcd[0]),
        )
        path = (
            f"{decision.old_entry} -> {decision.new_entry}" if decision.new_entry else "unchecked"
        )
        return Verdict(STALE, candidate.new_value, f"verified transition {path}", TRANSITION, True)
    return base


def unchecked(decisions: Sequence[Decided]) -> list[Decided]:
    """The `nogate` ablation: every parsed transition is taken as verified."""
    return [
        (c, d if c is None else Decision(True, "not validated (no gate)")) for c, d in decisions
    ]


def judge(request: AuditRequest, reply: Mapping[str, Any] | None) -> Audit:
    """The audit of one request from its reply (None: the call failed): the gate's decisions,
    the premises and the verdict under the request's variant (the `semantic` variant runs the
    semantic check on what the gate accepted)."""
    if reply is None:
        return Audit(Verdict(VALID, request.value, "auditor reply failed"), (), (), "no reply")
    try:
        premises = tuple(Premise.parse(p) for p in _listed(reply, "premises"))
        _listed(reply, "transitions")
    except ValueError as exc:
        reason = f"reply not parsed: {exc}"
        return Audit(Verdict(VALID, request.value, reason), (), (), reason)
    decisions = review(reply, audit_index(request)) if request.proposes else []
    if request.variant == "nogate":
        decisions = unchecked(decisions)
    if request.variant == "semantic":
        decisions = [
            (c, semantic_check(request, c, d)) if c is not None else (c, d) for c, d in decisions
        ]
    verdict = arbitrate(request.value, decisions, premises, request.variant)
    return Audit(verdict, tuple(decisions), premises)


def _listed(reply: Mapping[str, Any], key: str) -> list[Any]:
    if not isinstance(reply, Mapping):
        raise ValueError("the reply is not an object")
    found = reply.get(key, [])
    if not isinstance(found, list):
        raise ValueError(f"{key} is not a list")
    return found


def _fields(record: Candidate | Decision) -> dict[str, Any]:
    """A record's fields by name, their values as they are: `dataclasses.asdict` deep-copies
    every value: more than half the time an audit job took to write its log."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


@dataclass(frozen=True)
class AuditRow:
    """One row of an audit's log: its verdict, a proposed transition (or failed reply) with what
    the gate decided, or a premise of the base audit; `probe_id` names the answer an answer-level
    audit checked."""

    kind: str
    item_id: str
    checkpoint: int
    verdict: Verdict
    variant: str
    candidate: Candidate | None = None
    decision: Decision | None = None
    premise: Premise | None = None
    probe_id: str = ""
    failure: str = ""

    @property
    def accepted(self) -> bool:
        return self.decision is not None and self.decision.accepted

    def flat(self) -> dict[str, Any]:
        """The row as the columns of the AUDITS table."""
        candidate = _fields(self.candidate or NO_CANDIDATE)
        decision = _fields(self.decision or Decision(False, ""))
        premise = self.premise
        if self.kind == "verdict":
            decision["reason"] = self.failure or self.verdict.reason
        return {
            "probe_id": self.probe_id,
            "item_id": self.item_id,
            "checkpoint": self.checkpoint,
            "row": self.kind,
            **candidate,
            **decision,
            "found_by": premise.found_by if premise else candidate["found_by"],
            "material": self._material(),
            "premise": premise.premise if premise else "",
            "premise_verdict": premise.verdict if premise else "",
            "current_value": None if (now := self._current()) is None else answer_json(now),
            "verdict": self.verdict.status,
            "source": self.verdict.source,
            "directive": self.verdict.directive,
            "parsed": not self.failure,
            "variant": self.variant,
        }

    def _material(self) -> bool:
        if self.premise is not None:
            return self.premise.material
        if self.candidate is not None:
            return self.candidate.material
        return self.verdict.material if self.kind == "verdict" else False

    def _current(self) -> Any:
        if self.premise is not None:
            return self.premise.current
        return self.verdict.current if self.kind == "verdict" else None


def audit_log(
    item_id: str, checkpoint: int, audit: Audit, variant: str, probe_id: str = ""
) -> list[AuditRow]:
    """The rows of one audit: its verdict first, then each transition, then each premise."""
    verdict = audit.verdict
    rows = [
        AuditRow(
            "verdict",
            item_id,
            checkpoint,
            verdict,
            variant,
            probe_id=probe_id,
            failure=audit.failure,
        )
    ]
    rows += [
        AuditRow("transition", item_id, checkpoint, verdict, variant, c, d, probe_id=probe_id)
        for c, d in audit.decisions
    ]
    rows += [
        AuditRow("premise", item_id, checkpoint, verdict, variant, premise=p, probe_id=probe_id)
        for p in audit.premises
    ]
    return rows
