"""The floors: two answers to every probe a study asks, computed without a memory or a model and
reported beside every system, so that what a system achieves can be set against what a trivial
policy achieves on the same item-times (docs/report.md, "Floors").

- `always-abstain` abstains on every probe. Its Update is the share of changed item-times whose
  gold is an abstention (after a deletion, most of them), its Stability the share of unchanged
  ones.
- `frozen-at-fork` answers every probe with its item's value in HoldMem's pre-fork store (the
  store every cell of the world shows the reader at the fork), at every later checkpoint: the
  memory that never notices a change. A write that failed, or that found no current value, is an
  abstention, as a cell's store serves it; an implicit-dependency probe gets that value mapped
  through the probe's relation, as its gold is (`memshift.probes.implicit`).

Both are answered without the reader: the answer is the stored state itself, the way the score
stage reads a cell's store for `store_correct`. So they make no model call, are deterministic,
and on one pre-fork store come out the same with any reader. Neither invalidates anything: the
report counts them as systems that report invalidations and found none (m = 1 on every changed
item-time, r undefined, a = Update). The score stage scores their answers with the same scorer
as every system's, on the probes every system is asked (the measured ones, of a sampled study
the drawn ones), and the report computes their measures with the same SQL and bootstrap.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.gold.evaluator import ABSTAIN, ANSWER
from memshift.gold.tables import value_json
from memshift.memory.stored import as_value
from memshift.probes.build import IMPLICIT, measured
from memshift.probes.implicit import implicit_gold
from memshift.probes.sample import ProbeSample, sample_world
from memshift.probes.sampled import sample_probes
from memshift.vocabulary import ALWAYS_ABSTAIN, FLOORS, FROZEN_AT_FORK
from memshift.world.items import Item
from memshift.world.stored import load

# no evidence: the hash of nothing, as for a system that was shown none
EMPTY_EVIDENCE = hashlib.sha256(b"").hexdigest()

Stored = Mapping[str, str | None]  # item -> its value at the fork (typed JSON; None: no value)


def fork_values(prefork: pa.Table) -> dict[str, str | None]:
    """Each item's value in the pre-fork store (a `prefork-writes.parquet`, schema WRITES) as a
    cell's store serves it at the fork: the write's typed value, canonical JSON; None (no value)
    where the write failed, which no cell serves, or stated no current value."""
    values: dict[str, str | None] = {}
    for row in prefork.select(["item_id", "checkpoint", "value", "failure"]).to_pylist():
        item = row["item_id"]
        if row["checkpoint"] != 0 or item in values:
            raise MemshiftError(
                f"a pre-fork store holds one write per item at checkpoint 0: item {item} "
                f"{'again' if item in values else 'at checkpoint ' + str(row['checkpoint'])}"
            )
        raw = None if row["failure"] or row["value"] is None else json.loads(row["value"])
        values[item] = value_json(as_value(raw))
    return values


def frozen_answer(
    probe: Mapping[str, Any], stored: Stored, items: Mapping[str, Item]
) -> tuple[str, str | None]:
    """(status, value) of frozen-at-fork on a probe: its item's value at the fork, whatever the
    checkpoint; on an implicit-dependency probe that value through the probe's relation at the
    probe's time."""
    item_id = probe["item_id"]
    if item_id not in stored:
        raise MemshiftError(
            f"the pre-fork store has no write for item {item_id} (probe {probe['probe_id']})"
        )
    value = stored[item_id]
    if value is None:
        return ABSTAIN, None
    if probe["kind"] != IMPLICIT:
        return ANSWER, value
    time: datetime = probe["time"]
    status, derived = implicit_gold(items[item_id], ANSWER, as_value(json.loads(value)), time)
    return status, value_json(derived)


def answers(
    probes: pa.Table, stored: Stored, items: Mapping[str, Item], world: int, branch: str
) -> dict[str, pa.Table]:
    """Each floor's answers (schema ANSWERS) to every probe of `probes`, in their order."""
    out = {}
    for floor in FLOORS:
        rows = schemas.empty_columns(schemas.ANSWERS)
        for probe in probes.to_pylist():
            if floor == ALWAYS_ABSTAIN:
                status, value = ABSTAIN, None
            else:
                assert floor == FROZEN_AT_FORK
                status, value = frozen_answer(probe, stored, items)
            for name, found in (
                ("probe_id", probe["probe_id"]),
                ("world", world),
                ("branch", branch),
                ("system", floor),
                ("checkpoint", probe["checkpoint"]),
                ("item_id", probe["item_id"]),
                ("status", status),
                ("value", value),
                ("failure", None),
                ("evidence_items", 0),
                ("evidence_tokens", 0),
                ("evidence_hash", EMPTY_EVIDENCE),
            ):
                rows[name].append(found)
        out[floor] = pa.Table.from_pydict(rows, schema=schemas.ANSWERS)
    return out


def world_answers(
    world_dir: Path,
    prefork: Path,
    branches: list[str],
    sample: ProbeSample | None = None,
) -> list[pa.Table]:
    """Each floor's answers on each of `branches` of a world, to the probes every system is asked
    there (`probes.measured`; of a sampled study, the drawn ones), from the world's pre-fork store
    `prefork`: the tables by branch, then floor."""
    world = sample_world(load(world_dir, with_events=False), sample)
    items = {item.item_id: item for item in world.items}
    stored = fork_values(read_table(prefork, schemas.WRITES))
    tables = []
    for branch in branches:
        probes = read_table(layout.probes(world_dir, branch), schemas.PROBES)
        asked = measured(sample_probes(probes, world, branch, sample))
        tables += answers(asked, stored, items, world.seed, branch).values()
    return tables
