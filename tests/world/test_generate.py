"""The world generator: determinism, independence of components, structure of the log."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from conftest import data, world
from memshift.world.generate import COMPONENTS, generate_world
from memshift.world.records import SOURCES, snapshots
from memshift.world.tables import events_to_table
from memshift.world.timeline import Timeline


def _by_component(world):
    grouped = defaultdict(list)
    for e in world.events:
        grouped[e.component].append(e)
    return grouped


def test_same_seed_gives_identical_events(world_1000):
    again = generate_world(1000)
    assert again.events == world_1000.events
    assert events_to_table(again.events, world=1000, branch="base").equals(
        events_to_table(world_1000.events, world=1000, branch="base")
    )


def test_different_seeds_give_different_worlds(world_1000):
    other = generate_world(1001)
    assert other.cast.user != world_1000.cast.user
    assert [e.text for e in other.events[:50]] != [e.text for e in world_1000.events[:50]]


@pytest.mark.parametrize("changed", ["newsletters", "dm", "meetings", "life"])
def test_changing_one_components_stream_leaves_every_other_component_unchanged(world_1000, changed):
    salted = generate_world(1000, salts={changed: "perturbed"})
    before, after = _by_component(world_1000), _by_component(salted)
    assert before[changed] != after[changed]
    for component in set(before) | set(after):
        if component != changed:
            assert before[component] == after[component], component


def test_every_component_and_source_contributes(world_1000):
    components = Counter(e.component for e in world_1000.events)
    assert set(COMPONENTS) | {"life"} == set(components)
    assert {e.source for e in world_1000.events} == set(SOURCES)


def test_event_ids_are_unique_and_the_log_is_in_time_order(world_1000):
    ids = [e.event_id for e in world_1000.events]
    assert len(ids) == len(set(ids))
    assert [e.sort_key for e in world_1000.events] == sorted(e.sort_key for e in world_1000.events)
    assert all(
        world_1000.timeline.start <= e.time <= world_1000.timeline.end for e in world_1000.events
    )


def test_revisions_start_at_one_and_rise_by_one(world_1000):
    last: dict[str, int] = {}
    for e in world_1000.events:
        expected = 1 if e.op == "insert" else last[e.object_id] + 1
        assert e.revision == expected, e
        last[e.object_id] = e.revision


def test_free_text_statements_carry_their_value_verbatim(world_1000):
    stated = [e for e in world_1000.events if e.asserts]
    assert {next(iter(e.asserts)) for e in stated} == {
        "employer",
        "manager",
        "home_city",
        "diet",
        "commute",
    }
    for e in stated:
        for value in e.asserts.values():
            assert value in e.text


def test_structured_records_render_their_fields(world_1000):
    state = next(snapshots(list(world_1000.events), [world_1000.timeline.fork]))
    cards = [r for r in state.records.values() if r.kind == "card"]
    assert cards and all(
        r.fields["employer"] in r.text and r.fields["city"] in r.text for r in cards
    )


def test_the_continuation_changes_tracked_objects_and_no_shift_touches_those():
    changed_after_fork = Counter()
    for seed in range(1000, 1006):
        d = data(seed)
        w = world(seed)
        tracked = {i.target for i in w.items if i.item_class in ("contact", "series", "task")}
        tracked.add(w.cast.settings_id)
        continued = {
            e.object_id
            for e in d["none"].branch.events
            if e.time > w.timeline.fork and e.object_id in tracked
        }
        changed_after_fork["objects"] += len(continued)
        changed_after_fork["statements"] += sum(
            1 for e in d["none"].branch.events if e.time > w.timeline.fork and e.asserts
        )
        for branch in ("src", "del", "conflict"):
            touched = {e.object_id for e in d[branch].branch.shift_events if e.op != "insert"}
            assert not touched & continued, (seed, branch)
    assert changed_after_fork["objects"] >= 6 and changed_after_fork["statements"] >= 1


@pytest.mark.parametrize("months", [1, 3])
def test_shorter_histories_come_from_the_same_generator(months):
    w = generate_world(5, Timeline(months))
    assert w.events[0].time >= w.timeline.start
    assert w.timeline.start.month == 10 - months
    assert 300 < len(w.events) < 1200


def test_bad_seed_is_rejected():
    with pytest.raises(ValueError, match="non-negative integer"):
        generate_world(-1)
