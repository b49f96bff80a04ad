"""Run every benchmark and write docs/benchmarks.md."""

from __future__ import annotations

from memshift.bench import data, models, statistics
from memshift.bench.common import arguments, machine, peak_rss_mb, publish


def main() -> None:
    args = arguments("python -m memshift.bench", __doc__, "docs/benchmarks.md", "results/bench")
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
    publish(lines, args.out, args.scratch)


if __name__ == "__main__":
    main()
