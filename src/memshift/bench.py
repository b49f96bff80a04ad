"""`make bench`: measured speed of the pipeline's stages, written to docs/benchmarks.md.

Budgets live here, not in timed unit tests. Every figure is a median of repeated runs on this
machine, reported with the command that produced it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memshift.branches import BRANCHES
from memshift.dataset import world_data
from memshift.stages import branches, gold, manifest, probes, world
from memshift.world.generate import GENERATOR_VERSION, generate_world

WORLD_BUDGET_S = 5.0


def median_seconds(run: Callable[[int], object], seeds: list[int]) -> tuple[float, list[float]]:
    times = []
    for seed in seeds:
        start = time.perf_counter()
        run(seed)
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def in_memory(seed: int) -> None:
    world_data(generate_world(seed), BRANCHES)


def through_files(seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world_dir = Path(tmp) / f"w{seed}"
        world.run(seed, world_dir)
        for branch in BRANCHES:
            branches.run(world_dir, branch)
            gold.run(world_dir, branch)
            probes.run(world_dir, branch)
        manifest.run(world_dir, BRANCHES)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    seeds = list(range(1000, 1000 + args.runs))
    memory_median, memory_times = median_seconds(in_memory, seeds)
    files_median, files_times = median_seconds(through_files, seeds)
    verdict = "within" if files_median <= WORLD_BUDGET_S else "OVER"
    lines = [
        "# Benchmarks",
        "",
        "Produced by `make bench` (`python -m memshift.bench --out docs/benchmarks.md`).",
        f"Machine: {machine()}. Generator {GENERATOR_VERSION}.",
        "",
        "## One twelve-month world with all branches, gold and probes",
        "",
        f"Budget: {WORLD_BUDGET_S:.0f} s (DESIGN section 12). Seeds {seeds[0]}-{seeds[-1]}, "
        f"one run each, single process.",
        "",
        "| what | median | all runs (s) |",
        "|---|---|---|",
        f"| in memory: generate, {len(BRANCHES)} branches, gold, fidelity, probes | "
        f"{memory_median:.2f} s | {', '.join(f'{t:.2f}' for t in memory_times)} |",
        f"| through the stage functions, writing every Parquet artifact and the manifest | "
        f"{files_median:.2f} s | {', '.join(f'{t:.2f}' for t in files_times)} |",
        "",
        f"The file path is {verdict} budget ({files_median / WORLD_BUDGET_S:.0%} of it). "
        f"Peak resident memory of the benchmark process: {peak_rss_mb():.0f} MB.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
