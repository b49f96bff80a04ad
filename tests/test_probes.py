"""Probes: every item at the fork; changed item-times plus an equal seeded sample after it."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import world
from memshift.dataset import world_data
from memshift.definitions.catalog import definition
from memshift.memory.reading import questions
from memshift.probes.build import (
    DIRECT,
    HELD,
    IMPLICIT,
    NAMING,
    PREMISE,
    UNNAMED,
    measured,
    probes_to_table,
    select_probes,
)
from memshift.probes.implicit import implicit_gold, relation_for
from memshift.scoring.scorer import accepted_premise, score_answer
from memshift.statements import value_text


def test_every_item_is_asked_at_the_fork(data_1000):
    fork = [p for p in data_1000["none"].probes if p.point.checkpoint == 0]
    assert len(fork) == 48 and not any(p.sampled for p in fork)


def test_after_the_fork_changed_item_times_and_an_equal_sample_of_unchanged_ones(data_1000):
    for name, branch in data_1000.items():
        for k in range(1, 5):
            points = [p for p in branch.gold.points if p.checkpoint == k]
            changed = sum(p.changed for p in points)
            asked = [p for p in branch.probes if p.point.checkpoint == k and p.kind == DIRECT]
            assert sum(p.point.changed for p in asked) == changed, name
            sampled = [p for p in asked if p.sampled]
            assert len(sampled) == min(changed, len(points) - changed)
            assert not any(p.point.changed for p in sampled)


def test_the_unshifted_branch_holds_every_item_time_and_the_measures_count_the_same_ones(
    data_1000,
):
    none = data_1000["none"]
    direct = [p for p in none.probes if p.kind == DIRECT]
    assert Counter(p.point.checkpoint for p in direct) == {k: 48 for k in range(5)}
    assert len({(p.point.checkpoint, p.point.item.item_id) for p in direct}) == 5 * 48
    table = probes_to_table(none.probes, world=1000, branch="none")
    counted = measured(table).to_pylist()
    # what the measures count is what a shifted branch would hold: fork, changed, the sample
    extra = [p for p in direct if p.point.checkpoint > 0 and not p.point.changed and not p.sampled]
    assert len(counted) == table.num_rows - len(extra) and extra
    for k in range(1, 5):
        at = [r for r in counted if r["checkpoint"] == k and r["kind"] == DIRECT]
        changed = sum(r["changed"] for r in at)
        assert sum(r["sampled"] for r in at) == min(changed, 48 - changed)
        assert len(at) == changed + min(changed, 48 - changed)
    for name in ("src", "def", "del"):
        shifted = probes_to_table(data_1000[name].probes, world=1000, branch=name)
        assert measured(shifted).num_rows == shifted.num_rows


def test_the_sample_is_fixed_by_the_seed_and_differs_between_checkpoints(data_1000):
    src = data_1000["src"]
    again = select_probes(src.gold.points, seed=1000, branch="src")
    assert [p.probe_id for p in again] == [p.probe_id for p in src.probes]
    per_checkpoint = Counter(p.point.checkpoint for p in src.probes)
    assert set(per_checkpoint) == {0, 1, 2, 3, 4}


def test_questions_state_the_time_and_the_definition_in_effect(data_1000):
    redefined = data_1000["def"]
    moved = set(redefined.branch.touched_items)
    for probe in redefined.probes:
        assert probe.question.startswith(f"As of {probe.point.time:%Y-%m-%d %H:%M}: ")
        item = probe.point.item
        if item.is_definition:
            version = 2 if item.item_id in moved and probe.point.checkpoint > 0 else 1
            assert probe.point.gold.version == version
            named = definition(item.item_id, version).text
            if probe.kind == UNNAMED:  # the same question, without the sentence naming it
                assert probe.definition_text is None and named not in probe.question
            else:
                assert probe.question.endswith(named)
        else:
            assert probe.definition_text is None


def test_probe_table_rows_are_unique_and_carry_gold(data_1000):
    table = probes_to_table(data_1000["del"].probes, world=1000, branch="del").to_pylist()
    assert len({r["probe_id"] for r in table}) == len(table)
    abstains = [r for r in table if r["gold_status"] == "abstain"]
    assert abstains and all(r["gold_value"] is None for r in abstains)
    assert all(r["gold_value"] is not None for r in table if r["gold_status"] == "answer")


def test_premise_probes_presuppose_the_fork_value_of_every_changed_item_time(data_1000):
    for name, branch in data_1000.items():
        fork = {p.point.item.item_id: p.point for p in branch.probes if p.point.checkpoint == 0}
        premise = [p for p in branch.probes if p.kind == PREMISE]
        expected = [
            p
            for p in branch.probes
            if p.kind == DIRECT
            and p.point.changed
            and p.point.checkpoint > 0
            and fork[p.point.item.item_id].gold.status == "answer"
        ]
        assert [p.probe_id for p in premise] == [f"{p.probe_id}-premise" for p in expected], name
        for probe in premise:
            before = fork[probe.point.item.item_id]
            assert probe.premise == before and before.gold.outcome != probe.point.gold.outcome
            assert f" still {value_text(before.gold.value)}, " in probe.question
    assert sum(p.kind == PREMISE for p in data_1000["src"].probes) > 10


def test_a_premise_probe_is_right_only_with_the_current_value_or_the_right_abstention(data_1000):
    rows = probes_to_table(data_1000["del"].probes, world=1000, branch="del").to_pylist()
    premise = [r for r in rows if r["kind"] == PREMISE]
    assert any(r["gold_status"] == "abstain" for r in premise)
    for row in premise:
        took_premise = {"status": "answer", "value": row["premise_value"]}
        assert accepted_premise(row, took_premise)
        assert not score_answer(row, took_premise).correct
        if row["gold_status"] == "answer":
            right = {"status": "answer", "value": row["gold_value"]}
        else:
            right = {"status": row["gold_status"], "value": None}
        assert score_answer(row, right).correct and not accepted_premise(row, right)
    direct = next(r for r in rows if r["kind"] == DIRECT)
    assert direct["premise_value"] is None
    assert not accepted_premise(direct, {"status": "answer", "value": json.dumps("x")})


def test_implicit_probes_ask_changed_and_sampled_item_times_through_their_relation(data_1000):
    kinds: set[str] = set()
    for name, branch in data_1000.items():
        fork = {p.point.item.item_id: p.point for p in branch.probes if p.point.checkpoint == 0}
        implicit = [p for p in branch.probes if p.kind == IMPLICIT]
        expected = [
            p
            for p in branch.probes
            if p.kind == DIRECT
            and p.point.checkpoint > 0
            and (p.point.changed or p.sampled)
            and relation_for(p.point.item) is not None
        ]
        assert [p.probe_id for p in implicit] == [f"{p.probe_id}-implicit" for p in expected]
        for probe, direct in zip(implicit, expected, strict=True):
            item, point = direct.point.item, direct.point
            relation = relation_for(item)
            assert relation is not None
            assert item.label not in probe.question
            assert probe.point.item.value_type == relation.value_type
            # the gold is the direct gold mapped through the relation, abstaining where it
            # cannot be mapped; changed when that differs from the fork's mapped gold
            derived = relation.derive(point.gold.value, point.time) if point.gold.value else None
            want = derived if point.gold.status == "answer" else None
            assert probe.point.gold.value == want, (name, probe.probe_id)
            at_fork = fork[item.item_id]
            before = implicit_gold(item, at_fork.gold.status, at_fork.gold.value, at_fork.time)
            assert probe.point.changed == (probe.point.gold.outcome != before)
            kinds.add(item.item_id.split(".")[0].rstrip("0123456789") + item.attribute)
    assert len(kinds) >= 6, kinds


def test_an_implicit_answer_changes_with_its_item_or_for_a_series_with_the_clock(data_1000):
    both = [
        (d, i)
        for branch in data_1000.values()
        for d in branch.probes
        for i in branch.probes
        if d.kind == DIRECT and i.probe_id == f"{d.probe_id}-implicit"
    ]
    assert both
    for direct, implicit in both:
        if direct.point.item.item_class == "task" and direct.point.changed:
            assert implicit.point.changed  # a day earlier is a different day
        if implicit.point.changed and not direct.point.changed:
            assert direct.point.item.item_class == "series"  # the next meeting moves on


@pytest.mark.parametrize("branch", ["cons", "undef"])
def test_held_probes_ask_every_item_time_after_the_fork_of_the_touched_items(data_1000, branch):
    data = data_1000[branch]
    held = [p for p in data.probes if p.kind == HELD]
    touched = set(data.branch.touched_items)
    expected = {
        (p.item.item_id, p.checkpoint)
        for p in data.gold.points
        if p.checkpoint > 0 and p.item.item_id in touched
    }
    assert {(p.point.item.item_id, p.point.checkpoint) for p in held} == expected
    assert all(not p.sampled for p in held)
    # the measures' other probes are those of any branch: held probes come on top
    others = [p for p in data.probes if p.kind != HELD]
    assert others == select_probes(data.gold.points, seed=1000, branch=branch)
    assert not [p for b, d in data_1000.items() if b not in (branch, "cons", "undef")
                for p in d.probes if p.kind == HELD]  # fmt: skip


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_no_question_of_an_unstated_redefinition_names_the_definition(seed):
    """On the unstated redefinition's branch every probe of a definition item is unnamed (the
    person never said the definition changed), where the stated redefinition names it."""
    built = world_data(world(seed), ("none", "def", "undef"))
    probes = built["undef"].probes
    about_definitions = [p for p in probes if p.point.item.is_definition]
    assert about_definitions
    for p in about_definitions:
        assert p.definition_text is None and NAMING not in p.question
    table = probes_to_table(probes, world=seed, branch="undef")
    asked = questions(table, world(seed).items)
    assert all(q.version is None for _, q in asked if q.item.is_definition)
    assert all(q.version is not None for _, q in questions(
        probes_to_table(built["def"].probes, world=seed, branch="def"), world(seed).items
    ) if q.item.is_definition and "-unnamed" not in q.probe_id)  # fmt: skip
