"""An unstated redefinition is invisible (MemShift App. B): every memory answers the moved items
as it does without the shift, so it is right only where its old answer happens to be the new
gold; that is at most the gold bound (the old definition's value equals the new one) unless an
answer wrong under the old definition equals the new gold by chance, which happens (an empty
answer where the new definition selects nobody) and is counted apart."""

from __future__ import annotations

import pytest
from cellrun import cell_answers

from conftest import data
from memshift.probes.build import HELD

SEED = 1000


def answers(system: str, branch: str) -> dict[tuple[str, int], tuple[str, str | None]]:
    """(item, checkpoint) -> (status, value) of a system's direct or held answers on a branch."""
    detection, repair = system.split("/")
    rows = cell_answers(SEED, branch, detection, repair)
    kinds = {p.probe_id: p.kind for p in data(SEED)[branch].probes}
    return {
        (r["item_id"], r["checkpoint"]): (r["status"], r["value"])
        for r in rows
        if kinds[r["probe_id"]] in ("direct", HELD) and r["checkpoint"] > 0
    }


# HoldMem's cells serve by item, so their evidence does not depend on the question's words; BM25
# retrieves by them, and the unstated branch's question does not name the definition in effect
@pytest.mark.parametrize("system", ["append/0", "append/1", "source/1", "citation/1"])
def test_every_memory_answers_an_unstated_redefinition_as_if_nothing_changed(system):
    moved = set(data(SEED)["undef"].branch.touched_items)
    unstated, unshifted = answers(system, "undef"), answers(system, "none")
    asked = [key for key in unstated if key[0] in moved]
    assert len(asked) == len(moved) * 4
    assert all(unstated[key] == unshifted[key] for key in asked)
