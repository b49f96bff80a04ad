"""The semantic check: a second check, after the gate, on what the newer record means.

The gate (`gate.authorize`) verifies provenance and chronology: both quotes come from records
the auditor was shown, one record each, and the new one is newer. It does not verify
supersession. A newer record that only mentions another value (a friend moved to another city,
"if I ever moved to X", a colleague joined another organization, a newsletter about a city)
passes the gate as well as a real change does, and the arbiter would then repair a correct
item.

This check reads meaning: an accepted decision stays accepted only when the record behind its
new entry, read on its own, states the candidate's new value as the item's value. Here the
reading is deterministic, by the project's own parsers: `phrasing.find_statements` for the
person's free-text items (the phrases in which the user's own value is stated), and the gold
evaluator on that one record for structured items (as the rule-based auditor reads a record).
With a real model in the loop the same question ("does this record say that the item's value
is now X?") would be a model judgment, not a parse, and could itself be wrong; the rule here
only stands for it. Without a verified transition the arbiter falls back on the base audit,
so a refusal here never repairs on the transition's word.

An answer-level audit of an implicit question (`memshift.probes.implicit`) proposes values in the
answer's terms (a country, not a city): the stated value is then mapped through the relation the
question names before it is compared.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from memshift.audit.gate import Candidate, Decision
from memshift.models.readings import answer_map, audited_records, stated_value
from memshift.models.requests import AuditRequest

NOT_STATED = "new record does not state the new value as the item's"
NOT_AMONG = "new record is not among the audited records"
AGGREGATE = "one record cannot state a definition's value"


def _comparable(value: Any) -> Any:
    """A value in one form: a model sends sets as lists in any order (gold holds tuples), and
    may change the case or spacing of a name."""
    if isinstance(value, list | tuple):
        return tuple(sorted((_comparable(v) for v in value), key=repr))
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    return value


def semantic_check(request: AuditRequest, candidate: Candidate, decision: Decision) -> Decision:
    """`decision`, or the same decision refused when the record of its new entry does not state
    the candidate's new value as the item's. Refused decisions pass through unchanged."""
    if not decision.accepted:
        return decision
    if request.item.is_definition:
        return dataclasses.replace(decision, accepted=False, reason=AGGREGATE)
    record = audited_records(request).get(decision.new_entry)
    if record is None:
        return dataclasses.replace(decision, accepted=False, reason=NOT_AMONG)
    stated = stated_value(request.item, record, request.version)
    answer = None if stated is None else answer_map(request)(stated)
    if answer is None or _comparable(answer) != _comparable(candidate.new_value):
        return dataclasses.replace(decision, accepted=False, reason=NOT_STATED)
    return decision
