"""The arbiter: a verdict per stored item from the gate's decisions, and its typed directive.

STALE needs a verified transition, and then carries the value of the newest one; proposals that
all failed the gate leave the item UNKNOWN (verify, never repair); no proposal leaves it VALID.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memshift.audit.gate import Candidate, Decision

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
