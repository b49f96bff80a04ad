"""What every benchmark section shares: timing, the machine's description."""

from __future__ import annotations

import os
import platform
import resource
import statistics
import time
from collections.abc import Callable
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
