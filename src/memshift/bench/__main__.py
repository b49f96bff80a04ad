"""Run every benchmark and write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from memshift.bench import data, models, statistics
from memshift.bench.common import machine, peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m memshift.bench", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--scratch", type=Path, default=Path("results/bench"))
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Benchmarks",
        "",
        "Produced by `make bench` (`python -m memshift.bench --out docs/benchmarks.md`). "
        "Figures are medians of repeated runs on the machine below.",
        "",
        f"Machine: {machine()}.",
        "",
        *data.section(args.runs),
        *models.section(args.runs, args.scratch),
        *statistics.section(args.runs),
        f"Peak resident memory of the benchmark process: {peak_rss_mb():.0f} MB.",
        "",
    ]
    shutil.rmtree(args.scratch, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
