"""The records of an audit by the names its entries go by, what one record states about an item
read on its own, and how an item's value becomes the answer to a question: the readings the
gate, the rule-based auditor and the semantic check share."""

from __future__ import annotations

from collections.abc import Callable

from memshift.gold.evaluator import ANSWER, Value, evaluate
from memshift.models.requests import AuditRequest
from memshift.probes.implicit import relation_of_question
from memshift.world import phrasing
from memshift.world.items import Item
from memshift.world.parse import entry_id
from memshift.world.records import Record


def audited_records(request: AuditRequest) -> dict[str, Record]:
    """The request's records (cited first) by entry id; of two with one id the first stays, as
    in grounding."""
    records: dict[str, Record] = {}
    for record in (*request.cited, *request.records):
        records.setdefault(entry_id(record), record)
    return records


def stated_value(item: Item, record: Record, version: int) -> Value:
    """The value of `item` that `record`, read on its own, states (the last statement in its
    text, for free-text items); None when it states none."""
    if item.free_text:
        found = phrasing.find_statements(record.text, item.attribute)
        return found[-1][1] if found else None
    gold = evaluate(item, [record], record.updated, version=version)
    return gold.value if gold.status == ANSWER else None


def answer_map(request: AuditRequest) -> Callable[[Value], Value]:
    """How the item's value becomes the answer the audited statement gives: through the implicit
    relation the request's question names, else unchanged."""
    relation = relation_of_question(request.question, request.item) if request.question else None
    if relation is None:
        return lambda value: value
    when = request.as_of or request.written_at
    return lambda value: relation.derive(value, when)
