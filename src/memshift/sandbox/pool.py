"""The pool: the parent's side, which starts workers, feeds them programs and bounds them.

A `Sandbox` keeps long-lived worker processes (`memshift.sandbox.worker`), hands each one program
at a time with its records, and reads back one JSON line. It enforces the wall-clock watchdog,
replaces a worker whose program timed out, ran out of memory or killed it, and replaces a worker
that has grown too much or served enough programs. Nothing a program does reaches the parent but
its value. `run_program`, `run_programs` and `sandbox_layers` use one pool shared by the process.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import io
import json
import math
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memshift.intake.storable import storable_text
from memshift.sandbox.check import MAX_SOURCE_CHARS, TOO_LONG
from memshift.sandbox.confine import Layer
from memshift.sandbox.result import (
    DETAIL_CHARS,
    FAILURE_KINDS,
    MAX_RESULT_CHARS,
    ProgramResult,
    failed,
    unstorable,
)

# The worker runs in a child process started by module name (_WORKER_BOOT); importing from it here
# also puts its code in the code fingerprint of every stage that runs programs.
from memshift.sandbox.worker import READY

BOOT_SECONDS = 30.0
CLOSE_WAIT_SECONDS = 5.0
STDERR_TAIL_BYTES = 400
PIPE_BYTES = 1 << 20
PICKLES_KEPT = 4
RETIRING_FAILURES = ("timeout", "memory", "crash")
# A worker is replaced once it has grown this much since it started (its garbage collected), or
# has served this many programs: programs may leave memory behind that no collection frees.
RECYCLE_MB = 256
MEMORY_MB = 256  # a program's default address space on top of its worker's
RECYCLE_AFTER = 1000
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
# A character takes at most 12 bytes as JSON (an escaped surrogate pair).
MAX_REPLY_BYTES = 12 * (MAX_RESULT_CHARS + DETAIL_CHARS) + 1024
_WORKER_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from memshift.sandbox.worker import serve_worker; serve_worker(int(sys.argv[2]))"
)


def _worker_command(growth_mb: int) -> list[str]:
    # No site, no user site, no bytecode files, no current directory on the path; the
    # environment holds nothing but the hash seed (see _WORKER_ENVIRONMENT).
    package_root = str(Path(__file__).resolve().parents[2])
    boot = [sys.executable, "-S", "-s", "-B", "-P", "-c", _WORKER_BOOT]
    return [*boot, package_root, str(growth_mb)]


# A fixed seed makes the order of a set of strings, and so a program's value, the same in
# every worker and every run.
_WORKER_ENVIRONMENT = {"PYTHONHASHSEED": "0"}


class _Worker:
    """The parent's handle on one worker process, whose address space may grow by growth_mb."""

    def __init__(self, growth_mb: int) -> None:
        self.growth_mb = growth_mb
        self.process = subprocess.Popen(
            _worker_command(growth_mb),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_WORKER_ENVIRONMENT,
            cwd="/",
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        assert self.process.stderr is not None
        self.requests = self.process.stdin
        self.replies = self.process.stdout
        self.errors = self.process.stderr  # read when the worker has died
        os.set_blocking(self.errors.fileno(), False)
        with contextlib.suppress(OSError):  # a larger pipe moves big records in fewer rounds
            fcntl.fcntl(self.requests.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.output = self.replies.fileno()
        self.pending = bytearray()
        self.records: bytes | None = None
        self.job: int | None = None
        self.deadline = math.inf
        self.layers: tuple[Layer, ...] = ()
        self.served = 0
        self.statm: int | None = None
        self.start_size = 0.0

    def await_ready(self) -> None:
        deadline = time.monotonic() + BOOT_SECONDS
        while b"\n" not in self.pending and time.monotonic() < deadline:
            if not self.read(deadline - time.monotonic()):
                break
        line = self.take_line()
        layers = _parse_layers(line[len(READY) :]) if line and line.startswith(READY) else None
        if layers is None:
            self._wait()
            message = f"the sandbox worker did not start: {self.stderr_tail()}"
            self.close()
            raise RuntimeError(message)
        self.layers = layers
        self.statm = os.open(f"/proc/{self.process.pid}/statm", os.O_RDONLY)
        self.start_size = self.size()

    def size(self) -> float:
        """The worker's address space in bytes, which bounds its resident size (read by the
        parent, so no program can misreport it); infinite once the worker is gone."""
        try:
            pages = os.pread(self.statm, 64, 0).split() if self.statm is not None else []
        except OSError:
            pages = []
        return int(pages[0]) * PAGE_BYTES if pages else math.inf

    def fits(self, growth_mb: int) -> bool:
        """Alive, and started to grow by growth_mb at least."""
        return self.process.poll() is None and self.growth_mb >= growth_mb

    def outgrown(self, growth_bytes: int, programs: int) -> bool:
        return self.served >= programs or self.size() - self.start_size > growth_bytes

    def read(self, timeout: float) -> bool:
        """Reads what the worker has written within timeout; False at end of file."""
        poller = select.poll()
        poller.register(self.output, select.POLLIN)
        if not poller.poll(max(0, math.ceil(timeout * 1000))):
            return True
        return self.receive()

    def receive(self) -> bool:
        data = os.read(self.output, 1 << 16)
        self.pending += data
        return bool(data)

    def send(self, index: int, job: _Job, limits: _Limits) -> None:
        # The worker keeps the last records it was sent; equal records need not travel again.
        same = self.records is job.records or self.records == job.records
        header = {
            "id": index,
            "code": job.code,
            "as_of": job.as_of,
            "cpu": limits.cpu_seconds,
            "memory": limits.memory_mb,
            "records": -1 if same else len(job.records),
        }
        self.requests.write(json.dumps(header).encode("ascii") + b"\n")
        if not same:
            self.requests.write(job.records)
        self.requests.flush()
        self.records = job.records
        self.job = index
        self.deadline = time.monotonic() + limits.wall_seconds

    def take_line(self) -> bytes | None:
        line, newline, rest = bytes(self.pending).partition(b"\n")
        if not newline:
            return None
        self.pending[:] = rest
        if self.job is not None:
            self.served += 1
        self.job, self.deadline = None, math.inf
        return line

    def death(self) -> ProgramResult:
        """What the worker's unexpected end says about the program it was running."""
        code = self._wait()
        tail = self.stderr_tail()
        if code == -signal.SIGXCPU:
            return failed("timeout", "the program used up the worker's CPU limit")
        if any(sign in tail for sign in ("MemoryError", "out of memory", "Cannot allocate")):
            return failed("memory", f"the worker ran out of memory: {tail}")
        return failed("crash", f"the worker died ({_exit_name(code)}) {tail}".strip())

    def stderr_tail(self) -> str:
        """The last lines the worker wrote to stderr (a traceback or a fatal error), if any."""
        written = self._stderr()
        cut = len(written) > STDERR_TAIL_BYTES
        lines = written[-STDERR_TAIL_BYTES:].decode("utf-8", "replace").strip().splitlines()
        whole = lines[1:] if cut and len(lines) > 1 else lines  # the first may be cut
        return " | ".join(whole)

    def _stderr(self) -> bytes:
        chunks = []
        with contextlib.suppress(OSError):  # nothing more for now, or the pipe is closed
            while chunk := os.read(self.errors.fileno(), 1 << 16):
                chunks.append(chunk)
        return b"".join(chunks)

    def _wait(self) -> int:
        try:
            return self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.requests, self.replies, self.errors):
            with contextlib.suppress(OSError):
                stream.close()
        if self.statm is not None:
            os.close(self.statm)
            self.statm = None

    def shut_down(self) -> None:
        try:
            self.requests.close()
            self.process.wait(timeout=1)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.close()


def _exit_name(code: int) -> str:
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def _parse_layers(text: bytes) -> tuple[Layer, ...] | None:
    try:
        layers = tuple(Layer(**fields) for fields in json.loads(text))
    except (ValueError, TypeError):
        return None
    return layers if all(isinstance(layer.active, bool) for layer in layers) else None


def _parse_reply(line: bytes, index: int) -> ProgramResult:
    try:
        reply = json.loads(line)
    except ValueError:
        return failed("crash", "the worker sent an unreadable reply")
    if not isinstance(reply, dict) or reply.get("id") != index:
        return failed("crash", "the worker answered another job")
    failure, value, detail = reply.get("failure"), reply.get("value"), reply.get("detail")
    if failure is not None and failure not in FAILURE_KINDS:
        return failed("crash", "the worker sent an unknown failure kind")
    if failure is None and not _is_value(value):
        return failed("crash", "the worker sent a value of the wrong type")
    if failure is None and value is not None and unstorable(_texts(value)):
        return failed("crash", "the worker sent a value that cannot be stored as text")
    detail = storable_text(str(detail))[:DETAIL_CHARS]
    return ProgramResult(value if failure is None else None, failure, detail)


def _is_value(value: object) -> bool:
    if value is None or isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _texts(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else value


@dataclass(frozen=True)
class _Limits:
    cpu_seconds: float
    memory_mb: float
    wall_seconds: float

    def __post_init__(self) -> None:
        if min(self.cpu_seconds, self.memory_mb, self.wall_seconds) <= 0:
            raise ValueError(f"limits must be positive: {self}")


Job = tuple[str, list[dict[str, Any]], str]


ALLOW_LIST = Layer("allow-list", True, "a program runs only if it passes the allow-list")


class Sandbox:
    """A pool of long-lived worker processes, each running one program at a time. A worker
    collects its garbage after every program and is replaced once it has grown by more than
    recycle_mb since it started or has served recycle_after programs."""

    def __init__(
        self, workers: int = 2, *, recycle_mb: int = RECYCLE_MB, recycle_after: int = RECYCLE_AFTER
    ) -> None:
        if min(recycle_mb, recycle_after) <= 0:
            raise ValueError("recycle_mb and recycle_after must be positive")
        self.size = max(1, workers)
        self.recycle_mb = recycle_mb
        self.recycle_after = recycle_after
        self._slots: list[_Worker | None] = [None] * self.size
        self._lock = threading.Lock()
        self._owner = os.getpid()
        self._warned = False

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_programs(
        self,
        jobs: Sequence[Job],
        *,
        cpu_seconds: float = 2.0,
        memory_mb: int = MEMORY_MB,
        wall_seconds: float = 10.0,
    ) -> list[ProgramResult]:
        """Runs (code, records, as_of) jobs; results in job order. Per program: cpu_seconds of
        CPU time, memory_mb of address space on top of what its worker holds (records
        included), wall_seconds until the parent kills the worker. Records must be plain data
        (TypeError otherwise); a program never sees another program's changes to them."""
        limits = _Limits(cpu_seconds, memory_mb, wall_seconds)
        self._adopt()
        with self._lock:
            return _Batch(self, jobs, limits).run()

    def layers(self) -> tuple[Layer, ...]:
        """The sandbox's layers, as a worker measured them when it started (docs/sandbox.md)."""
        self._adopt()
        with self._lock:
            worker = self.worker(0, MEMORY_MB)
        memory = Layer(
            "worker memory",
            True,
            f"garbage collected after every program; a worker is replaced once it has grown "
            f"{self.recycle_mb} MB or served {self.recycle_after} programs",
        )
        return (ALLOW_LIST, memory, *worker.layers)

    def close(self) -> None:
        """Stops the workers; waits a moment for a batch that another thread is running."""
        if os.getpid() != self._owner:
            return
        locked = self._lock.acquire(timeout=CLOSE_WAIT_SECONDS)
        try:
            for slot in range(self.size):
                self.discard(slot, gently=locked)
        finally:
            if locked:
                self._lock.release()

    def worker(self, slot: int, memory_mb: float) -> _Worker:
        """The slot's worker, started afresh if there is none, it died while idle or it may not
        grow enough for programs of memory_mb."""
        growth_mb = math.ceil(memory_mb) + self.recycle_mb
        worker = self._slots[slot]
        if worker is not None and worker.job is None and not worker.fits(growth_mb):
            self.discard(slot)
            worker = None
        if worker is None:
            worker = _Worker(growth_mb)
            worker.await_ready()
            self._slots[slot] = worker
            self._report(worker.layers)
        return worker

    def outgrown(self, slot: int) -> bool:
        worker = self._slots[slot]
        return worker is not None and worker.outgrown(self.recycle_mb << 20, self.recycle_after)

    def _report(self, layers: Sequence[Layer]) -> None:
        inactive = [f"{layer.name} ({layer.note})" for layer in layers if not layer.active]
        if inactive and not self._warned:
            self._warned = True
            message = f"sandbox layers not in force: {'; '.join(inactive)}; see docs/sandbox.md"
            warnings.warn(message, RuntimeWarning, stacklevel=2)

    def peek(self, slot: int) -> _Worker | None:
        return self._slots[slot]

    def discard(self, slot: int, *, gently: bool = False) -> None:
        worker, self._slots[slot] = self._slots[slot], None
        if worker is not None and gently:
            worker.shut_down()
        elif worker is not None:
            worker.close()

    def _adopt(self) -> None:
        # In a forked child the workers (and perhaps the lock) belong to the parent: forget them.
        if os.getpid() != self._owner:
            self._slots = [None] * self.size
            self._lock = threading.Lock()
            self._owner = os.getpid()


@dataclass(frozen=True)
class _Job:
    code: str
    as_of: str
    records: bytes  # pickled


class _DataPickler(pickle.Pickler):
    """Pickles plain data only: the builtin containers, str, bytes, numbers, bools and None (the
    C pickler handles those itself and asks this hook about anything else)."""

    def reducer_override(self, obj: Any) -> Any:
        raise TypeError(f"records may hold only plain data, not {type(obj).__name__}")


def _pickled(records: list[dict[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    _DataPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(records)
    return buffer.getvalue()


class _Batch:
    """One call's jobs, spread over the sandbox's workers until every job has a result."""

    def __init__(self, sandbox: Sandbox, jobs: Sequence[Job], limits: _Limits):
        self.sandbox = sandbox
        self.jobs = jobs
        self.limits = limits
        self.results: list[ProgramResult | None] = [None] * len(jobs)
        self.queue = deque(range(len(jobs)))
        # Records pickled lately, by identity: jobs often share one list, and the batch's
        # reference to every list keeps the identities from being reused.
        self.pickles: dict[int, bytes] = {}

    def run(self) -> list[ProgramResult]:
        try:
            while self.queue or self._busy():
                self._dispatch()
                self._collect()
        finally:
            for slot in self._busy():  # interrupted: their state is unknown
                self.sandbox.discard(slot)
        return [r if r is not None else failed("crash", "no result") for r in self.results]

    def _busy(self) -> dict[int, _Worker]:
        workers = {slot: self.sandbox.peek(slot) for slot in range(self.sandbox.size)}
        return {slot: w for slot, w in workers.items() if w is not None and w.job is not None}

    def _dispatch(self) -> None:
        busy = self._busy()
        idle = deque(slot for slot in range(self.sandbox.size) if slot not in busy)
        while self.queue and idle:
            index = self.queue.popleft()
            code, records, as_of = self.jobs[index]
            if len(code) > MAX_SOURCE_CHARS:  # not worth sending
                self.results[index] = failed("violation", TOO_LONG)
            elif self._send(idle[0], index, _Job(code, as_of, self._pickled(records))):
                idle.popleft()

    def _pickled(self, records: list[dict[str, Any]]) -> bytes:
        if id(records) not in self.pickles:
            if len(self.pickles) >= PICKLES_KEPT:
                del self.pickles[next(iter(self.pickles))]
            self.pickles[id(records)] = _pickled(records)
        return self.pickles[id(records)]

    def _send(self, slot: int, index: int, job: _Job) -> bool:
        for _ in range(2):  # a worker that died idle is not the program's fault: retry once
            try:
                self.sandbox.worker(slot, self.limits.memory_mb).send(index, job, self.limits)
                return True
            except OSError:
                self.sandbox.discard(slot)
        self.results[index] = failed("crash", "no worker would take the program")
        return False

    def _collect(self) -> None:
        busy = self._busy()
        if not busy:
            return
        poller = select.poll()
        slots = {w.output: slot for slot, w in busy.items()}
        for fd in slots:
            poller.register(fd, select.POLLIN)
        nearest = min(w.deadline for w in busy.values())
        wait_ms = max(0, math.ceil((nearest - time.monotonic()) * 1000))
        for fd, _ in poller.poll(wait_ms):
            self._receive(slots[fd], busy[slots[fd]])
        self._enforce_deadlines()

    def _receive(self, slot: int, worker: _Worker) -> None:
        index = worker.job
        assert index is not None
        if not worker.receive():
            self._finish(slot, index, worker.death())
        elif len(worker.pending) > MAX_REPLY_BYTES:
            self._finish(slot, index, failed("crash", "the worker's reply is too long"))
        elif (line := worker.take_line()) is not None:
            self._finish(slot, index, _parse_reply(line, index), dead=False)

    def _finish(self, slot: int, index: int, result: ProgramResult, *, dead: bool = True) -> None:
        self.results[index] = result
        # A program stopped mid-way by the CPU timer or out of memory may have been inside a helper
        # or the standard library, whose state (a lock, a cache) is then not to be trusted.
        if dead or result.failure in RETIRING_FAILURES or self.sandbox.outgrown(slot):
            self.sandbox.discard(slot)

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for slot, worker in self._busy().items():
            if worker.job is not None and now >= worker.deadline:
                message = f"the program ran longer than {self.limits.wall_seconds:g} s"
                self._finish(slot, worker.job, failed("timeout", message))


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def _shared_sandbox() -> Sandbox:
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox(min(2, os.cpu_count() or 1))
            atexit.register(_shared.close)
        return _shared


def run_programs(
    jobs: Sequence[Job],
    *,
    cpu_seconds: float = 2.0,
    memory_mb: int = MEMORY_MB,
    wall_seconds: float = 10.0,
) -> list[ProgramResult]:
    """Runs many (code, records, as_of) jobs on the shared pool: see Sandbox.run_programs."""
    return _shared_sandbox().run_programs(
        jobs, cpu_seconds=cpu_seconds, memory_mb=memory_mb, wall_seconds=wall_seconds
    )


def sandbox_layers() -> tuple[Layer, ...]:
    """The shared pool's layers, measured by its worker: see Sandbox.layers."""
    return _shared_sandbox().layers()


def run_program(
    code: str,
    records: list[dict[str, Any]],
    as_of: str,
    *,
    cpu_seconds: float = 2.0,
    memory_mb: int = MEMORY_MB,
    wall_seconds: float = 10.0,
) -> ProgramResult:
    """Checks and runs one program on the shared pool."""
    job = (code, records, as_of)
    return run_programs(
        [job], cpu_seconds=cpu_seconds, memory_mb=memory_mb, wall_seconds=wall_seconds
    )[0]
