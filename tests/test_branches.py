"""Branches: each shares every event outside its shift with the unshifted branch."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conftest import world
from memshift.branches import BRANCHES, CONFLICT_CARDS, SHIFTS, make_branch
from memshift.gold.branch import branch_gold
from memshift.timeutil import parse
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.tables import events_to_table

MANY_SEEDS = [*range(0, 10), 1000, 1013, 1027]


@pytest.mark.parametrize("seed", MANY_SEEDS)
def test_every_branch_equals_none_outside_its_shift(seed):
    w = world(seed)
    none = events_to_table(make_branch(w, "none").events, world=seed, branch="x").to_pylist()
    for name in SHIFTS:
        branch = make_branch(w, name)
        rows = events_to_table(branch.events, world=seed, branch="x").to_pylist()
        shared = [r for r in rows if not r["shift"]]
        assert shared == none, name
        assert len(rows) - len(shared) == len(branch.shift_events) > 0


@pytest.mark.parametrize("name", SHIFTS)
def test_shift_events_come_after_the_fork_within_a_week(world_1000, name):
    fork = world_1000.timeline.fork
    branch = make_branch(world_1000, name)
    assert all(fork < e.time <= fork + timedelta(days=7) for e in branch.shift_events)


@pytest.mark.parametrize(("definitions", "seed"), [("heldout-1", 1004), ("heldout-3", 1001)])
def test_held_out_revisions_book_meetings_at_office_hours_in_their_interval(definitions, seed):
    """A held-out definition's meeting (one at 06:00 widens a span) enters the calendar at
    office hours before it starts, never at night, and between the same two checkpoints."""
    w = generate_world(seed, definitions=definitions)
    meetings = [e for e in make_branch(w, "src").shift_events if e.kind == "meeting"]
    assert meetings
    for e in meetings:
        start = parse(e.fields["start"])
        assert e.time.weekday() < 5 and 8 <= e.time.hour < 18, e.time
        assert w.timeline.fork < e.time <= start - timedelta(hours=1)
        assert [c < e.time for c in w.timeline.checkpoints] == [
            c < start for c in w.timeline.checkpoints
        ]


def test_the_source_revision_touches_ten_items_and_changes_them(data_1000):
    src = data_1000["src"]
    assert len(src.branch.touched_items) == 10
    changed = {p.item.item_id for p in src.gold.points if p.checkpoint == 1 and p.caused_by_shift}
    assert len(changed & set(src.branch.touched_items)) >= 8


def test_the_deletion_makes_half_the_object_items_abstain(data_1000):
    deleted = data_1000["del"]
    # half of the 34 items read from a card, series or task, among the objects the ordinary
    # continuation leaves alone after the fork (a card holds two items, so 16 when only cards fit)
    assert len(deleted.branch.touched_items) in (16, 17)
    for p in deleted.gold.points:
        if p.item.item_id in deleted.branch.touched_items and p.checkpoint >= 1:
            assert p.gold.status == "abstain" and p.gold.deps == ()
    assert {e.op for e in deleted.branch.shift_events} == {"delete"}


def test_the_redefinition_is_an_event_the_memory_sees_and_moves_three_definitions(data_1000):
    redefined = data_1000["def"]
    defines = [e for e in redefined.branch.shift_events if e.op == "define"]
    assert len(defines) == 3 and all(e.fields["version"] == 2 for e in defines)
    assert {e.fields["item"] for e in defines} == set(redefined.branch.touched_items)
    versions = {(p.item.item_id, p.checkpoint): p.gold.version for p in redefined.gold.points}
    for item_id in redefined.branch.touched_items:
        assert versions[(item_id, 0)] == 1 and versions[(item_id, 1)] == 2
    assert not [e for e in redefined.branch.shift_events if e.op != "define"]


def test_consent_revocation_blocks_that_agents_items_touching_the_scope(data_1000):
    cons = data_1000["cons"]
    (revocation,) = cons.branch.shift_events
    assert revocation.op == "consent" and revocation.fields["allowed"] is False
    agent, scope = revocation.fields["agent"], revocation.fields["scope"]
    sources = {e.object_id: e.source for e in cons.branch.events}
    # the same item-times without the revocation: blocked exactly where their dependencies
    # touch the revoked scope (MemShift App. B), not wherever the item declares it
    unrevoked = {(p.item.item_id, p.checkpoint): p.gold for p in data_1000["none"].gold.points}
    for p in cons.gold.points:
        deps = unrevoked[(p.item.item_id, p.checkpoint)].deps
        touches = p.item.agent == agent and any(sources[oid] == scope for oid, _ in deps)
        blocked = p.checkpoint >= 1 and touches
        assert (p.gold.status == "blocked") == blocked
        assert not blocked or p.item.item_id in cons.branch.touched_items


def test_the_failure_mode_worlds_hold_blocked_and_answerable_consent_item_times():
    """Leak and over-block both have item-times to count on the five failure-mode worlds."""
    statuses = set()
    for seed in range(1000, 1005):
        cons = make_branch(world(seed), "cons")
        for p in branch_gold(world(seed), list(cons.events), "cons", None).points:
            if p.checkpoint >= 1 and p.item.item_id in cons.touched_items:
                statuses.add(p.gold.status)
    assert "blocked" in statuses and "answer" in statuses


def test_an_unstated_redefinition_moves_the_same_items_and_no_memory_can_see_it(data_1000):
    unstated, stated = data_1000["undef"], data_1000["def"]
    assert unstated.branch.touched_items == stated.branch.touched_items
    assert all(e.fields["stated"] is False for e in unstated.branch.shift_events)
    assert public_view(unstated.branch.events) == public_view(data_1000["none"].branch.events)
    versions = {(p.item.item_id, p.checkpoint): p.gold.version for p in unstated.gold.points}
    for item_id in unstated.branch.touched_items:
        assert versions[(item_id, 0)] == 1 and versions[(item_id, 1)] == 2


@pytest.mark.parametrize("seed", [1000, 1001, 1002, 1003, 1004])
def test_a_conflict_between_card_and_message_makes_gold_abstain(seed):
    """Four contact attributes per world, 20 over the five failure-mode worlds (MemShift F.10)."""
    conflict = make_branch(world(seed), "conflict")
    assert len(conflict.touched_items) == CONFLICT_CARDS == 4
    assert len({item.split(".")[0] for item in conflict.touched_items}) == 4  # four cards
    for p in branch_gold(world(seed), list(conflict.events), "conflict", None).points:
        if p.item.item_id in conflict.touched_items and p.checkpoint >= 1:
            assert p.gold.status == "abstain"
            assert len(p.gold.deps) == 2


def test_unknown_branch_names_the_choices(world_1000):
    with pytest.raises(ValueError, match="unknown branch 'sideways'; choose one of none, src"):
        make_branch(world_1000, "sideways")


def test_branch_names():
    assert BRANCHES == ("none", "src", "def", "del", "cons", "conflict", "undef")
