"""The benchmark data of one world in memory: every branch with its gold and probes."""

from __future__ import annotations

from dataclasses import dataclass

from memshift.branches import Branch, make_branch
from memshift.gold.branch import BranchGold, branch_gold
from memshift.gold.compute import outcomes
from memshift.probes.build import Probe, select_probes
from memshift.vocabulary import BRANCHES, HELD_BRANCHES, UNSHIFTED
from memshift.world.generate import World


@dataclass(frozen=True)
class BranchData:
    branch: Branch
    gold: BranchGold
    probes: list[Probe]


def world_data(world: World, branches: tuple[str, ...] = BRANCHES) -> dict[str, BranchData]:
    none = make_branch(world, UNSHIFTED)
    none_gold = branch_gold(world, list(none.events), UNSHIFTED, None)
    reference = outcomes(none_gold.points)
    data: dict[str, BranchData] = {}
    for name in branches:
        branch = none if name == UNSHIFTED else make_branch(world, name)
        gold = (
            none_gold
            if name == UNSHIFTED
            else branch_gold(world, list(branch.events), name, reference)
        )
        held = branch.touched_items if name in HELD_BRANCHES else ()
        probes = select_probes(gold.points, seed=world.seed, branch=name, held=held)
        data[name] = BranchData(branch, gold, probes)
    return data
