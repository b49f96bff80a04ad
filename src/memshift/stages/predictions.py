"""Stage `predictions`: a predictions file's answers to one world's probes, as the answers (and,
where the file gives `invalidated`, the invalidation log) of a system named in the study, so the
score and report stages treat it like any other system."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.errors import MemshiftError
from memshift.predictions import PROBE_ID, Predictions, read_predictions
from memshift.probe_sample import ProbeSample, sample_world
from memshift.probes import measured
from memshift.sampled_probes import sample_probes
from memshift.world.stored import load

NO_PREDICTION = "the predictions file has no answer to this probe"
EMPTY_EVIDENCE = hashlib.sha256(b"").hexdigest()


def run(
    world_dir: Path,
    run_world_dir: Path,
    branches: list[str],
    system: str,
    path: Path,
    sample: ProbeSample | None = None,
) -> tuple[int, int]:
    """Write the answers of every branch (of a sampled study, to the probes its sample asks);
    return (answers, probes with no prediction)."""
    predictions = read_predictions(path)
    world = load(world_dir, with_events=False)
    every = {
        branch: measured(read_table(layout.probes(world_dir, branch), schemas.PROBES))
        for branch in branches
    }
    # a predictions file answers the whole dataset; a sample asks part of it
    known = {p for table in every.values() for p in table.column("probe_id").to_pylist()}
    drawn = sample_world(world, sample)
    asked = {branch: sample_probes(table, drawn, branch, sample) for branch, table in every.items()}
    ours = [
        p
        for p in predictions.by_probe
        if int(PROBE_ID.fullmatch(p)["world"]) == world.seed  # type: ignore[index]
    ]
    unknown = sorted(p for p in ours if p not in known)
    if unknown:
        raise MemshiftError(
            f"{path}: {len(unknown)} prediction(s) for probes world {world.seed} does not ask, "
            f"first {unknown[0]} (predict the probes of the exported dataset of this study)"
        )
    answers, missing = 0, 0
    for branch, probes in asked.items():
        table, lacking = answers_table(probes, predictions, world.seed, branch, system)
        out = layout.system_dir(run_world_dir, branch, system)
        write_table(table, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
        if predictions.reports_invalidations:
            write_table(
                invalidations_table(probes, predictions),
                schemas.INVALIDATIONS,
                layout.table(out, layout.INVALIDATIONS),
            )
        answers += table.num_rows
        missing += lacking
    return answers, missing


def answers_table(
    probes: pa.Table, predictions: Predictions, world: int, branch: str, system: str
) -> tuple[pa.Table, int]:
    rows = schemas.empty_columns(schemas.ANSWERS)
    missing = 0
    for probe_id, checkpoint, item_id in zip(
        probes.column("probe_id").to_pylist(),
        probes.column("checkpoint").to_pylist(),
        probes.column("item_id").to_pylist(),
        strict=True,
    ):
        p = predictions.by_probe.get(probe_id)
        missing += p is None
        for name, value in (
            ("probe_id", probe_id),
            ("world", world),
            ("branch", branch),
            ("system", system),
            ("checkpoint", checkpoint),
            ("item_id", item_id),
            ("status", "failed" if p is None else p.status),
            ("value", None if p is None else p.value),
            ("failure", NO_PREDICTION if p is None else None),
            ("evidence_items", 0),
            ("evidence_tokens", 0),
            ("evidence_hash", EMPTY_EVIDENCE),
        ):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.ANSWERS), missing


def invalidations_table(probes: pa.Table, predictions: Predictions) -> pa.Table:
    """One row per item and checkpoint at which a probe's prediction says the item was found
    stale."""
    flagged = sorted(
        {
            (item_id, checkpoint)
            for probe_id, checkpoint, item_id in zip(
                probes.column("probe_id").to_pylist(),
                probes.column("checkpoint").to_pylist(),
                probes.column("item_id").to_pylist(),
                strict=True,
            )
            if probe_id in predictions.by_probe and predictions.by_probe[probe_id].invalidated
        }
    )
    rows = schemas.empty_columns(schemas.INVALIDATIONS)
    for item_id, checkpoint in flagged:
        rows["item_id"].append(item_id)
        rows["checkpoint"].append(checkpoint)
        rows["invalidated"].append(True)
        rows["reason"].append("the predictions file says so")
    return pa.Table.from_pydict(rows, schema=schemas.INVALIDATIONS)
