"""Stage `score`: every answer of a run scored against its probe's gold, deterministically."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.errors import MemshiftError
from memshift.scoring.scorer import accepted_premise, score_answer


def run(answer_files: Sequence[Path], worlds_dir: Path, out: Path) -> int:
    probes: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
    rows = schemas.empty_columns(schemas.SCORES)
    for path in sorted(answer_files):
        for answer in read_table(path, schemas.ANSWERS).to_pylist():
            key = (answer["world"], answer["branch"])
            if key not in probes:
                table = read_table(layout.probes(worlds_dir / f"w{key[0]}", key[1]), schemas.PROBES)
                probes[key] = {p["probe_id"]: p for p in table.to_pylist()}
            probe = probes[key].get(answer["probe_id"])
            if probe is None:
                raise MemshiftError(f"{path}: answer to unknown probe {answer['probe_id']}")
            result = score_answer(probe, answer)
            for name in (*schemas.SCORE_ANSWER_FIELDS, "status"):
                rows[name].append(answer[name])
            for name in schemas.SCORE_PROBE_FIELDS:
                rows[name].append(probe[name])
            rows["correct"].append(result.correct)
            rows["reason"].append(result.reason)
            rows["accepted_premise"].append(accepted_premise(probe, answer))
    write_table(pa.Table.from_pydict(rows, schema=schemas.SCORES), schemas.SCORES, out)
    return len(rows["probe_id"])
