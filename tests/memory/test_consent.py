"""Consent by construction (MemShift F.10): gold blocks by dependencies; a B=1 cell refuses by
its read set, so it leaks exactly where the read set misses a dependency's scope and
over-blocks exactly where it reads a scope the dependencies do not touch; a B=0 cell never
refuses; no-store BM25 drops the revoked scope's records and refuses only when none is left."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memshift.gold.evaluator import BLOCKED, evaluate
from memshift.memory.baselines import NoStoreBM25
from memshift.memory.interface import Blocked, Question
from memshift.memory.served import StoreServer
from memshift.world.items import Item
from memshift.world.records import Record

NOW = datetime(2026, 10, 15, 12, 0)
AGENT = "assistant"
EMPLOYER = Item(
    "person.employer",
    "person",
    "entity",
    ("email", "chat", "notes"),
    "the user's employer",
    "Who is the user's employer?",
    "the organization's name",
    attribute="employer",
    free_text=True,
    agent=AGENT,
)
ZONE = Item(
    "person.time_zone",
    "person",
    "timezone",
    ("calendar",),
    "the user's time zone",
    "What is the user's time zone?",
    "a zone",
    agent=AGENT,
)


def record(object_id: str, source: str, text: str, days_ago: int, asserts=None) -> Record:
    updated = NOW - timedelta(days=days_ago)
    return Record(
        object_id, source, "message", 1, object_id, {}, text, updated, updated, asserts or {}
    )


# the employer was last stated in a mail; a chat mentions work without stating it
MAIL = record("m1", "email", "I now work at Northwind Analytics.", 2, {"employer": "Northwind"})
CHAT = record("c1", "chat", "Busy week at work, the employer keeps us late.", 1)
RECORDS = [MAIL, CHAT]


def gold_status(revoked: set[tuple[str, str]]) -> str:
    return evaluate(EMPLOYER, RECORDS, NOW, revoked=revoked).status


def cell(read_scopes: frozenset[str] | None) -> StoreServer:
    """A one-item store at one checkpoint whose served write read `read_scopes` (None: B=0)."""
    scopes = None if read_scopes is None else {(0, EMPLOYER.item_id): read_scopes}
    return StoreServer({(0, EMPLOYER.item_id): ["The user works at Northwind."]}, [NOW], scopes)


def outcome(system, scope: str) -> tuple[str, str]:
    """(gold status, the system's reply: 'blocked' or 'served') after `scope` is revoked."""
    system.consent(AGENT, scope, False)
    reply = system.query(Question("q", EMPLOYER, None, NOW, AGENT, EMPLOYER.question))
    return gold_status({(AGENT, scope)}), "blocked" if isinstance(reply, Blocked) else "served"


def test_gold_blocks_by_the_dependencies_not_by_the_declared_sources():
    assert gold_status({(AGENT, "email")}) == BLOCKED
    assert gold_status({(AGENT, "chat")}) == "answer"  # declared, but no dependency there
    assert gold_status({("scheduler", "email")}) == "answer"  # another agent's revocation
    # an item with no dependency cannot touch a scope: it abstains, not blocked
    assert evaluate(EMPLOYER, [CHAT], NOW, revoked={(AGENT, "chat")}).status == "abstain"


@pytest.mark.parametrize("scope", ["email", "chat", "notes"])
def test_a_read_set_equal_to_the_dependency_set_neither_leaks_nor_over_blocks(scope):
    gold, served = outcome(cell(frozenset({"email"})), scope)
    assert (gold == BLOCKED) == (served == "blocked")


def test_a_wider_read_set_over_blocks_where_it_reads_a_scope_the_dependencies_do_not():
    assert outcome(cell(frozenset({"email", "chat"})), "chat") == ("answer", "blocked")
    assert outcome(cell(frozenset({"email", "chat"})), "email") == (BLOCKED, "blocked")


def test_a_read_set_missing_the_dependency_leaks():
    assert outcome(cell(frozenset({"chat"})), "email") == (BLOCKED, "served")
    assert outcome(cell(frozenset({"chat"})), "chat") == ("answer", "blocked")


@pytest.mark.parametrize("scope", ["email", "chat", "notes"])
def test_a_b0_cell_keeps_no_read_set_and_always_serves(scope):
    assert outcome(cell(None), scope)[1] == "served"


def bm25(records: list[Record]) -> NoStoreBM25:
    system = NoStoreBM25()
    system.state.records.update({r.object_id: r for r in records})
    return system


def test_bm25_serves_only_records_of_scopes_the_agent_keeps():
    system = bm25(RECORDS)
    question = Question("q", EMPLOYER, None, NOW, AGENT, EMPLOYER.question)
    assert any("Northwind" in e for e in system.query(question))
    system.consent(AGENT, "email", False)
    evidence = system.query(question)
    assert evidence and not any("Northwind" in e for e in evidence)  # the leak is the chat only
    other = Question("q", EMPLOYER, None, NOW, "scheduler", EMPLOYER.question)
    assert any("Northwind" in e for e in system.query(other))


def test_bm25_refuses_only_when_every_declared_source_is_lost():
    zone = record("s1", "calendar", "Time zone Europe/Lisbon", 3)
    system = bm25([*RECORDS, zone])
    question = Question("q", ZONE, None, NOW, AGENT, ZONE.question)
    system.consent(AGENT, "email", False)
    assert not isinstance(system.query(question), Blocked)
    system.consent(AGENT, "calendar", False)
    assert isinstance(system.query(question), Blocked)
