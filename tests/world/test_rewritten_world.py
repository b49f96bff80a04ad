"""A whole generated world rewritten by the offline rewriter: gold is the same, every gold fact is
still found, nothing outside the bodies moves, and a record shared by branches reads the same."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from conftest import world
from memshift.branches import Branch, make_branch
from memshift.gold.branch import BranchGold, branch_gold
from memshift.gold.compute import outcomes
from memshift.simulator.rewriter import OfflineRewriter
from memshift.tokens import count_tokens
from memshift.world.records import Event
from memshift.world.rewrite import (
    CachedRewrite,
    RewriteLogRow,
    body_of,
    rewrite_events,
    summarize,
)

SEED = 1000
SHIFTED = ("src", "conflict")


@cache
def _branch(name: str) -> Branch:
    return make_branch(world(SEED), name)


@cache
def _template_gold(name: str) -> BranchGold:
    reference = None if name == "none" else outcomes(_template_gold("none").points)
    return branch_gold(world(SEED), list(_branch(name).events), name, reference)


_CACHE: dict[str, CachedRewrite] = {}


@cache
def _rewritten(name: str) -> tuple[tuple[Event, ...], tuple[RewriteLogRow, ...]]:
    """Every branch shares one cache, as a study's branches would."""
    events, log = rewrite_events(_branch(name).events, OfflineRewriter(), _CACHE)
    return tuple(events), tuple(log)


@pytest.mark.parametrize("name", ["none", *SHIFTED])
def test_gold_of_the_rewritten_world_is_the_template_worlds_and_every_fact_is_found(name):
    events, _ = _rewritten(name)
    reference = None if name == "none" else outcomes(_template_gold("none").points)
    # branch_gold raises FidelityError if any gold fact is missing from its dependencies' text
    rewritten = branch_gold(world(SEED), list(events), name, reference)
    template = _template_gold(name)
    assert rewritten.points == template.points
    assert [p.gold.facts for p in rewritten.points] == [p.gold.facts for p in template.points]
    assert rewritten.fidelity == template.fidelity
    assert rewritten.fidelity.failures == () and rewritten.fidelity.facts_checked > 100


@pytest.mark.parametrize("name", ["none", *SHIFTED])
def test_nothing_but_the_bodies_changes(name):
    events, log = _rewritten(name)
    original = _branch(name).events
    assert len(events) == len(original) and len(log) > 500
    structured = 0
    for before, after in zip(original, events, strict=True):
        body = body_of(before)
        if body is None:
            assert after is before
            structured += 1
            continue
        header = before.text[: len(before.text) - len(body)]
        assert after.text.startswith(header)
        assert dataclasses.replace(after, text=before.text, tokens=before.tokens) == before
        assert after.tokens == count_tokens(after.text)
    newsletters = [e for e in original if e.fields.get("category") == "newsletter"]
    assert newsletters and structured > len(newsletters)


def test_a_record_shared_by_branches_reads_the_same_in_each():
    none_events, _ = _rewritten("none")
    by_id = {e.event_id: e.text for e in none_events}
    for name in SHIFTED:
        events, _ = _rewritten(name)
        shared = [e for e in events if e.event_id in by_id]
        assert len(shared) == len(none_events)
        assert all(e.text == by_id[e.event_id] for e in shared)


def test_a_branch_after_the_first_calls_the_rewriter_only_for_its_shift():
    asked: list[str] = []
    rewriter = OfflineRewriter()

    def counting(body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        asked.append(body)
        return rewriter(body, protected, feedback)

    shared: dict[str, CachedRewrite] = {}
    rewrite_events(_branch("none").events, counting, shared)
    asked.clear()
    _, log = rewrite_events(_branch("src").events, counting, shared)
    shift_bodies = {body_of(e) for e in _branch("src").shift_events} - {None}
    assert asked and set(asked) <= shift_bodies
    assert sum(row.calls for row in log) == len(asked)


def test_the_offline_rewriter_changes_most_body_text_and_exercises_every_outcome():
    _, log = _rewritten("none")
    summary = summarize(log)
    assert summary.changed / summary.bodies > 0.6
    assert summary.rewritten_share > 0.6
    assert summary.accepted > 0.8 * summary.bodies
    assert summary.retried > 0 and summary.template > 0
    assert summary.accepted + summary.retried + summary.template == summary.bodies


def test_the_rewritten_world_is_the_same_on_every_run():
    first, first_log = _rewritten("none")
    again, again_log = rewrite_events(_branch("none").events, OfflineRewriter(), {})
    assert [e.text for e in again] == [e.text for e in first]
    assert [(r.content_hash, r.outcome) for r in again_log] == [
        (r.content_hash, r.outcome) for r in first_log
    ]
