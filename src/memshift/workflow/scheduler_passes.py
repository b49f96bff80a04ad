"""Snakemake's job scheduler with one pending re-evaluation at a time.

Snakemake 9.27 ends every scheduling pass by starting a timer for another pass one rate-limit
timespan later (`--max-jobs-per-timespan`, 100/1s by default), whether or not one is pending
already. The pass that each job's start or end triggers adds a timer that re-arms itself with
every pass it causes, so the passes per second grow with the jobs run so far, and each pass
checks the existence and size of every ready job's input files again: at the end of the main
study the Snakemake process used about half a core for it, beside the two cores the jobs need.
`keep_one_pending_pass` makes the re-evaluation keep a single timer pending (a daemon thread, so
the end of a run never waits for it); a pass still follows every job's start and end, and the
rate limit is re-evaluated within one timespan as before.
"""

from __future__ import annotations

import threading
from typing import Any

from snakemake.scheduling.job_scheduler import JobScheduler

from memshift.workflow.snakemake_release import checked

# the scheduler's own name for the method (sic)
REEVALUATION = "_schedule_reevalutation"
_PENDING = "_memshift_pending_pass"
_LOCK = threading.Lock()


def _one_pending_pass(scheduler: Any, delay: float) -> None:
    with _LOCK:
        if getattr(scheduler, _PENDING, None) is not None:
            return

        def fire() -> None:
            # cleared before the release, so the pass it wakes arms the next one
            with _LOCK:
                setattr(scheduler, _PENDING, None)
            scheduler._open_jobs.release()

        timer = threading.Timer(delay, fire)
        timer.daemon = True
        setattr(scheduler, _PENDING, timer)
        timer.start()


def keep_one_pending_pass() -> None:
    """Replace the scheduler's re-evaluation by `_one_pending_pass` (once per process), on the
    Snakemake release it was checked against (`snakemake_release`)."""
    if not checked("one pending scheduler pass", "scheduler_passes"):
        return
    if not hasattr(JobScheduler, REEVALUATION):
        raise RuntimeError(
            f"Snakemake's JobScheduler has no {REEVALUATION}: the pinned version changed; "
            "see memshift/workflow/scheduler_passes.py"
        )
    setattr(JobScheduler, REEVALUATION, _one_pending_pass)
