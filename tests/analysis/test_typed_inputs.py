"""A program's complete typed input (MemShift F.4, Table 14): every record of its item's sources
as one table per source without bodies, counted at each asked definition item-time."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from memshift import layout
from memshift.analysis import typed_inputs
from memshift.memory.programs import source_records, typed_tables
from memshift.stages import branches, world
from memshift.tokens import count_tokens
from memshift.world.records import Record, state_at
from memshift.world.stored import load, load_events

WHEN = datetime(2026, 3, 2, 9, 30)


def record(object_id: str, source: str, text: str, **fields: object) -> Record:
    return Record(object_id, source, "message", 1, "c", dict(fields), text, WHEN, WHEN)


def test_each_source_is_one_table_with_its_columns_once_and_no_bodies():
    records = [
        record("m1", "email", "Dear Ana, the full body", sender="Ana", starred=True),
        record("m2", "email", "another long body", sender="Ben", starred=False),
        record("c1", "chat", "see you at noon", channel="dm", partner=["Ana", "Ben"]),
    ]
    text = typed_tables(records)
    chat, email = text.split("\n\n")
    assert chat.splitlines()[0] == "chat" and email.splitlines()[0] == "email"
    header = email.splitlines()[1].split("\t")
    assert header.count("sender") == 1 and "text" not in header and "source" not in header
    assert [line.split("\t")[header.index("starred")] for line in email.splitlines()[2:]] == [
        "true",
        "false",
    ]
    assert "Ana, Ben" in chat
    assert "body" not in text and "noon" not in text
    assert len(email.splitlines()) == 2 + 2


@pytest.fixture(scope="module", params=[7, 8, 9])
def built(request, tmp_path_factory) -> tuple[Path, str]:
    """A world and its source revision's branch on disk."""
    world_dir = tmp_path_factory.mktemp("typed") / f"w{request.param}"
    world.run(request.param, world_dir)
    branches.run(world_dir, "none")
    branches.run(world_dir, "src")
    return world_dir, "src"


def test_the_stored_branch_gives_each_item_the_typed_input_of_its_live_records(built):
    """Read without the bodies, the branch gives every definition item, at every checkpoint
    after the fork, the size of its live records' tables computed from the events in full."""
    world_dir, branch = built
    shown = load(world_dir, with_events=False)
    definitions = [item for item in shown.items if item.is_definition]
    times = shown.timeline.checkpoints
    asked = [(k, item.item_id) for k in range(1, len(times)) for item in definitions]
    found = typed_inputs.item_time_tokens(world_dir, shown, branch, asked)
    events = load_events(world_dir, branch)
    for k, item in ((k, i) for k in range(1, len(times)) for i in definitions):
        live = state_at(events, times[k]).records.values()
        assert found[(k, item.item_id)] == count_tokens(typed_tables(source_records(item, live)))
    assert min(found.values()) > 0


def test_the_table_pools_the_items_and_counts_what_fits(built, monkeypatch):
    world_dir, branch = built
    shown = load(world_dir, with_events=False)
    seed = shown.seed
    definitions = [item.item_id for item in shown.items if item.is_definition]
    scores = pa.table(
        {
            "world": [seed] * (2 * len(definitions)) + [seed],
            "branch": [branch] * (2 * len(definitions)) + ["none"],
            "checkpoint": [1] * len(definitions) + [2] * len(definitions) + [1],
            "item_id": definitions * 2 + [definitions[0]],
            "item_class": ["definition"] * (2 * len(definitions) + 1),
            "kind": ["direct"] * (2 * len(definitions) + 1),
            "changed": [True] * (2 * len(definitions) + 1),
            "sampled": [False] * (2 * len(definitions) + 1),
        }
    )
    con = duckdb.connect()
    con.register("scores", scores)
    sizes = typed_inputs.item_time_tokens(
        world_dir, shown, branch, [(k, i) for k in (1, 2) for i in definitions]
    )
    limit = sorted(sizes.values())[len(sizes) // 2]
    monkeypatch.setattr(typed_inputs, "FIT_TOKENS", limit)
    assert layout.world_in(world_dir.parent, seed) == world_dir
    rows = typed_inputs.typed_inputs_table(con, world_dir.parent)
    pooled = rows.to_pylist()[-1]
    assert pooled["item_id"] == typed_inputs.POOLED
    # the unshifted branch's probe is not one of the shifts'
    assert pooled["item_times"] == len(sizes) == 2 * len(definitions)
    assert pooled["max_tokens"] == max(sizes.values())
    assert pooled["fit"] == sum(s <= limit for s in sizes.values()) / len(sizes)
    assert {r["item_id"] for r in rows.to_pylist()[:-1]} == set(definitions)


def test_the_section_sets_the_papers_numbers_beside_ours():
    from memshift.report.typed_inputs import section

    def row(item_id: str, fit: float) -> dict[str, object]:
        return dict(
            item_id=item_id, label=item_id, item_times=4, median_tokens=1.0, max_tokens=9, fit=fit
        )

    fixed = section([row("def.close_friends", 0.5), row(typed_inputs.POOLED, 0.75)])
    assert "9 (paper 44,109)" in fixed and "50.0 (paper 0.0)" in fixed
    assert "75.0 |" in fixed  # the fixed six have no pooled number in the paper
    held_out = section([row("def.h1_0", 1.0), row(typed_inputs.POOLED, 0.5)])
    assert "50.0 (paper 66.7)" in held_out
    assert section([]) == ""


def test_sets_pool_by_their_items_and_item_times():
    """The held-out sets' tables as one: each item's row, and a pooled row whose fit weighs each
    item by its item-times (its median is not in the tables)."""

    def table(*rows: tuple[str, int, int, float]) -> pa.Table:
        listed = [
            dict(item_id=i, label=i, item_times=n, median_tokens=1.0, max_tokens=m, fit=f)
            for i, n, m, f in rows
        ]
        listed.append(dict(listed[0], item_id=typed_inputs.POOLED))
        return pa.Table.from_pylist(listed, schema=typed_inputs.schemas.TYPED_INPUTS)

    first = table(("def.h1_0", 10, 40_000, 0.5), ("def.h1_1", 30, 9_000, 1.0))
    second = table(("def.h2_0", 60, 35_000, 0.25))
    rows = typed_inputs.pooled([first, second]).to_pylist()
    assert [r["item_id"] for r in rows] == ["def.h1_0", "def.h1_1", "def.h2_0", "all"]
    assert rows[-1]["item_times"] == 100 and rows[-1]["max_tokens"] == 40_000
    assert rows[-1]["fit"] == (5 + 30 + 15) / 100 and rows[-1]["median_tokens"] is None
    assert typed_inputs.pooled([]).num_rows == 0
