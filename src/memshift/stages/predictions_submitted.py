"""A predictions file handed in from outside (`memshift score-predictions`): checked against the
study's worlds and the probes its dataset gives (the worlds built first if need be), then the
study run again with the file as one of its systems."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memshift import layout
from memshift.config import DEFAULT_CONFIG, checked_study, study_layout
from memshift.errors import MemshiftError
from memshift.intake.predictions import Predictions, read_predictions
from memshift.probes.public import not_given, unbuilt
from memshift.stages.snakemake_runs import snakemake


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _refuse_other_worlds(
    path: Path, predictions: Predictions, seeds: list[int], configfile: Path
) -> None:
    outside = sorted(predictions.worlds() - set(seeds))
    if outside:
        raise MemshiftError(
            f"{path}: predictions for world {outside[0]}, which the study {configfile} does not "
            "hold"
        )
    unanswered = [seed for seed in seeds if seed not in predictions.worlds()]
    if unanswered:
        raise MemshiftError(
            f"{path}: no prediction for {len(unanswered)} of the {len(seeds)} worlds of the study "
            f"{configfile} (first: world {unanswered[0]}); is it the study you predicted? "
            f"(predict the probes of memshift export-dataset --configfile {configfile})"
        )


def score(path: Path, configfile: Path | None, name: str, cores: str) -> None:
    """Check the file `path` against the study `configfile`, then run the study with it as the
    system `name` (finished jobs are not repeated)."""
    configfile = configfile or DEFAULT_CONFIG
    if not configfile.is_file():
        raise MemshiftError(f"{configfile}: no such study file here; name one with --configfile")
    predictions = read_predictions(path)
    study = checked_study(configfile)
    seeds = study["seed_list"]
    _refuse_other_worlds(path, predictions, seeds, configfile)
    paths = study_layout(study)
    if unbuilt(paths.worlds, seeds, study["branches"]):
        # the probes are checked before the study runs: its worlds first, alone
        _say(f"building the study's {len(seeds)} world(s) to check the predictions")
        targets = [str(layout.manifest(paths.world(seed))) for seed in seeds]
        snakemake(
            # the targets before --quiet, whose values would swallow them
            [*targets, "--configfile", str(configfile), "--cores", cores, "--quiet", "rules"],
            f"the worlds of the study {configfile} failed to build",
        )
    extra = not_given(predictions.by_probe, paths.worlds, seeds, study["branches"])
    if extra:
        raise MemshiftError(
            f"{path}: {len(extra)} prediction(s) for probes the study's dataset does not give, "
            f"first {extra[0]} (predict the probes of memshift export-dataset --configfile "
            f"{configfile})"
        )
    overlay = layout.prediction_overlay(paths.runs, name)
    overlay.parent.mkdir(parents=True, exist_ok=True)
    overlay.write_text(
        f"systems:\n  predictions:\n    {json.dumps(name)}: {json.dumps(str(path.resolve()))}\n"
    )
    _say(f"{name}: {len(predictions.by_probe)} predictions; running the study")
    snakemake(
        ["--configfile", str(configfile), str(overlay), "--cores", cores],
        "the study failed with the predictions",
        f"; its configuration: {configfile} and {overlay}",
    )
