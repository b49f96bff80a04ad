"""Telling a killed Snakemake's leftover lock from a running Snakemake's lock.

Snakemake locks a working directory by writing lists of files under `.snakemake/locks/` and
deletes them when it ends; killed hard (SIGKILL, a lost login node) it leaves them behind, and the
next run stops with "Directory cannot be locked" until someone runs `snakemake --unlock`. The
lists say nothing about their owner, so the workflow adds what they lack: every Snakemake process
that runs it holds a shared OS lock (flock) on `.snakemake/memshift-running` for as long as it
lives, and the kernel drops that lock when the process dies, however it dies. A process that can
take the lock exclusively therefore knows no other is alive here, and removes the leftover lists
before Snakemake looks at them; otherwise they stay, and Snakemake refuses to start as before.
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO

RUNNING = "memshift-running"
_held: list[IO[bytes]] = []


def _alone(handle: IO[bytes]) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held by a live process, or a file system that cannot tell
        return False
    return True


def _stay_shared(handle: IO[bytes]) -> None:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
    except OSError:
        handle.close()
        return
    _held.append(handle)


def clear_stale_locks(persistence: Path = Path(".snakemake")) -> list[Path]:
    """Remove Snakemake's lock lists under `persistence` if no other process running the
    workflow is alive, and mark this one alive until it ends; the files removed."""
    if _held:
        return []
    persistence.mkdir(parents=True, exist_ok=True)
    handle = (persistence / RUNNING).open("ab")
    stale: list[Path] = []
    if _alone(handle):
        locks = persistence / "locks"
        stale = sorted(locks.glob("*.input.lock")) + sorted(locks.glob("*.output.lock"))
        for path in stale:
            path.unlink(missing_ok=True)
    _stay_shared(handle)
    return stale


def release() -> None:
    """Stop marking this process alive (a process's end does the same)."""
    while _held:
        handle = _held.pop()
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()
