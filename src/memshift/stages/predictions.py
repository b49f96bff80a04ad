"""Stage `predictions`: a predictions file's answers to one world's probes, as the answers (and,
where the file gives `invalidated`, the invalidation log) of a system named in the study, so the
score and report stages treat it like any other system."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.errors import MemshiftError
from memshift.intake.predictions import PROBE_ID, Predictions, read_predictions
from memshift.probes.build import measured
from memshift.probes.public import PublicProbe, given_probes, public_of
from memshift.probes.sample import ProbeSample, sample_world
from memshift.probes.sampled import sample_probes
from memshift.stages.specs import PredictionsJob
from memshift.vocabulary import in_order
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
    # a predictions file answers the whole dataset, the public probes of every branch; the
    # measures count some of them, and a sample asks part of those
    given = given_probes(world_dir, world, branches)
    known = {s.public_id for shown in given.values() for s in shown}
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
    drawn = sample_world(world, sample)
    items = {i.item_id for i in drawn.items}
    answers, missing = 0, 0
    for branch in branches:
        counted = measured(read_table(layout.probes(world_dir, branch), schemas.PROBES))
        probes = sample_probes(counted, drawn, branch, sample)
        table, lacking = answers_table(
            probes, predictions, public_of(given[branch]), world.seed, branch, system
        )
        out = layout.system_dir(run_world_dir, branch, system)
        write_table(table, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
        if predictions.reports_invalidations:
            shown = [s for s in given[branch] if s.probe.point.item.item_id in items]
            write_table(
                invalidations_table(shown, predictions),
                schemas.INVALIDATIONS,
                layout.table(out, layout.INVALIDATIONS),
            )
        answers += table.num_rows
        missing += lacking
    return answers, missing


def answers_table(
    probes: pa.Table,
    predictions: Predictions,
    public: dict[str, str],
    world: int,
    branch: str,
    system: str,
) -> tuple[pa.Table, int]:
    """The answers to `probes`, each the prediction of its public id (`public`)."""
    rows = schemas.empty_columns(schemas.ANSWERS)
    missing = 0
    for probe_id, checkpoint, item_id in zip(
        probes.column("probe_id").to_pylist(),
        probes.column("checkpoint").to_pylist(),
        probes.column("item_id").to_pylist(),
        strict=True,
    ):
        p = predictions.by_probe.get(public[probe_id])
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


def invalidations_table(shown: list[PublicProbe], predictions: Predictions) -> pa.Table:
    """One row per item and checkpoint at which a probe's prediction says the item was found
    stale: any probe the file was given, counted or not, since an in-process system reports its
    invalidations at every checkpoint too."""
    flagged = sorted(
        {
            (s.probe.point.item.item_id, s.checkpoint)
            for s in shown
            if s.public_id in predictions.by_probe and predictions.by_probe[s.public_id].invalidated
        }
    )
    rows = schemas.empty_columns(schemas.INVALIDATIONS)
    for item_id, checkpoint in flagged:
        rows["item_id"].append(item_id)
        rows["checkpoint"].append(checkpoint)
        rows["invalidated"].append(True)
        rows["reason"].append("the predictions file says so")
    return pa.Table.from_pydict(rows, schema=schemas.INVALIDATIONS)


def run_job(job: PredictionsJob) -> None:
    """A predictions file as a system's answers on one world (`PredictionsJob`)."""
    branches = list(in_order(job.branches))
    answers, missing = run(job.world, job.run, branches, job.system, job.file, job.sample)
    print(f"{job.world.name} {job.system}: {answers} answers", file=sys.stderr)
    if missing:
        print(f"{job.world.name} {job.system}: {missing} probe(s) without a prediction, scored "
              "as failed answers", file=sys.stderr)  # fmt: skip
