"""Stage `failures-gate`: the last job of a study, after the report. It reads the report's
failures table and, when a system is not measured (more of its calls failed than the study's
`report.max_failure_share`), fails the run unless the study allows failures.

A job of its own because Snakemake deletes the outputs of a job that fails: the report must be
written, and kept, before the run is failed."""

from __future__ import annotations

import sys
from pathlib import Path

from memshift import schemas
from memshift.analysis.failures import verdict_line
from memshift.artifacts import read_table, write_text
from memshift.stages.specs import FailuresGateJob


def run(failures: Path, out: Path, allow_failures: bool) -> str | None:
    """The verdict line naming every system not measured (None: every system is measured).
    `out` is written when the gate passes: no system above the threshold, or failures allowed;
    a failing gate leaves no output, so the next run asks again."""
    line = verdict_line(read_table(failures, schemas.FAILURES).to_pylist())
    if line is None:
        write_text("every system measured\n", out)
    elif allow_failures:
        write_text(f"allowed (report.allow_failures): {line}\n", out)
    return line


def run_job(job: FailuresGateJob) -> None:
    """The gate (`FailuresGateJob`): exit 1 with its line when a system is not measured and
    failures are not allowed."""
    line = run(job.failures, job.out, job.allow_failures)
    if line is not None:
        print(f"memshift: {line} (the report: {job.report})", file=sys.stderr)
        if not job.allow_failures:
            sys.exit(1)
