"""The answer-level audit: a reader's draft answer checked against the records before scoring.

For each answered probe, the records alive at the probe's time are ranked by the item's query
within the writer's budget (the evidence the audit reads). Those stating the draft's value support
it; the records that arrived after the newest of them go to the auditor with the supporting ones,
and the auditor proposes transitions. The gate verifies each one, and the arbiter's verdict
decides the typed directive: STALE (a verified transition) corrects the answer to the
transition's new value and informs the user of the change (correct-and-inform); UNKNOWN (only
refused proposals) keeps the draft and asks the user (verify); VALID keeps it. A draft with no
support, or with nothing newer than its support, is not sent to the auditor.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memshift.gold.evaluator import Value
from memshift.models.requests import AuditRequest, CallContext
from memshift.retrieval.queries import item_query
from memshift.retrieval.selection import WRITER_BUDGET, Selector
from memshift.statements import render
from memshift.world.items import Item
from memshift.world.records import LiveState, PublicEvent, Record


@dataclass(frozen=True)
class Draft:
    """One answered probe as the reader gave it."""

    probe_id: str
    checkpoint: int
    time: datetime
    item: Item
    version: int
    value: Value


def draft_value(value_json: str | None) -> Value:
    """An answer's JSON value as the evaluator's value: a set as a sorted tuple."""
    if value_json is None:
        return None
    value = json.loads(value_json)
    if isinstance(value, list):
        return tuple(sorted(str(v) for v in value))
    return None if value is None else str(value)


def answer_json(value: object) -> str:
    """A corrected value as an answer's JSON value (a set as a list)."""
    return json.dumps(list(value) if isinstance(value, tuple | list) else value)


def surfaces(value: Value) -> tuple[str, ...]:
    if value is None:
        return ()
    return value if isinstance(value, tuple) else (value,)


def supporting(records: Sequence[Record], value: Value) -> list[Record]:
    """The records whose text states the value (any member, for a set)."""
    said = surfaces(value)
    return [r for r in records if any(s and s in r.text for s in said)]


def evidence_at(
    events: Sequence[PublicEvent], drafts: Sequence[Draft]
) -> dict[str, tuple[Record, ...]]:
    """For each draft, the live records at its time that the item's query ranks within the
    writer's budget, oldest first."""
    ordered = sorted(events, key=lambda e: e.time)
    state, applied = LiveState(), 0
    selector: Selector | None = None
    out: dict[str, tuple[Record, ...]] = {}
    for draft in sorted(drafts, key=lambda d: (d.time, d.probe_id)):
        while applied < len(ordered) and ordered[applied].time <= draft.time:
            state.apply(ordered[applied])
            applied += 1
            selector = None
        if selector is None:
            selector = Selector(list(state.records.values()))
        out[draft.probe_id] = selector.select(item_query(draft.item, draft.version), WRITER_BUDGET)
    return out


def request_for(
    draft: Draft, evidence: Sequence[Record], context: CallContext
) -> AuditRequest | None:
    """The auditor's request for a draft, or None when there is nothing to audit it against."""
    support = supporting(evidence, draft.value)
    if not support:
        return None
    since = max(r.updated for r in support)
    newer = tuple(r for r in evidence if r.updated > since)
    if not newer:
        return None
    statement = render(
        draft.item.label,
        draft.time.date(),
        draft.value,
        is_set=draft.item.value_type == "entity_set",
    )
    return AuditRequest(
        draft.item, draft.version, statement, draft.value, since, tuple(support), newer, context
    )
