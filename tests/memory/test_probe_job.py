"""A probe job reads every branch's and system's questions in one batch, those about one item
side by side, and writes for each system and branch what asking it alone writes."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.models.calllog import CallLog
from memshift.models.profiles import Profile
from memshift.stages import probe
from memshift.stages.chain import build_world

RULES = Profile("rules", "rules")
BRANCHES = ("none", "del")
SYSTEMS = ("bm25", "rag")


@pytest.mark.parametrize("seed", [1])
def test_a_job_reads_each_item_side_by_side_and_answers_as_alone(tmp_path, seed):
    world_dir, together, apart = tmp_path / "w", tmp_path / "together", tmp_path / "apart"
    build_world(seed, world_dir, BRANCHES)
    log = CallLog()
    answered = list(
        probe.run_together(world_dir, together, BRANCHES, SYSTEMS, RULES, None, log,
                      every_item_time=("bm25",))
    )  # fmt: skip
    assert [(b, s) for b, s, _ in answered] == [(b, s) for b in BRANCHES for s in SYSTEMS]
    for branch in BRANCHES:
        for system in SYSTEMS:
            probe.run(world_dir, apart, branch, system, RULES, None,
                      every_item_time=system == "bm25")  # fmt: skip
            mine = [layout.table(layout.system_dir(r, branch, system), layout.ANSWERS)
                    for r in (together, apart)]  # fmt: skip
            assert read_table(mine[0], schemas.ANSWERS) == read_table(mine[1], schemas.ANSWERS)
    calls = tmp_path / "calls.parquet"
    log.write(calls)
    items = [row["item"] for row in pq.read_table(calls).to_pylist()]
    runs = [item for n, item in enumerate(items) if n == 0 or items[n - 1] != item]
    assert len(items) > 100
    # every item's reads, over both systems and every branch, are one run of calls
    assert len(runs) == len(set(items))
    assert {row["branch"] for row in pq.read_table(calls).to_pylist()} == set(BRANCHES)
