"""The rule-based writer: computes an item from the records in its own selection only.

Structured items and definitions go through the gold evaluator applied to the selection, so a
wrong value always means the selection lacked a record, never wrong arithmetic. Free-text
attributes are read by recognizing the project's own phrasings. Every value is cited with exact
quotes from the records it came from.

A write from the delta alone (the append-only cell) first asks whether any of the new records
bears on the item, from what the writer can see: a statement of a free-text attribute in one of
the project's phrasings, the item's own record (its card, series, task or the calendar settings),
an appointment of its type, or a record that the definition in effect ranges over now. If none
does, the reply says so and derives nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from memshift import statements
from memshift.gold.evaluator import Value, evaluate, in_scope
from memshift.models.profiles import Profile
from memshift.models.requests import WriterRequest
from memshift.simulator.errors import ErrorModel, corrupt
from memshift.timeutil import fmt
from memshift.world import phrasing
from memshift.world.quotes import quote_around, quote_of
from memshift.world.records import Record

MAX_CITATIONS = 6


def _stated(attribute: str, records: tuple[Record, ...]) -> tuple[Value, list[dict[str, Any]]]:
    best: tuple[tuple[object, int], Record, str, str] | None = None
    for record in records:
        for phrase in phrasing.PHRASES:
            if phrase.attribute != attribute:
                continue
            for match in phrasing.statement_matches(phrase, record.text):
                rank = ((record.updated, record.object_id), match.start())
                if best is None or rank > best[0]:
                    start, end = match.span(phrasing.VALUE_SLOT)
                    best = (
                        rank,
                        record,
                        match.group(phrasing.VALUE_SLOT),
                        quote_around(record.text, start, end),
                    )
    if best is None:
        return None, []
    _, record, value, quote = best
    return value, [{"object_id": record.object_id, "revision": record.revision, "quote": quote}]


def _computed(request: WriterRequest) -> tuple[Value, list[dict[str, Any]]]:
    gold = evaluate(request.item, request.records, request.as_of, version=request.version)
    if gold.status != "answer":
        return None, []
    by_id = {r.object_id: r for r in request.records}
    citations: list[dict[str, Any]] = []
    for surface, holder in gold.facts:
        record = by_id.get(holder)
        quote = quote_of(record.text, surface) if record else None
        if record is None or quote is None or any(c["object_id"] == holder for c in citations):
            continue
        citations.append({"object_id": holder, "revision": record.revision, "quote": quote})
        if len(citations) == MAX_CITATIONS:
            break
    return gold.value, citations


def content_key(request: WriterRequest) -> str:
    records = ",".join(f"{r.object_id}@{r.revision}" for r in request.records)
    raw = f"{request.item.item_id}|{request.version}|{fmt(request.as_of)}|{records}"
    return hashlib.sha256(raw.encode()).hexdigest()


def bears_on(request: WriterRequest) -> bool:
    """Whether any record of the request says something about its item."""
    item, records = request.item, request.records
    if item.free_text:
        return _stated(item.attribute, records)[0] is not None
    if request.definition is not None:
        return bool(in_scope(request.definition, records, request.as_of))
    if item.item_class == "appointment":
        return any(
            r.kind == "appointment" and r.fields.get("appointment_type") == item.target
            for r in records
        )
    if item.item_class == "person":
        return any(r.kind == "settings" for r in records)
    return any(r.object_id == item.target for r in records)


NOTHING_NEW: dict[str, Any] = {
    "bears_on_item": False,
    "value": None,
    "statement": "",
    "citations": [],
}


def write(request: WriterRequest, errors: ErrorModel | None = None) -> dict[str, Any]:
    item = request.item
    delta = request.delta_since is not None
    if delta and not bears_on(request):
        return dict(NOTHING_NEW)
    if delta and errors is not None and errors.overlooks_news(item, content_key(request)):
        return dict(NOTHING_NEW)
    if item.free_text:
        value, citations = _stated(item.attribute, request.records)
    else:
        value, citations = _computed(request)
    if errors is not None and errors.strikes(item, content_key(request)):
        value = corrupt(item, value)
    statement = statements.render(
        item.label, request.as_of.date(), value, is_set=item.value_type == "entity_set"
    )
    reply = {
        "value": list(value) if isinstance(value, tuple) else value,
        "statement": statement,
        "citations": citations,
    }
    return {"bears_on_item": True, **reply} if delta else reply


def simulated_writer(profile: Profile) -> Callable[[WriterRequest], dict[str, Any]]:
    """The writer role of a `rules` profile, with the profile's error model if it has one."""
    em = profile.error_model
    errors = (
        ErrorModel(em.get("rates", {}), em.get("seed", 0), em.get("overlooks", {})) if em else None
    )
    return lambda request: write(request, errors)
