"""The answer-level audit: a reader's draft answer (or abstention) to a probe checked against the
records before scoring.

For each probe, the records alive at the probe's time are ranked by the item's query within the
writer's budget (the evidence the audit reads). Those stating the draft's value go to the auditor
as the records it cites, the rest as the others, with the probe's question. The base audit, the
gate and the arbiter decide a verdict (`memshift.audit.arbiter`), and its typed directive the
answer scored: repair (material STALE) corrects the answer to the current value and informs the
user of the change (correct-and-inform; no current value turns it into an abstention); verify
(material UNKNOWN) keeps the draft and asks the user; no directive keeps it. A probe with no
evidence at all is not sent to the auditor.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memshift.gold.evaluator import Value
from memshift.models.requests import AuditRequest, CallContext
from memshift.retrieval.queries import item_query
from memshift.retrieval.selection import AUDITOR_BUDGET, Selector
from memshift.statements import value_text
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
    question: str = ""


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
    events: Sequence[PublicEvent], drafts: Sequence[Draft], budget: int = AUDITOR_BUDGET
) -> dict[str, tuple[Record, ...]]:
    """For each draft, the live records at its time that the item's query ranks within the
    auditor's budget (the writer's, unless the auditor's context window cuts it), oldest
    first."""
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
            selector = Selector.over(list(state.records.values()))
        out[draft.probe_id] = selector.select(item_query(draft.item, draft.version), budget)
    return out


def answer_statement(value: Value) -> str:
    if value is None:
        return "The draft abstains: it gives no current value."
    return f"The draft answers: {value_text(value)}."


def request_for(
    draft: Draft, evidence: Sequence[Record], context: CallContext, variant: str = "full"
) -> AuditRequest | None:
    """The auditor's request for a draft: the records stating its value as the ones it cites,
    the rest of its evidence as the others; None when it has no evidence at all."""
    if not evidence:
        return None
    support = tuple(supporting(evidence, draft.value))
    since = max((r.updated for r in support), default=draft.time)
    cited = {(r.object_id, r.revision) for r in support}
    others = tuple(r for r in evidence if (r.object_id, r.revision) not in cited)
    return AuditRequest(
        draft.item,
        draft.version,
        answer_statement(draft.value),
        draft.value,
        since,
        support,
        others,
        context,
        question=draft.question,
        as_of=draft.time,
        variant=variant,
    )
