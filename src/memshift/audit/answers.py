"""The answer-level audit: a reader's draft answer (or abstention) to a probe checked against the
records before scoring.

For each probe, the records alive at the probe's time are ranked by the item's query within the
writer's budget (the evidence the audit reads). Those stating the draft's value go to the auditor
as the records it cites, the rest as the others, with the probe's question. The base audit, the
gate and the arbiter decide a verdict (`memshift.audit.arbiter`), and its typed directive the
answer scored: repair (material STALE) corrects the answer to the current value and informs the
user of the change (correct-and-inform; no current value turns it into an abstention); verify
(material UNKNOWN) keeps the draft and asks the user; no directive keeps it. A probe with no
evidence at all is not sent to the auditor. A system's answers about one item at one time share
their evidence, so one call audits up to `batch` of them against it (`answers_requests`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memshift.errors import ConfigError
from memshift.gold.evaluator import Value
from memshift.models.reply_schemas import MAX_AUDITED_ANSWERS
from memshift.models.requests import AnswersAuditRequest, AuditedAnswer, AuditRequest, CallContext
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
    """The auditor's request for a draft read alone: the records stating its value as the ones
    it cites, the rest of its evidence as the others; None when it has no evidence at all."""
    if not evidence:
        return None
    answer = audited_answer(draft, evidence)
    records = tuple(evidence)
    return AnswersAuditRequest(
        draft.item, draft.version, draft.time, records, (answer,), context, variant
    ).alone(0)


def audited_answer(draft: Draft, evidence: Sequence[Record]) -> AuditedAnswer:
    """A draft as an audit reads it: the records of its evidence that state its value are the
    ones it cites, written when the newest of them was (else at the draft's time)."""
    support = tuple(supporting(evidence, draft.value))
    since = max((r.updated for r in support), default=draft.time)
    return AuditedAnswer(draft.question, draft.value, answer_statement(draft.value), since, support)


def answers_requests(
    drafts: Sequence[Draft],
    evidence: Mapping[str, tuple[Record, ...]],
    context: Callable[[Draft], CallContext],
    variant: str = "full",
    batch: int = 1,
) -> list[tuple[AnswersAuditRequest, tuple[str, ...]]]:
    """The audit calls of one system's drafts, each with the probe ids it audits, in order: the
    drafts about one item as of one time (one evidence) in calls of at most `batch` (the joint
    variant: all of them); a draft with no evidence in none."""
    if not 1 <= batch <= MAX_AUDITED_ANSWERS:
        raise ConfigError(
            f"an audit call checks 1 to {MAX_AUDITED_ANSWERS} answers, not {batch} "
            "(systems.answer_audit_batch)"
        )
    if variant == "joint":
        # the scenario-joint audit reads every answer about an item-time in one call
        batch = MAX_AUDITED_ANSWERS
    groups: dict[tuple[str, int, datetime], list[Draft]] = {}
    for draft in drafts:
        if evidence[draft.probe_id]:
            groups.setdefault((draft.item.item_id, draft.version, draft.time), []).append(draft)
    calls = []
    for members in groups.values():
        for start in range(0, len(members), batch):
            chunk = members[start : start + batch]
            records = evidence[chunk[0].probe_id]
            request = AnswersAuditRequest(
                chunk[0].item,
                chunk[0].version,
                chunk[0].time,
                records,
                tuple(audited_answer(d, records) for d in chunk),
                context(chunk[0]),
                variant,
            )
            calls.append((request, tuple(d.probe_id for d in chunk)))
    return calls
