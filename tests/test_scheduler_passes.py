"""Snakemake's scheduler keeps one re-evaluation pending, not one more per pass: a pass asks for
the next one, passes that ask while one is pending add none, and a run never waits for it."""

from __future__ import annotations

import threading
import time

from snakemake.scheduling.job_scheduler import JobScheduler

from memshift.workflow import scheduler_passes


class Scheduler:
    """What the re-evaluation touches of a scheduler: the semaphore its loop waits on."""

    def __init__(self) -> None:
        self._open_jobs = threading.Semaphore(0)


def releases_within(scheduler: Scheduler, seconds: float) -> int:
    deadline, count = time.monotonic() + seconds, 0
    while scheduler._open_jobs.acquire(timeout=max(0.0, deadline - time.monotonic())):
        count += 1
    return count


def test_the_pinned_snakemake_has_the_method_it_replaces() -> None:
    # an upgrade that renames it fails here, not silently in every study's speed
    scheduler_passes.keep_one_pending_pass()
    assert getattr(JobScheduler, scheduler_passes.REEVALUATION) is (
        scheduler_passes._one_pending_pass
    )


def test_passes_asking_while_one_is_pending_add_none() -> None:
    scheduler = Scheduler()
    for _ in range(50):  # fifty passes, as many job starts and ends
        scheduler_passes._one_pending_pass(scheduler, 0.05)
    assert releases_within(scheduler, 0.3) == 1


def test_the_pass_a_timer_wakes_arms_the_next_one() -> None:
    scheduler = Scheduler()
    scheduler_passes._one_pending_pass(scheduler, 0.02)
    assert releases_within(scheduler, 0.2) == 1
    # the woken pass ends by asking again: a rate-limited job is looked at again
    scheduler_passes._one_pending_pass(scheduler, 0.02)
    assert releases_within(scheduler, 0.2) == 1


def test_a_pending_pass_never_keeps_a_run_from_ending() -> None:
    scheduler = Scheduler()
    scheduler_passes._one_pending_pass(scheduler, 60)
    pending = getattr(scheduler, scheduler_passes._PENDING)
    assert pending.daemon and pending.is_alive()
    pending.cancel()
