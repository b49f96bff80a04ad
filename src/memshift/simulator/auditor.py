"""The rule-based auditor: proposes a transition whenever a record that arrived after the item
was written yields a different value for the item on its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memshift.gold.evaluator import Value, evaluate
from memshift.models.profiles import Profile
from memshift.models.requests import AuditRequest
from memshift.simulator.quotes import quote_of
from memshift.statements import value_text
from memshift.world import phrasing
from memshift.world.records import Record


def _value_of(request: AuditRequest, record: Record) -> Value:
    item = request.item
    if item.free_text:
        found = [v for _, v, _ in phrasing.find_statements(record.text, item.attribute)]
        return found[-1] if found else None
    gold = evaluate(item, [record], record.updated, version=request.version)
    return gold.value if gold.status == "answer" else None


def _surface(value: Value) -> str:
    return value[0] if isinstance(value, tuple) and value else value_text(value)


def propose(request: AuditRequest) -> dict[str, Any]:
    if request.item.is_definition:
        return {"transitions": []}
    old_holder = next(
        (r for r in request.cited if quote_of(r.text, _surface(request.value)) is not None), None
    )
    transitions = []
    for record in sorted(request.records, key=lambda r: (r.updated, r.object_id)):
        new = _value_of(request, record)
        if new is None or new == request.value or old_holder is None:
            continue
        old_quote = quote_of(old_holder.text, _surface(request.value))
        new_quote = quote_of(record.text, _surface(new))
        if old_quote is None or new_quote is None:
            continue
        transitions.append(
            {
                "dimension": request.item.attribute or request.item.item_class,
                "old_value": list(request.value)
                if isinstance(request.value, tuple)
                else request.value,
                "new_value": list(new) if isinstance(new, tuple) else new,
                "old_quote": old_quote,
                "new_quote": new_quote,
                "causal_path": [old_holder.object_id, record.object_id],
            }
        )
    return {"transitions": transitions}


def simulated_auditor(profile: Profile) -> Callable[[AuditRequest], dict[str, Any]]:
    """The auditor role of a `rules` profile."""
    return propose
