"""Benchmark: one twelve-month world with all branches, gold and probes (budget 5 s)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from memshift.branches import BRANCHES
from memshift.dataset import world_data
from memshift.stages.chain import build_world
from memshift.world.generate import GENERATOR_VERSION, generate_world
from memshift_tools.bench.common import median, runs_text, timed

WORLD_BUDGET_S = 5.0


def through_files(seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build_world(seed, Path(tmp) / f"w{seed}")


def section(runs: int) -> list[str]:
    seeds = list(range(1000, 1000 + runs))
    memory = [timed(lambda s=s: world_data(generate_world(s), BRANCHES)) for s in seeds]
    files = [timed(lambda s=s: through_files(s)) for s in seeds]
    verdict = "within" if median(files) <= WORLD_BUDGET_S else "OVER"
    return [
        "## One twelve-month world with all branches, gold and probes",
        "",
        f"Budget: {WORLD_BUDGET_S:.0f} s (DESIGN section 12). Generator {GENERATOR_VERSION}; "
        f"seeds {seeds[0]}-{seeds[-1]}, one run each, one process.",
        "",
        "| what | median | runs |",
        "|---|---|---|",
        f"| in memory: generate, {len(BRANCHES)} branches, gold, fidelity, probes | "
        f"{median(memory):.2f} s | {runs_text(memory)} |",
        "| through the stage functions, writing every artifact and the manifest | "
        f"{median(files):.2f} s | {runs_text(files)} |",
        "",
        f"The file path is {verdict} budget ({median(files) / WORLD_BUDGET_S:.0%} of it).",
        "",
    ]
