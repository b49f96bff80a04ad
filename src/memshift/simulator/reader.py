"""The rule-based reader: answers from the newest applicable evidence, or abstains.

It reads the question only to tell a direct question from an implicit-dependency one, by its
wording; the definition a question names comes with the request (none for an unnamed probe, when
the evidence's newest announced definition counts, else the first). It understands two kinds
of evidence: statements in memshift's own grammar (written by the rule-based writer or by exact
recomputation) and records rendered as evidence (the baselines serve those). A language-model
writer's free statement is neither, so the rule-based reader falls back to the records quoted
beside it, and abstains if there are none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memshift import statements
from memshift.definitions.catalog import announced_versions, definition
from memshift.gold.evaluator import Value, evaluate
from memshift.models.profiles import Profile
from memshift.models.requests import ReaderRequest
from memshift.probes.implicit import relation_of_question
from memshift.world import phrasing
from memshift.world.parse import ParsedRecord, deletion, parse_evidence


def _answer(value: Value) -> dict[str, Any]:
    if value is None:
        return {"status": "abstain", "value": None}
    return {"status": "answer", "value": list(value) if isinstance(value, tuple) else value}


def read(request: ReaderRequest) -> dict[str, Any]:
    """The item's value from the evidence; for a question the wording of an implicit dependency
    (`memshift.probes.implicit`), that value mapped through it, as a model would reason from it."""
    relation = relation_of_question(request.question, request.item)
    found = _read_item(request)
    if relation is None or found["status"] != "answer":
        return found
    value = found["value"]
    return _answer(
        relation.derive(tuple(value) if isinstance(value, list) else value, request.as_of)
    )


def _read_item(request: ReaderRequest) -> dict[str, Any]:
    item = request.item
    is_set = item.value_type == "entity_set"
    stated = [
        (when, position, value)
        for position, text in enumerate(request.evidence)
        for when, value in statements.parse(text, item.label, is_set=is_set)
    ]
    if stated:
        return _answer(max(stated, key=lambda s: (s[0], s[1]))[2])
    parsed = live_records(request.evidence)
    if item.free_text:
        found = [
            ((p.updated, p.object_id, offset), value)
            for p in parsed
            for _, value, offset in phrasing.find_statements(p.text, item.attribute)
        ]
        return _answer(max(found)[1] if found else None)
    version = request.version or version_in_evidence(request)
    gold = evaluate(item, [p.as_record() for p in parsed], request.as_of, version=version)
    return _answer(gold.value if gold.status == "answer" else None)


def live_records(evidence: Sequence[str]) -> list[ParsedRecord]:
    """The records in `evidence`, each at its newest revision there, none a later line says was
    deleted (a memory may serve a record's old revisions and its deletion beside the new)."""
    newest: dict[str, ParsedRecord] = {}
    deleted: dict[str, int] = {}
    for text in evidence:
        gone = deletion(text)
        if gone is not None:
            deleted[gone[0]] = max(gone[1], deleted.get(gone[0], 0))
            continue
        parsed = parse_evidence(text)
        if parsed is not None:
            kept = newest.get(parsed.object_id)
            if kept is None or parsed.revision > kept.revision:
                newest[parsed.object_id] = parsed
    return [p for p in newest.values() if p.revision > deleted.get(p.object_id, 0)]


def version_in_evidence(request: ReaderRequest) -> int:
    """For a question that names no definition: the newest version of the item's definition
    the evidence announces ("Definition <name> is now version <n>: ..."), else the first."""
    if not request.item.is_definition:
        return 1
    found = announced_versions(definition(request.item.item_id, 1).name, request.evidence)
    return found[-1] if found else 1


def simulated_reader(profile: Profile) -> Callable[[ReaderRequest], dict[str, Any]]:
    """The reader role of a `rules` profile."""
    return read
