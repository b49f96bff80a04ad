"""How large a program's complete typed input is (MemShift F.4, Table 14): a D=m program receives
every record of its item's sources, and a writer that should see them all must hold them in its
context. Per definition item-time asked after a shift, the tokens of those records written as
one table per source without bodies (`memory.programs.typed_tables`, the most compact of the
paper's three forms), counted by the project's counter (the paper counts Qwen3.5-9B tokens), and
the share that fits the writer's room: its 32,768-token context less the request and the answer,
31,000 tokens."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.memory.programs import source_records, typed_tables
from memshift.tokens import count_tokens
from memshift.world.generate import World
from memshift.world.records import snapshots
from memshift.world.stored import load
from memshift.world.tables import table_to_events

FIT_TOKENS = 31_000
SHIFTED = ("src", "def", "del")
POOLED = "all"
# every column of a branch's events but the bodies, which the tables leave out
_WITHOUT_TEXT = [name for name in schemas.EVENTS.names if name != "text"]


def asked_item_times(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, int, str]]:
    """(world, branch, checkpoint, item_id) of every definition item-time after the fork that a
    direct probe of a shifted branch asked and the measures count. Needs the scores."""
    placeholders = ", ".join("?" for _ in SHIFTED)
    return [
        (int(w), str(b), int(k), str(i))
        for w, b, k, i in con.execute(
            "SELECT DISTINCT world, branch, checkpoint, item_id FROM scores "
            "WHERE item_class = 'definition' AND kind = 'direct' AND checkpoint > 0 "
            f"AND (changed OR sampled) AND branch IN ({placeholders}) ORDER BY ALL",
            list(SHIFTED),
        ).fetchall()
    ]


def item_time_tokens(
    world_dir: Path, world: World, branch: str, asked: Iterable[tuple[int, str]]
) -> dict[tuple[int, str], int]:
    """The typed input's tokens at each asked (checkpoint, item_id) of one branch of `world`."""
    wanted: dict[int, list[str]] = {}
    for checkpoint, item_id in asked:
        wanted.setdefault(checkpoint, []).append(item_id)
    items = {item.item_id: item for item in world.items}
    table = read_table(layout.events(world_dir, branch), schemas.EVENTS, _WITHOUT_TEXT)
    table = table.append_column("text", pa.array([""] * table.num_rows, pa.large_string()))
    events = table_to_events(table.select(schemas.EVENTS.names))
    times = world.timeline.checkpoints
    checkpoints = sorted(wanted)
    found: dict[tuple[int, str], int] = {}
    for checkpoint, state in zip(
        checkpoints, snapshots(events, [times[k] for k in checkpoints]), strict=True
    ):
        by_sources: dict[tuple[str, ...], int] = {}
        for item_id in wanted[checkpoint]:
            item = items[item_id]
            if item.sources not in by_sources:
                records = source_records(item, state.records.values())
                by_sources[item.sources] = count_tokens(typed_tables(records))
            found[(checkpoint, item_id)] = by_sources[item.sources]
    return found


def typed_inputs_table(con: duckdb.DuckDBPyConnection, worlds_dir: Path) -> pa.Table:
    """The TYPED_INPUTS table of a run (empty without a shifted branch's definition probes).
    Needs the scores."""
    asked: dict[int, dict[str, list[tuple[int, str]]]] = {}
    for world, branch, checkpoint, item_id in asked_item_times(con):
        asked.setdefault(world, {}).setdefault(branch, []).append((checkpoint, item_id))
    tokens: dict[str, list[int]] = {}
    labels: dict[str, str] = {}
    for seed, branches in asked.items():
        world_dir = layout.world_in(worlds_dir, seed)
        world = load(world_dir, with_events=False)
        labels.update({item.item_id: item.label for item in world.items})
        for branch, here in branches.items():
            for (_, item_id), size in item_time_tokens(world_dir, world, branch, here).items():
                tokens.setdefault(item_id, []).append(size)
    rows = [_row(i, labels[i], tokens[i]) for i in sorted(tokens)]
    if rows:
        rows.append(_row(POOLED, "every definition item", [t for i in tokens for t in tokens[i]]))
    return pa.Table.from_pylist(rows, schema=schemas.TYPED_INPUTS)


def pooled(tables: Sequence[pa.Table]) -> pa.Table:
    """The TYPED_INPUTS tables of several runs whose definition items differ (the held-out sets)
    as one: every item's row, and a pooled row over all their item-times, whose median the
    tables do not hold (null)."""
    rows = [r for t in tables for r in t.to_pylist() if r["item_id"] != POOLED]
    if not rows:
        return schemas.TYPED_INPUTS.empty_table()
    n = sum(r["item_times"] for r in rows)
    rows.append(
        {
            "item_id": POOLED,
            "label": "every definition item",
            "item_times": n,
            "median_tokens": None,
            "max_tokens": max(r["max_tokens"] for r in rows),
            "fit": sum(r["fit"] * r["item_times"] for r in rows) / n,
        }
    )
    return pa.Table.from_pylist(rows, schema=schemas.TYPED_INPUTS)


def _row(item_id: str, label: str, sizes: Sequence[int]) -> dict[str, object]:
    return {
        "item_id": item_id,
        "label": label,
        "item_times": len(sizes),
        "median_tokens": float(statistics.median(sizes)),
        "max_tokens": max(sizes),
        "fit": sum(size <= FIT_TOKENS for size in sizes) / len(sizes),
    }
