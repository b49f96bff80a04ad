"""The arbiter: a verdict per stored item from the gate's decisions, and its typed directive.

STALE needs a verified transition, and then carries the value of the newest one; proposals that
all failed the gate leave the item UNKNOWN (verify, never repair); no proposal leaves it VALID.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from memshift.audit.gate import NO_CANDIDATE, Candidate, Decision, audit_index, review
from memshift.models.requests import AuditRequest

VALID, STALE, UNKNOWN = "VALID", "STALE", "UNKNOWN"
DIRECTIVES = {VALID: "none", STALE: "repair", UNKNOWN: "verify"}


@dataclass(frozen=True)
class Verdict:
    status: str
    current: Any
    reason: str

    @property
    def directive(self) -> str:
        return DIRECTIVES[self.status]


def arbitrate(stored: Any, decisions: Sequence[tuple[Candidate | None, Decision]]) -> Verdict:
    verified = [(c, d) for c, d in decisions if d.accepted and c is not None]
    if verified:
        candidate, decision = max(verified, key=lambda cd: (cd[1].new_time, cd[1].new_entry))
        return Verdict(
            STALE,
            candidate.new_value,
            f"verified transition {decision.old_entry} -> {decision.new_entry}",
        )
    if decisions:
        return Verdict(UNKNOWN, stored, f"{len(decisions)} proposed, none verified")
    return Verdict(VALID, stored, "no transition proposed")


def judge(
    request: AuditRequest, reply: Mapping[str, Any] | None
) -> tuple[Verdict, list[tuple[Candidate | None, Decision]]]:
    """The gate's decisions on an auditor's reply (None: the call failed) and the verdict on the
    audited value."""
    decisions = review(reply, audit_index(request))
    return arbitrate(request.value, decisions), decisions


@dataclass(frozen=True)
class AuditRow:
    """One proposed transition (or failed reply) of an audit, what the gate decided and the
    verdict on the audited value; `probe_id` names the answer an answer-level audit checked."""

    item_id: str
    checkpoint: int
    candidate: Candidate | None
    decision: Decision
    verdict: str
    probe_id: str = ""

    @property
    def accepted(self) -> bool:
        return self.decision.accepted

    def flat(self) -> dict[str, Any]:
        """The row as the columns of the AUDITS table."""
        return {
            "probe_id": self.probe_id,
            "item_id": self.item_id,
            "checkpoint": self.checkpoint,
            **asdict(self.candidate or NO_CANDIDATE),
            **asdict(self.decision),
            "verdict": self.verdict,
        }


def audit_log(
    item_id: str,
    checkpoint: int,
    verdict: Verdict,
    decisions: Sequence[tuple[Candidate | None, Decision]],
    probe_id: str = "",
) -> list[AuditRow]:
    return [AuditRow(item_id, checkpoint, c, d, verdict.status, probe_id) for c, d in decisions]
