"""The Snakemake release that memshift's two changes to Snakemake's private internals were checked
against (`scheduler_passes`, `output_lookup`).

Snakemake has no public way to do either (its scheduler plugins choose which ready jobs to run,
not when the scheduler looks again; nothing public replaces the DAG's output index), so each
replaces a private name. Both only make a study's bookkeeping cheaper: on any other release
neither is made, the study runs on Snakemake's own code, and the Snakefile says so in one line.
A test pins the release, so an upgrade of the pinned Snakemake fails there until the two are
checked again.
"""

from __future__ import annotations

import sys

import snakemake

CHECKED_WITH = "9.27.1"


def checked(change: str, module: str) -> bool:
    """Whether the running Snakemake is the release `change` was checked against; else says, on
    stderr, that it is left out."""
    running = snakemake.__version__
    if running == CHECKED_WITH:
        return True
    print(
        f"memshift: Snakemake {running}, not {CHECKED_WITH}: {change} left out "
        f"(memshift/{module}.py was checked against {CHECKED_WITH} only)",
        file=sys.stderr,
    )
    return False
