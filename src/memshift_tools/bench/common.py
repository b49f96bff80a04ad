"""What every benchmark section shares: timing, the machine's description."""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def median(values: list[float]) -> float:
    return statistics.median(values)


def runs_text(values: list[float], unit: str = "s") -> str:
    return ", ".join(f"{v:.2f}" for v in values) + f" {unit}"


def machine() -> str:
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def arguments(
    prog: str, description: str | None, out: str, scratch: str, sections: Sequence[str] = ()
) -> argparse.Namespace:
    """The options every benchmark command takes: where to write, how many runs, scratch, and
    which of its `sections` alone to measure again."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", type=Path, default=Path(out))
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--scratch", type=Path, default=Path(scratch))
    if sections:
        parser.add_argument(
            "--only",
            choices=sections,
            action="append",
            help="measure only this section and replace it in --out, keeping the others",
        )
    return parser.parse_args()


def splice(text: str, section: list[str], closing: str) -> str:
    """`text` with the section headed like `section` replaced by it, or added before the line
    that starts with `closing`. A section runs from its `## ` heading to the next heading or to
    the closing line."""
    lines = text.split("\n")
    ends = [i for i, line in enumerate(lines) if line.startswith(("## ", closing))]
    close = next((i for i in ends if lines[i].startswith(closing)), len(lines))
    if section[0] in lines:
        start = lines.index(section[0])
        end = next((i for i in ends if i > start), len(lines))
    else:
        start = end = close
    return "\n".join([*lines[:start], *section, *lines[end:]])


def publish(lines: list[str], out: Path, scratch: Path) -> None:
    """Remove the scratch folder, write the Markdown and show it."""
    shutil.rmtree(scratch, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print("\n".join(lines))
