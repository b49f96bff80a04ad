"""A command that runs a study through Snakemake: once, or once per value of a config key (the
side studies that run one study several times)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from memshift.errors import MemshiftError


def snakemake(
    args: Sequence[str], failed: str, then: str = "", stdout: IO[str] | None = None
) -> None:
    """`snakemake ARGS` with this Python; if it fails, an error saying `failed` (what failed),
    its exit status, then `then` (what to do)."""
    finished = subprocess.run(
        [sys.executable, "-m", "snakemake", *args], check=False, stdout=stdout
    )
    if finished.returncode != 0:
        raise MemshiftError(f"{failed} (snakemake exit {finished.returncode}){then}")


def run_each(
    configfile: Path,
    cores: str,
    key: str,
    values: Sequence[Any],
    snakemake_args: Sequence[str],
    *,
    extra: Sequence[str] = (),
    target: Callable[[Any], str] | None = None,
) -> None:
    """The study once per value of a config key (snakemake --config KEY=VALUE and the `extra`
    pairs), in order, up to `target(value)` when given; a failed run stops with the command to
    resume."""
    for index, value in enumerate(values, start=1):
        print(f"{key}: {index}/{len(values)}: {value}", file=sys.stderr, flush=True)
        snakemake(
            ["--configfile", str(configfile), "--config", f"{key}={value}", *extra,
             "--cores", cores, *([target(value)] if target is not None else []), *snakemake_args],
            f"the study failed with {key}={value}",
            "; fix it and run the same command again: finished jobs are not repeated",
        )  # fmt: skip
