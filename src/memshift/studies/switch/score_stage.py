"""Stage `switch_score`: every item of every writer switch scored before and after, beside how
well the two writers agree on its type on the calibration worlds.

An item survives when its answer is correct after the switch, given it was correct before
(undefined otherwise). Agreement of an item type is the share of calibration items of that type
on which the old and the new writer are both right or both wrong; the accuracy of each writer on
the type and whether it is a definition item are the other predictors the report compares.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.errors import MemshiftError
from memshift.scoring.scorer import score_answer
from memshift.stages.specs import SwitchScoreJob
from memshift.vocabulary import UNSHIFTED, cell_parts, item_class


def item_type(item_id: str) -> str:
    """An item's type: its id without digits (`contact03.city` -> `contact.city`)."""
    return re.sub(r"\d+", "", item_id)


@dataclass(frozen=True)
class Switch:
    name: str
    old: str
    new: str


class Probes:
    """The fork probes of each world, read once."""

    def __init__(self, worlds_dir: Path) -> None:
        self.worlds_dir = worlds_dir
        self._by_world: dict[int, dict[str, dict[str, Any]]] = {}

    def of(self, world: int) -> dict[str, dict[str, Any]]:
        if world not in self._by_world:
            probes = layout.probes(layout.world_in(self.worlds_dir, world), UNSHIFTED)
            table = read_table(probes, schemas.PROBES)
            self._by_world[world] = {p["probe_id"]: p for p in table.to_pylist()}
        return self._by_world[world]


def correctness(path: Path, probes: Probes) -> dict[tuple[int, str], tuple[bool, dict[str, Any]]]:
    """(world, item) -> (correct, probe) for every answer of a file."""
    found = {}
    for row in read_table(path, schemas.ANSWERS).to_pylist():
        probe = probes.of(row["world"]).get(row["probe_id"])
        if probe is None:
            raise MemshiftError(f"{path}: answer to unknown probe {row['probe_id']}")
        found[(row["world"], row["item_id"])] = (score_answer(probe, row).correct, probe)
    return found


Scored = dict[tuple[int, str], tuple[bool, dict[str, Any]]]


def scored_files(paths: Iterable[Path], probes: Probes) -> Scored:
    """(world, item) -> (correct, probe) over the answers of several files."""
    return {k: v for path in paths for k, v in correctness(path, probes).items()}


def agreement(before: Scored, after: Scored) -> dict[str, dict[str, float]]:
    """Per item type: n, agreement, acc_from, acc_to over two writers' scored calibration
    answers (of the same worlds)."""
    if set(before) != set(after):
        raise MemshiftError("the two writers' calibration answers cover different items")
    sums: dict[str, list[float]] = {}
    for key, (correct_old, _) in before.items():
        correct_new = after[key][0]
        total = sums.setdefault(item_type(key[1]), [0, 0, 0, 0])
        total[0] += 1
        total[1] += correct_old == correct_new
        total[2] += correct_old
        total[3] += correct_new
    return {
        kind: {"n": n, "agreement": a / n, "acc_from": f / n, "acc_to": t / n}
        for kind, (n, a, f, t) in sorted(sums.items())
    }


def checks(path: Path) -> dict[str, str]:
    """item -> the repair arm's check of the new writer's write (absent: not re-derived)."""
    return {r["item_id"]: r["check"] for r in read_table(path, schemas.SWITCH_CHECKS).to_pylist()}


def run(
    switches: Sequence[Switch],
    runs: Path,
    worlds: Sequence[int],
    cells: Sequence[str],
    calibration: Mapping[str, Sequence[Path]],
    worlds_dir: Path,
    scores_out: Path,
    agreement_out: Path,
) -> int:
    """`calibration` maps each writer profile to its calibration answer files; `runs` is the
    run directory holding w<seed>/switch/."""
    unknown = [cell for cell in cells if cell_parts(cell) is None]
    if unknown:
        raise MemshiftError(f"{unknown[0]!r} is not a HoldMem cell")
    probes = Probes(worlds_dir)
    # each writer's calibration answers scored once, however many switches it is part of
    profiles = sorted({p for s in switches for p in (s.old, s.new)})
    writers = {p: scored_files(calibration[p], probes) for p in profiles}
    rows = schemas.empty_columns(schemas.SWITCH_SCORES)
    agreed = schemas.empty_columns(schemas.AGREEMENT)
    for switch in switches:
        by_type = agreement(writers[switch.old], writers[switch.new])
        for kind, found in by_type.items():
            agreed["switch"].append(switch.name)
            agreed["item_type"].append(kind)
            for name, value in found.items():
                agreed[name].append(value)
        for world in worlds:
            out = layout.switch_dir(layout.world_in(runs, world), switch.name)
            before = correctness(layout.table(out / layout.BEFORE, layout.ANSWERS), probes)
            for cell in cells:
                checked = checks(layout.table(out / cell, layout.SWITCH_CHECKS))
                after = correctness(layout.table(out / cell, layout.ANSWERS), probes)
                for (w, item_id), (was, probe) in sorted(before.items()):
                    now = after[(w, item_id)][0]
                    kind = item_type(item_id)
                    predictors = by_type.get(kind, {})
                    values = {
                        "world": w,
                        "switch": switch.name,
                        "from": switch.old,
                        "to": switch.new,
                        "system": cell,
                        "item_id": item_id,
                        "item_type": kind,
                        "item_class": item_class(
                            probe["item_class"] == "definition", probe["free_text"]
                        ),
                        "correct_before": was,
                        "correct_after": now,
                        "survived": now if was else None,
                        "check": checked.get(item_id, "not_rederived"),
                        "agreement": predictors.get("agreement"),
                        "acc_from": predictors.get("acc_from"),
                        "acc_to": predictors.get("acc_to"),
                        "definition": probe["item_class"] == "definition",
                    }
                    for name, value in values.items():
                        rows[name].append(value)
    write_table(
        pa.Table.from_pydict(rows, schema=schemas.SWITCH_SCORES), schemas.SWITCH_SCORES, scores_out
    )
    write_table(
        pa.Table.from_pydict(agreed, schema=schemas.AGREEMENT), schemas.AGREEMENT, agreement_out
    )
    return len(rows["item_id"])


def run_job(job: SwitchScoreJob) -> None:
    """Every writer switch of the study scored (`SwitchScoreJob`)."""
    switches = [Switch(name, old, new) for name, (old, new) in job.switches.items()]
    calibration = {
        p: [layout.table(layout.calibration_dir(job.runs, p, w), layout.ANSWERS)
            for w in job.calibration]
        for p in sorted({p for s in switches for p in (s.old, s.new)})
    }  # fmt: skip
    n = run(switches, job.runs, job.seeds, list(job.cells), calibration, job.worlds, job.scores,
            job.agreement)  # fmt: skip
    print(f"{n} switched items scored -> {job.scores}", file=sys.stderr)
