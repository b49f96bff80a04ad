"""A predictions file: the answers of a system that runs outside memshift, one per probe of an
exported dataset (docs/dataset.md), read within bounds and checked before anything is scored.

JSON lines (optionally gzipped) or Parquet with the columns of `schemas.PREDICTIONS`: `probe_id`,
`status` (answer, abstain or blocked), `value` (for an answer: a string, or a list of strings for
a set; null otherwise) and, optionally, `invalidated` (the system found the item stale at or
before the probe's checkpoint)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memshift.intake.prediction_files import COLUMNS, MAX_BYTES, file_rows
from memshift.intake.reading import InputError, shortened

MAX_VALUE = 4096
STATUSES = ("answer", "abstain", "blocked")
KEYS = frozenset(COLUMNS)
# a public probe id (`probes.public.public_id`): the world, then a hash naming nothing else
PROBE_ID = re.compile(r"w(?P<world>\d+)-[0-9a-f]{16}")


@dataclass(frozen=True)
class Prediction:
    status: str
    value: str | None  # JSON
    invalidated: bool | None


@dataclass(frozen=True)
class Predictions:
    by_probe: dict[str, Prediction]
    reports_invalidations: bool

    def worlds(self) -> set[int]:
        return {int(PROBE_ID.fullmatch(p)["world"]) for p in self.by_probe}  # type: ignore[index]


def read_predictions(path: Path) -> Predictions:
    """The predictions of a file; InputError in one line naming the file and the line (or row)
    for anything malformed, repeated, oversized or not a probe id."""
    if not path.is_file():
        raise InputError(f"predictions file {path} does not exist or is not a file")
    if path.stat().st_size > MAX_BYTES:
        raise InputError(f"predictions file {path} is larger than {MAX_BYTES >> 20} MB")
    by_probe: dict[str, Prediction] = {}
    flagged = 0
    for where, row in file_rows(path):
        probe_id, prediction = _checked(path, where, row)
        if probe_id in by_probe:
            raise InputError(f"predictions file {path}, {where}: probe {probe_id} appears twice")
        by_probe[probe_id] = prediction
        flagged += prediction.invalidated is not None
    if not by_probe:
        raise InputError(f"predictions file {path} holds no prediction")
    if flagged not in (0, len(by_probe)):
        raise InputError(
            f"predictions file {path}: `invalidated` is given for {flagged} of {len(by_probe)} "
            "probes; give it for every probe or for none"
        )
    return Predictions(by_probe, flagged > 0)


def _checked(path: Path, where: str, row: Any) -> tuple[str, Prediction]:
    def bad(why: str) -> InputError:
        return InputError(f"predictions file {path}, {where}: {why}")

    if not isinstance(row, dict):
        raise bad("not a JSON object")
    unknown = sorted(set(row) - KEYS)
    if unknown:
        raise bad(f"unknown key {shortened(unknown[0])}; the keys are {', '.join(sorted(KEYS))}")
    probe_id, status = row.get("probe_id"), row.get("status")
    if not isinstance(probe_id, str) or PROBE_ID.fullmatch(probe_id) is None:
        raise bad(f"`probe_id` {shortened(probe_id)} is not a probe id of an exported dataset")
    if status not in STATUSES:
        raise bad(f"`status` {shortened(status)} is not one of {', '.join(STATUSES)}")
    value = row.get("value")
    if status == "answer":
        is_text = isinstance(value, str)
        is_set = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not (is_text or is_set):
            raise bad("an answer's `value` must be a string or a list of strings")
        if len(json.dumps(value)) > MAX_VALUE:
            raise bad(f"`value` is longer than {MAX_VALUE} characters")
    elif value is not None:
        raise bad(f"a `{status}` prediction has no `value` (null)")
    invalidated = row.get("invalidated")
    if invalidated is not None and not isinstance(invalidated, bool):
        raise bad("`invalidated` must be true or false")
    encoded = None if value is None else json.dumps(value, ensure_ascii=False)
    return probe_id, Prediction(status, encoded, invalidated)
