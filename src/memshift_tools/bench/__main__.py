"""Run every benchmark and write docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Callable

from memshift_tools.bench import coverage, data, export, models, statistics
from memshift_tools.bench.common import arguments, machine, peak_rss_mb, publish, splice

PEAK = "Peak resident memory of the benchmark process"


def main() -> None:
    args = arguments(
        "python -m memshift_tools.bench",
        __doc__,
        "docs/benchmarks.md",
        "results/bench",
        ("data", "export", "models", "statistics", "coverage"),
    )
    args.scratch.mkdir(parents=True, exist_ok=True)
    sections: dict[str, Callable[[], list[str]]] = {
        "data": lambda: data.section(args.runs),
        "export": lambda: export.section(args.runs),
        "models": lambda: models.section(args.runs, args.scratch),
        "statistics": lambda: statistics.section(args.runs),
        "coverage": coverage.section,
    }
    if args.only:
        text = args.out.read_text()
        for name in args.only:
            text = splice(text, sections[name](), PEAK)
        publish(text.split("\n"), args.out, args.scratch)
        return
    lines = [
        "# Benchmarks",
        "",
        "Produced by `make bench` (`python -m memshift_tools.bench --out docs/benchmarks.md`). "
        "Figures are medians of repeated runs on the machine below; `--only SECTION` measures "
        "one section again and keeps the others.",
        "",
        f"Machine: {machine()}.",
        "",
        *[line for make in sections.values() for line in make()],
        f"{PEAK}: {peak_rss_mb():.0f} MB.",
        "",
    ]
    publish(lines, args.out, args.scratch)


if __name__ == "__main__":
    main()
