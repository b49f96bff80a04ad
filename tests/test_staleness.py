"""A lock a killed Snakemake left behind is told from a live Snakemake's lock."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memshift.workflow.staleness import RUNNING, clear_stale_locks, release

HOLDER = """
import sys, time
from pathlib import Path
from memshift.workflow.staleness import clear_stale_locks
clear_stale_locks(Path(sys.argv[1]))
print("holding", flush=True)
time.sleep(600)
"""


def leftover_locks(persistence: Path) -> list[Path]:
    locks = persistence / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    for name in ("0.input.lock", "0.output.lock"):
        (locks / name).write_text("results/a\n")
    return sorted(locks.iterdir())


@pytest.fixture
def persistence(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / ".snakemake"
    release()


def test_a_killed_runs_lock_is_removed(persistence):
    stale = leftover_locks(persistence)
    assert clear_stale_locks(persistence) == stale
    assert not list((persistence / "locks").iterdir())
    assert (persistence / RUNNING).exists()


def test_a_live_runs_lock_is_kept_and_kept_after_it_dies_only_until_then(persistence):
    locks = leftover_locks(persistence)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(persistence)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        locks = leftover_locks(persistence)  # the live run's own lock
        assert clear_stale_locks(persistence) == []
        assert all(path.exists() for path in locks)
        release()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    time.sleep(0.1)
    assert clear_stale_locks(persistence) == locks
