"""The trap suite: what the gate, and the gate with the semantic check, accept on trap records.

Each case of `world.traps` becomes one audit request (cited: the older record that states the
stored value; records: the newer one). A recall-first proposer proposes a transition to every
other value the newer record names; the gate reviews the reply; the semantic check reads the
accepted ones. On a trap, a transition the gate accepts is a false STALE (a correct item would
be repaired); on a true change, every case should survive both.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from memshift.audit.gate import Candidate, Decision, audit_index, review
from memshift.audit.semantic import semantic_check
from memshift.models.requests import AuditRequest
from memshift.statements import render
from memshift.world.quotes import quote_around
from memshift.world.records import Record
from memshift.world.traps import REGIMES, TRUE_CHANGE, VALUE_POOLS, TrapCase, trap_cases

DEFINITION_VERSION = 1


@functools.cache
def _mention_pattern(pool: tuple[str, ...]) -> re.Pattern[str]:
    """Any value of `pool` as a whole word (or words); longest first, so a longer name wins."""
    names = sorted(pool, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")


def mentions(text: str, pool: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """The first mention of each value of `pool` in `text`, in text order."""
    seen: set[str] = set()
    for match in _mention_pattern(pool).finditer(text):
        if match.group() not in seen:
            seen.add(match.group())
            yield match


def _first_mention(records: tuple[Record, ...], value: str) -> tuple[Record, str] | None:
    """The first cited record that names `value`, with a quote around it."""
    for record in records:
        for match in mentions(record.text, (value,)):
            return record, quote_around(record.text, *match.span())
    return None


def mention_proposer(request: AuditRequest) -> dict[str, Any]:
    """A STAND-IN for a model auditor, not a model: a recall-first proposer that proposes a
    transition to ANY value of the item's pool that a newer record names and that differs from
    the stored value, whoever's value it is. It reads no meaning on purpose: it is the proposer a
    gate that checks only provenance has to survive. Its quotes are copied from the records
    (at most 25 words around each value), so they ground; its replies have the auditor's
    format (with no premises: it runs no base audit)."""
    pool = VALUE_POOLS.get(request.item.attribute, ())
    stored = request.value
    held = _first_mention(request.cited, stored) if isinstance(stored, str) and pool else None
    if held is None:
        return {"premises": [], "transitions": []}
    old_record, old_quote = held
    transitions = []
    for record in sorted(request.records, key=lambda r: (r.updated, r.object_id)):
        for match in mentions(record.text, pool):
            if match.group() == stored:
                continue
            transitions.append(
                {
                    "dimension": request.item.attribute,
                    "old_value": stored,
                    "new_value": match.group(),
                    "old_quote": old_quote,
                    "new_quote": quote_around(record.text, *match.span()),
                    "causal_path": [old_record.object_id, record.object_id],
                    "pass": "draft",
                    # recall first: every mention is claimed to change the answer
                    "material": True,
                }
            )
    return {"premises": [], "transitions": transitions}


def request_for(case: TrapCase) -> AuditRequest:
    """The audit, once the newer record has arrived, of the stored value written when the older
    record arrived."""
    statement = render(case.item.label, case.old.updated.date(), case.stored, is_set=False)
    return AuditRequest(
        item=case.item,
        version=DEFINITION_VERSION,
        statement=statement,
        value=case.stored,
        written_at=case.old.updated,
        cited=(case.old,),
        records=(case.new,),
        as_of=case.new.updated,
    )


@dataclass(frozen=True)
class CaseAudit:
    """One case's proposals, the gate's decision on each and the decision after the semantic
    check (refused when the gate refused)."""

    case: TrapCase
    reviewed: tuple[tuple[Candidate | None, Decision], ...]
    checked: tuple[Decision, ...]

    @property
    def proposed(self) -> bool:
        return any(candidate is not None for candidate, _ in self.reviewed)

    @property
    def gate_accepted(self) -> bool:
        return any(decision.accepted for _, decision in self.reviewed)

    @property
    def semantic_accepted(self) -> bool:
        return any(decision.accepted for decision in self.checked)

    def accepted_values(self) -> list[Any]:
        """The new values of the transitions that survive the semantic check."""
        return [
            candidate.new_value
            for (candidate, _), decision in zip(self.reviewed, self.checked, strict=True)
            if decision.accepted and candidate is not None
        ]


def audit_case(case: TrapCase) -> CaseAudit:
    request = request_for(case)
    reviewed = tuple(review(mention_proposer(request), audit_index(request)))
    checked = tuple(
        semantic_check(request, candidate, decision) if candidate is not None else decision
        for candidate, decision in reviewed
    )
    return CaseAudit(case, reviewed, checked)


@dataclass(frozen=True)
class RegimeResult:
    """Counts of cases: with a proposal, with a transition the gate accepted, and with one that
    the semantic check kept too. On a trap the last two are false STALE verdicts."""

    regime: str
    cases: int
    proposed: int
    gate_accepted: int
    semantic_accepted: int


def summarize(regime: str, audits: list[CaseAudit]) -> RegimeResult:
    return RegimeResult(
        regime,
        len(audits),
        sum(a.proposed for a in audits),
        sum(a.gate_accepted for a in audits),
        sum(a.semantic_accepted for a in audits),
    )


def run_suite(seed: int, per_regime: int) -> list[RegimeResult]:
    """One result per regime (REGIMES order), then the true changes."""
    audits = [audit_case(case) for case in trap_cases(seed, per_regime)]
    return [
        summarize(regime, [a for a in audits if a.case.regime == regime])
        for regime in (*REGIMES, TRUE_CHANGE)
    ]
