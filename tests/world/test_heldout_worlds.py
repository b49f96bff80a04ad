"""Worlds of a held-out definition set: the same events as the world of the fixed six, the set's
definition items in place of the six, shifts that move and revise those, gold that passes the
fidelity check, and rule-based programs that compute gold."""

from __future__ import annotations

from functools import cache

import pytest

from memshift import layout
from memshift.dataset import BranchData, world_data
from memshift.definitions.catalog import DEFINITION_SETS, FIXED_SET, HELDOUT_SETS, definition_items
from memshift.gold.evaluator import evaluate
from memshift.memory.programs import typed_rows
from memshift.models.requests import ProgramRequest
from memshift.sandbox import check_program, run_programs
from memshift.simulator.programs import item_program
from memshift.timeutil import fmt
from memshift.world.generate import World, generate_world
from memshift.world.records import snapshots
from memshift.world.tables import world_description, world_from_description

SEEDS = (1000, 1001, 1002)


@cache
def generated(seed: int, name: str) -> World:
    return generate_world(seed, definitions=name)


@cache
def heldout_data(seed: int, name: str) -> dict[str, BranchData]:
    # world_data checks fidelity on every branch: a member the records do not state fails here
    return world_data(generated(seed, name), ("none", "src", "def"))


@pytest.mark.parametrize("name", HELDOUT_SETS)
def test_a_set_changes_the_definition_items_and_nothing_else(name: str) -> None:
    fixed, held = generated(1000, FIXED_SET), generated(1000, name)
    assert held.events == fixed.events
    assert [i for i in held.items if not i.is_definition] == [
        i for i in fixed.items if not i.is_definition
    ]
    assert [i.item_id for i in held.items if i.is_definition] == list(definition_items(name))
    description = world_description(held)
    assert description["definitions"] == name
    assert world_from_description(description, held.events) == held
    assert "definitions" not in world_description(fixed)  # fixed worlds' files are unchanged


@pytest.mark.parametrize("name", HELDOUT_SETS)
def test_the_shifts_move_and_revise_the_sets_definitions(name: str) -> None:
    items = set(definition_items(name))
    revised: set[str] = set()
    for seed in SEEDS:
        branches = heldout_data(seed, name)
        moved = set(branches["def"].branch.touched_items)
        assert len(moved) == 3 and moved <= items
        changed = {
            p.item.item_id
            for p in branches["src"].gold.points
            if p.item.is_definition and p.changed and p.caused_by_shift
        }
        assert changed <= items
        revised |= changed
    assert revised, f"no source revision changed a definition of {name} on {SEEDS}"


@pytest.mark.parametrize("name", [FIXED_SET, *HELDOUT_SETS])
def test_the_rule_based_programs_compute_gold_for_every_definition_and_version(name: str) -> None:
    w = generated(1000, name)
    none = (
        world_data(w, ("none",))["none"] if name == FIXED_SET else heldout_data(1000, name)["none"]
    )
    checkpoints = list(w.timeline.checkpoints)
    states = list(snapshots(list(none.branch.events), checkpoints))
    items = {i.item_id: i for i in w.items}
    jobs, expected = [], []
    for d in DEFINITION_SETS[name]:
        item = items[d.item_id]
        code = item_program(ProgramRequest(item, d.version, ()))
        assert check_program(code) is None, d.label
        for state, now in zip(states, checkpoints, strict=True):
            live = sorted(
                (r for r in state.records.values() if r.source in item.gold_sources),
                key=lambda r: (r.updated, r.object_id),
            )
            jobs.append((code, typed_rows(live), fmt(now)))
            expected.append(evaluate(item, live, now, version=d.version).value)
    assert len(jobs) == 12 * len(checkpoints)
    for result, gold in zip(run_programs(jobs), expected, strict=True):
        assert result.ok, result.detail
        value = tuple(result.value) if isinstance(result.value, list) else result.value
        assert value == gold


def test_a_sets_worlds_and_runs_have_their_own_folders(tmp_path) -> None:
    fixed = layout.Study(tmp_path, "s", 9, "rules")
    held = layout.Study(tmp_path, "s", 3, "rules", "heldout-2")
    assert fixed.worlds == tmp_path / "worlds" and held.worlds == tmp_path / "worlds-h3-heldout-2"
    assert held.runs == tmp_path / "runs/s/h3-heldout-2/rules" != fixed.runs
    assert layout.history_of_worlds(held.worlds) == 3
    assert layout.history_of_worlds(layout.worlds_dir(tmp_path, 9, "heldout-1")) == 9
