"""Benchmark: the report's bootstrap on a table the size of the main study (budget 30 s).

The scores are synthetic but shaped like the main study's: 20 worlds, 4 branches, the six
HoldMem cells and three baselines, about 134 probes per world and branch (48 at the fork, the
rest changed or sampled unchanged over four checkpoints), and a maintenance log per detection.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

from memshift import schemas
from memshift.analysis import contrasts, measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.rng import stream
from memshift_tools.bench.common import median, runs_text, timed

BOOTSTRAP_BUDGET_S = 30.0
WORLDS = range(1000, 1020)
BRANCHES = ("none", "src", "def", "del")
DETECTIONS = ("append", "source", "citation")
SYSTEMS = (*[f"holdmem-d{d}-{b}" for b in DETECTIONS for d in "01"], "bm25", "rag", "oracle")
CLASSES = ("definition", "contact", "person", "task")
PER_KIND = 43  # changed and sampled unchanged probes per world and branch
FORK_PROBES = 48


def _probe(world: int, branch: str, n: int, rng: np.random.Generator) -> dict[str, object]:
    changed = n >= FORK_PROBES and (n - FORK_PROBES) < PER_KIND
    checkpoint = 0 if n < FORK_PROBES else int(rng.integers(1, 5))
    return {
        "probe_id": f"w{world}-{branch}-{n}",
        "world": world,
        "branch": branch,
        "checkpoint": checkpoint,
        "item_id": f"item{n % 48:02d}",
        "item_class": CLASSES[n % len(CLASSES)],
        "value_type": "entity",
        "free_text": n % 7 == 0,
        "changed": changed,
        "caused_by_shift": changed and bool(rng.random() < 0.7),
        "clock_alone": changed and bool(rng.random() < 0.05),
        "last_change": int(rng.integers(1, checkpoint + 1)) if changed else 0,
        "sampled": checkpoint > 0 and not changed,
        "gold_status": "answer",
        "kind": "direct",
    }


def write_study(where: Path) -> tuple[Path, list[Path]]:
    rng = stream(0, "bench-statistics")
    scores = schemas.empty_columns(schemas.SCORES)
    logs: list[Path] = []
    for world in WORLDS:
        for branch in BRANCHES:
            probes = [_probe(world, branch, n, rng) for n in range(FORK_PROBES + 2 * PER_KIND)]
            for detection in DETECTIONS:
                rate = 0.0 if detection == "append" else 0.9
                log = schemas.empty_columns(schemas.MAINTENANCE)
                for probe in probes:
                    if probe["checkpoint"] and rng.random() < rate:
                        for name, value in (
                            ("item_id", probe["item_id"]),
                            ("checkpoint", max(1, probe["last_change"])),
                            ("invalidated", True),
                            ("reason", "key changed"),
                            ("key_before", ""),
                            ("key_after", ""),
                            ("rederived", True),
                            ("write_id", probe["probe_id"]),
                        ):
                            log[name].append(value)
                path = where / f"w{world}/{branch}/holdmem-{detection}/maintenance.parquet"
                table = pa.Table.from_pydict(log, schema=schemas.MAINTENANCE)
                write_table(table, schemas.MAINTENANCE, path)
                logs.append(path)
            for system in SYSTEMS:
                accuracy = 0.5 + 0.05 * SYSTEMS.index(system)
                for probe in probes:
                    for name in schemas.SCORES.names:
                        if name in probe:
                            scores[name].append(probe[name])
                    correct = bool(rng.random() < accuracy)
                    scores["system"].append(system)
                    scores["evidence_tokens"].append(int(rng.integers(200, 4096)))
                    scores["status"].append("answer")
                    scores["correct"].append(correct)
                    scores["reason"].append("match" if correct else "wrong value")
                    scores["accepted_premise"].append(False)
    path = where / "scores.parquet"
    write_table(pa.Table.from_pydict(scores, schema=schemas.SCORES), schemas.SCORES, path)
    return path, logs


def section(runs: int) -> list[str]:
    resampling = Resampling(draws=2000)
    with tempfile.TemporaryDirectory() as tmp:
        scores, logs = write_study(Path(tmp))
        rows = 0
        measure_times, contrast_times = [], []
        for _ in range(runs):
            con = open_study(scores, logs)
            measure_times.append(timed(lambda con=con: measures.compute(con, resampling)))
            contrast_times.append(
                timed(
                    lambda con=con: contrasts.compute(con, contrasts.declare(SYSTEMS), resampling)
                )
            )
            rows = con.execute("SELECT count(*) FROM item_times").fetchone()[0]  # type: ignore[index]
    verdict = "within" if median(contrast_times) <= BOOTSTRAP_BUDGET_S else "OVER"
    return [
        "## Bootstrap of the main study's measures and contrasts",
        "",
        f"Budget: {BOOTSTRAP_BUDGET_S:.0f} s for every contrast (DESIGN section 12). A synthetic "
        f"scores table shaped like the main study: {len(WORLDS)} worlds, {len(BRANCHES)} "
        f"branches, {len(SYSTEMS)} systems, {rows:,} scored item-times; "
        f"{resampling.draws} draws in DuckDB.",
        "",
        "| what | median | runs |",
        "|---|---|---|",
        f"| every measure by system, branch, item class, cause and checkpoint | "
        f"{median(measure_times):.2f} s | {runs_text(measure_times)} |",
        f"| every B, D and B×D contrast by branch and item class | "
        f"{median(contrast_times):.2f} s | {runs_text(contrast_times)} |",
        "",
        f"The contrasts are {verdict} budget ({median(contrast_times) / BOOTSTRAP_BUDGET_S:.0%} "
        "of it).",
        "",
    ]
