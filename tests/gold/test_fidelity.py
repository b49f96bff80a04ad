"""Fidelity: every gold fact is found verbatim in a record of its dependency set."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import data, world
from memshift.gold.branch import branch_gold
from memshift.gold.fidelity import FidelityError
from memshift.world.records import Event

# Every gold stage refuses a world whose fidelity fails (`branch_gold`), so every study checks
# its own worlds; the calibration test builds every branch of 1000-1019. Here, a few dev and
# replication worlds beside them.
SEEDS = [0, 4, 8, 1021, 1029, 1037]


@pytest.mark.parametrize("seed", SEEDS)
def test_fidelity_holds_for_every_gold_fact_of_every_branch(seed):
    for name, branch in data(seed).items():
        assert branch.gold.fidelity.failures == (), name
        assert branch.gold.fidelity.facts_checked > 100


def test_a_record_that_loses_its_fact_stops_the_stage():
    w = world(1000)
    fork_gold = next(
        p
        for p in data(1000)["none"].gold.points
        if p.item.item_id == "person.employer" and p.checkpoint == 0
    )
    ((holder, _),) = fork_gold.gold.deps
    employer = fork_gold.gold.value
    broken: list[Event] = [
        dataclasses.replace(e, text=e.text.replace(employer, "a new company"))
        if e.object_id == holder
        else e
        for e in w.events
    ]
    with pytest.raises(FidelityError, match=f"person.employer: '{employer}'"):
        branch_gold(w, broken, "none", None)
