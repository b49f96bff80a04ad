"""How far a batch of model calls has got: calls done of total, tokens per second and an ETA at
the steady rate so far, one line to stderr every few seconds while the batch runs. A job whose
batches are too short to speak (a writer's few calls at each event, an auditor's one) is tallied
over all of them instead: its calls so far and tokens per second, every few seconds. A native
library's job counts the events it has fed the library, with the library's own model calls
tallied as they pass its meter.

Asked for with `MEMSHIFT_PROGRESS=SECONDS` in the environment (`memshift serve-study` sets it
unless `--quiet`); Snakemake's jobs inherit it and write their stderr to their logs. Progress
is never part of a result: it is read off a clock, and the clock is injected so tests need no
sleeps.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memshift.errors import ConfigError
from memshift.models.replies import Reply

ENVIRONMENT = "MEMSHIFT_PROGRESS"
Clock = Callable[[], float]
Emit = Callable[[str], None]


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def progress_every(environ: Mapping[str, str] = os.environ) -> float | None:
    """Seconds between progress lines that the environment asks for; None when it asks for
    none (unset, empty or 0)."""
    text = environ.get(ENVIRONMENT, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds >= 0 or seconds == float("inf"):
        raise ConfigError(f"{ENVIRONMENT}={text!r}: give the seconds between progress lines")
    return seconds or None


def duration(seconds: float) -> str:
    """`45 s`, `12 min 05 s`, `3 h 20 min`."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@dataclass(frozen=True)
class Pace:
    """A batch's state at one moment."""

    label: str
    done: int
    total: int
    tokens_in: int
    tokens_out: int
    elapsed: float
    unit: str = "calls"

    def line(self) -> str:
        share = f"{100 * self.done / self.total:.0f}%" if self.total else "—"
        head = f"memshift: {self.label}: {self.done:,} of {self.total:,} {self.unit} ({share})"
        if self.elapsed <= 0 or not self.done:
            return head
        rate_in, rate_out = self.tokens_in / self.elapsed, self.tokens_out / self.elapsed
        left = self.elapsed * (self.total - self.done) / self.done
        eta = "done" if self.done >= self.total else f"ETA {duration(left)}"
        return f"{head}, {rate_in:,.0f} tokens/s in, {rate_out:,.0f} out, {eta}"


class JobTally:
    """The calls of every batch of one label in this process (a job is one process): a line
    every `every` seconds of the batches that said nothing themselves. The job's total is not
    known to the client, so the line has no ETA."""

    def __init__(
        self, label: str, every: float, *, clock: Clock = time.monotonic, emit: Emit = to_stderr
    ) -> None:
        self.label, self.every, self.clock, self.emit = label, every, clock, emit
        self.start: float | None = None
        self.last = 0.0
        self.calls = self.batches = self.tokens_in = self.tokens_out = 0

    def begin(self) -> None:
        if self.start is None:
            self.start = self.last = self.clock()

    def add(self, batch: Progress) -> None:
        if not batch.done:  # a step with nothing to ask
            return
        self.batches += 1
        self._count(batch.done, batch.tokens_in, batch.tokens_out, spoke=bool(batch.lines))

    def counted(self, tokens_in: int, tokens_out: int) -> None:
        """One call that ended outside any batch (a native library's, through its meter)."""
        self._count(1, tokens_in, tokens_out, spoke=False)

    def _count(self, calls: int, tokens_in: int, tokens_out: int, *, spoke: bool) -> None:
        self.begin()
        self.calls += calls
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        now = self.clock()
        if spoke:  # the batch spoke for itself
            self.last = now
        elif now - self.last >= self.every:
            self.last = now
            self.emit(self.line(now))

    def line(self, now: float) -> str:
        batches = f" in {self.batches:,} batches" if self.batches else ""
        head = f"memshift: {self.label}: {self.calls:,} calls{batches} so far in this job"
        elapsed = now - (self.start if self.start is not None else now)
        if elapsed <= 0:
            return head
        rate_in, rate_out = self.tokens_in / elapsed, self.tokens_out / elapsed
        return f"{head}, {rate_in:,.0f} tokens/s in, {rate_out:,.0f} out"


class Progress:
    """Counts the calls of one batch as they end and emits a line whenever `every` seconds have
    passed since the last (or since the start), and one at the end if it emitted any; then adds
    the batch to its job's `tally`, if it has one."""

    def __init__(
        self,
        label: str,
        total: int,
        every: float,
        *,
        clock: Clock = time.monotonic,
        emit: Emit = to_stderr,
        tally: JobTally | None = None,
        unit: str = "calls",
    ) -> None:
        self.label, self.total, self.every, self.unit = label, total, every, unit
        self.clock, self.emit, self.tally = clock, emit, tally
        self.start = self.last = clock()
        self.done = self.tokens_in = self.tokens_out = 0
        self.lines = 0
        if tally is not None:
            tally.begin()

    def pace(self) -> Pace:
        elapsed = self.clock() - self.start
        return Pace(
            self.label, self.done, self.total, self.tokens_in, self.tokens_out, elapsed, self.unit
        )

    def advance(self, tokens_in: int, tokens_out: int, done: int = 1) -> None:
        self.done += done
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        now = self.clock()
        if now - self.last >= self.every and self.done < self.total:
            self.last = now
            self._say()

    def ended(self, reply: Reply) -> Reply:
        """Count a call that has ended, and pass its reply on."""
        self.advance(reply.usage.tokens_in, reply.usage.tokens_out)
        return reply

    def finish(self) -> None:
        if self.lines:
            self._say()
        if self.tally is not None:
            self.tally.add(self)

    def _say(self) -> None:
        self.lines += 1
        self.emit(self.pace().line())


# This process's tallies by label: a job's batches of one role and profile add up here.
_TALLIES: dict[str, JobTally] = {}


def batch_progress(label: str, total: int, environ: Mapping[str, str] = os.environ) -> Progress:
    """The progress of a batch as the environment asks for it, tallied with the job's other
    batches of its label; one that never speaks if not asked."""
    every = progress_every(environ)
    if every is None:
        return Progress(label, total, float("inf"))
    tally = _TALLIES.setdefault(label, JobTally(label, every))
    return Progress(label, total, every, tally=tally)


def native_progress(
    label: str, events: int, environ: Mapping[str, str] = os.environ
) -> tuple[Progress, JobTally | None]:
    """The progress of a native library following a branch, as the environment asks for it: the
    events fed to it of the branch's `events` (a line with an ETA every few seconds, checked
    after each checkpoint's events), and a tally of its own model calls, which speaks while a
    long checkpoint is being ingested; one that never speaks, and no tally, if not asked."""
    every = progress_every(environ)
    if every is None:
        return Progress(label, events, float("inf"), unit="events"), None
    return (
        Progress(label, events, every, unit="events"),
        JobTally(f"{label}: the library's model", every),
    )
