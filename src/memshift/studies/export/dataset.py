"""A study's benchmark data for a system written in any language (`memshift export-dataset`):
every world's public record stream per branch, the public probes (`memshift.probes.public`), the
items and the timelines, as Parquet and as gzipped JSON lines, with a datasheet. Nothing a system
under test may not see leaves: no generator annotation (event ids, asserts, components), no
gold, no unstated redefinition (`public_view`), and nothing that tells which item-times changed
or which branch is which (the probes are every item-time's, under opaque ids, and a branch is
named by a keyed hash)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table, write_text
from memshift.errors import MemshiftError
from memshift.files import write_atomically
from memshift.memory.reading import names_version
from memshift.probes.public import branch_label, public_probes, unbuilt
from memshift.world.generate import GENERATOR_VERSION, World
from memshift.world.records import unstated
from memshift.world.stored import load
from memshift.world.tables import table_to_events

# the tables of a dataset, each written as <name>.parquet and <name>.jsonl.gz
TABLES = {
    "events": schemas.PUBLIC_EVENTS,
    "probes": schemas.PUBLIC_PROBES,
    "items": schemas.PUBLIC_ITEMS,
    "timelines": schemas.TIMELINES,
}


def events_table(stored: pa.Table, label: str) -> pa.Table:
    """The public view of a branch's stored events (`schemas.EVENTS`), in stream order, the
    branch named `label`: no generator annotation, no unstated redefinition
    (`records.unstated`)."""
    kept = stored.filter(pa.array([not unstated(e) for e in table_to_events(stored)]))
    columns = {
        "world": kept.column("world"),
        "branch": pa.array([label] * kept.num_rows, pa.string()),
        "position": pa.array(range(kept.num_rows), pa.int32()),
        **{name: kept.column(name) for name in schemas.PUBLIC_EVENT_FIELDS},
    }
    return pa.table(columns, schema=schemas.PUBLIC_EVENTS)


def probes_table(probes: pa.Table, gold: pa.Table, world: World, branch: str) -> pa.Table:
    """The public probes of a branch (`public_probes`), by checkpoint and id, without gold;
    the definition version only where the question names it."""
    items = {i.item_id: i for i in world.items}
    rows = schemas.empty_columns(schemas.PUBLIC_PROBES)
    for shown in public_probes(gold, probes, world, branch):
        p = shown.probe
        one = {"kind": [p.kind], "item_id": [p.point.item.item_id],
               "definition_text": [p.definition_text]}  # fmt: skip
        for name, value in (
            ("probe_id", shown.public_id),
            ("world", world.seed),
            ("branch", branch_label(world.seed, branch)),
            ("checkpoint", p.point.checkpoint),
            ("time", p.point.time),
            ("item_id", p.point.item.item_id),
            ("item_class", p.point.item.item_class),
            ("value_type", p.point.item.value_type),
            ("agent", p.point.item.agent),
            ("question", p.question),
            ("answer_format", p.point.item.answer_format),
            ("definition_version", p.point.gold.version if names_version(one, 0, items) else None),
            # what the words say anyway; the same kinds are asked at every item-time
            ("kind", p.kind),
        ):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.PUBLIC_PROBES)


def items_table(world: World) -> pa.Table:
    rows = schemas.empty_columns(schemas.PUBLIC_ITEMS)
    for item in world.items:
        rows["world"].append(world.seed)
        rows["item_id"].append(item.item_id)
        rows["item_class"].append(item.item_class)
        rows["value_type"].append(item.value_type)
        rows["sources"].append(list(item.sources))
        rows["label"].append(item.label)
        rows["question"].append(item.question)
        rows["answer_format"].append(item.answer_format)
        rows["agent"].append(item.agent)
    return pa.Table.from_pydict(rows, schema=schemas.PUBLIC_ITEMS)


def timeline_table(world: World) -> pa.Table:
    t = world.timeline
    rows = schemas.empty_columns(schemas.TIMELINES)
    for k, time in enumerate(t.checkpoints):
        for name, value in (
            ("world", world.seed),
            ("start", t.start),
            ("fork", t.fork),
            ("end", t.end),
            ("checkpoint", k),
            ("time", time),
        ):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.TIMELINES)


def export_dataset(
    worlds: Path, seeds: Sequence[int], branches: Sequence[str], out: Path, study: str
) -> dict[str, int]:
    """Write the dataset of these worlds and branches to `out`; return the rows per table."""
    missing = unbuilt(worlds, seeds, branches)
    if missing:
        raise MemshiftError(
            f"{len(missing)} branch file(s) of the study are not built, first {missing[0]}; run "
            "the study (or its worlds) first"
        )
    parts: dict[str, list[pa.Table]] = {name: [] for name in TABLES}
    for seed in seeds:
        world_dir = layout.world_in(worlds, seed)
        world = load(world_dir, with_events=False)
        parts["items"].append(items_table(world))
        parts["timelines"].append(timeline_table(world))
        # in the order of their names, which says nothing of which branch is which
        for branch in sorted(branches, key=lambda b: branch_label(seed, b)):
            label = branch_label(seed, branch)
            stored = read_table(layout.events(world_dir, branch), schemas.EVENTS)
            parts["events"].append(events_table(stored, label))
            probes = read_table(layout.probes(world_dir, branch), schemas.PROBES)
            gold = read_table(layout.gold(world_dir, branch), schemas.GOLD)
            parts["probes"].append(probes_table(probes, gold, world, branch))
    counts = {}
    for name, schema in TABLES.items():
        table = pa.concat_tables(parts[name]) if parts[name] else schema.empty_table()
        write_table(table, schema, layout.dataset_table(out, name))
        write_atomically(out / f"{name}.jsonl.gz", lambda tmp, t=table: _write_jsonl(t, tmp))
        counts[name] = table.num_rows
    write_text(datasheet(study, seeds, branches, counts), layout.dataset_sheet(out))
    return counts


def _json_value(value: Any) -> Any:
    return value.isoformat(timespec="minutes") if isinstance(value, datetime) else value


def _write_jsonl(table: pa.Table, path: Path) -> None:
    # no file name and a fixed time in the header, so that the same dataset is the same bytes
    with path.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as out:
        for row in table.to_pylist():
            line = {k: _json_value(v) for k, v in row.items()}
            out.write((json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n").encode())


def datasheet(study: str, seeds: Sequence[int], branches: Sequence[str], counts: dict) -> str:
    lines = [
        f"# memshift dataset: study `{study}`",
        "",
        f"Synthetic worlds of generator {GENERATOR_VERSION}, seeds {', '.join(map(str, seeds))}; "
        f"branches {', '.join(branches)}, each world's under names of its own (`branch`, the "
        "same in events and probes) that do not say which is which. Every person, message "
        "and record is generated; none "
        "describes a real person. Written by `memshift export-dataset`; docs/dataset.md in the "
        "memshift repository explains each column and how predictions are scored.",
        "",
        "| table | rows | what |",
        "|---|---|---|",
        f"| events | {counts['events']} | each branch's record stream as a memory receives it, "
        "in order (`position`): insert, update, delete, define, consent; `fields` is JSON |",
        f"| probes | {counts['probes']} | the questions to answer: ask each at its `time`, "
        "after feeding the branch's events up to it; every item at every checkpoint, with the "
        "same kinds of probe whether it changed or not (memshift scores a hidden subset); "
        "`definition_version` names the definition in effect where the question does |",
        f"| items | {counts['items']} | the items a memory derives per world, the agent that "
        "asks about each and the sources it declares |",
        f"| timelines | {counts['timelines']} | per world the start, the fork, the end and "
        "each checkpoint's time |",
        "",
        "Each table is `<table>.parquet` and `<table>.jsonl.gz` (one JSON object per line, times "
        "as `YYYY-MM-DDTHH:MM`). Not included: gold answers, which item-times changed, and the "
        "generator's annotations; memshift scores predictions against them "
        "(`memshift score-predictions`).",
        "",
        "Predictions: one JSON object per line, `probe_id`, `status` (`answer`, `abstain` or "
        "`blocked`), `value` (the answer: a string, or a list of strings for a set; null "
        "otherwise) and optionally `invalidated` (true when the system found the item stale at "
        "or before this probe's checkpoint), which adds detection and repair (m, r, a) to the "
        "report.",
        "",
    ]
    return "\n".join(lines)
