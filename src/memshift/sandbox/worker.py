"""The worker: what runs in the confined child process.

A worker is a long-lived process that runs one program at a time with a handful of safe builtins
and the helpers, under a CPU budget per program and an address-space limit. It is confined by
the operating system (`confine`: no root, no network, an empty filesystem, hard resource limits)
before it takes its first job, and collects its garbage after every program. It speaks to the
parent (`memshift.sandbox.pool`) only in JSON lines: READY and its layers when it has started,
then one reply per job.

Linux only: the limits rest on setrlimit, setitimer, namespaces and /proc. docs/sandbox.md has
the threat model.
"""

from __future__ import annotations

import gc
import io
import json
import math
import os
import pickle
import resource
import signal
import sys
import time
import warnings
from dataclasses import asdict
from types import CodeType, FrameType, TracebackType
from typing import IO, Any

from memshift.intake.storable import storable_text
from memshift.sandbox.check import ENTRY, PROGRAM_FILENAME, SAFE_BUILTINS, prepare
from memshift.sandbox.confine import confine
from memshift.sandbox.helpers import HELPERS
from memshift.sandbox.result import DETAIL_CHARS, MAX_RESULT_CHARS, unstorable

RECURSION_DEPTH = 200
READY = b"ready "  # then the worker's layers as JSON, and a newline
CPU_TICK_SECONDS = 0.05


class _DataUnpickler(pickle.Unpickler):
    """Unpickles plain data only: any class or function in the stream is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"records may not hold {module}.{name}")


class _CpuTimeout(BaseException):
    """Raised into the program by the CPU timer; not an Exception, so `except Exception` in a
    program lets it through."""


class _Runner:
    """Runs one program at a time inside a worker, under that program's limits."""

    def __init__(self) -> None:
        self.armed = False
        self.statm = os.open("/proc/self/statm", os.O_RDONLY)  # stays open in the empty root
        self.page_bytes = os.sysconf("SC_PAGE_SIZE")
        self.recursion_limit = sys.getrecursionlimit()
        self.keep_limits()
        signal.signal(signal.SIGPROF, self._on_cpu_tick)

    def keep_limits(self) -> None:
        """Takes the current limits as the ones to return to after each program."""
        self.cpu_limits = resource.getrlimit(resource.RLIMIT_CPU)
        self.memory_limits = resource.getrlimit(resource.RLIMIT_AS)

    def _on_cpu_tick(self, signum: int, frame: FrameType | None) -> None:
        # Once per program: a second tick can then never interrupt the clean-up after the first.
        if self.armed:
            self.armed = False
            raise _CpuTimeout

    def handle(self, job: dict[str, Any], records_blob: bytes) -> bytes:
        reply = self.execute(job["code"], records_blob, job["as_of"], job["cpu"], job["memory"])
        reply["id"] = job["id"]
        # Before replying, so the parent measures the worker without the program's garbage:
        # reference cycles would otherwise outlive their program and pile up program by program.
        gc.collect()
        return json.dumps(reply).encode("ascii") + b"\n"

    def execute(
        self, code: str, records_blob: bytes, as_of: str, cpu_seconds: float, memory_mb: int
    ) -> dict[str, Any]:
        prepared = prepare(code)
        if not isinstance(prepared, CodeType):
            return _reply(*prepared)
        # Unpickled afresh for every program, so no program sees another's changes to its records.
        records = _DataUnpickler(io.BytesIO(records_blob)).load()
        try:
            return self._run(prepared, records, as_of, cpu_seconds, memory_mb)
        except _CpuTimeout:
            return _reply("timeout", f"the program used more than {cpu_seconds:g} s of CPU time")
        except MemoryError:
            return _reply("memory", f"the program used more than {memory_mb} MB of memory")

    def _run(
        self, program: CodeType, records: Any, as_of: str, cpu_seconds: float, memory_mb: int
    ) -> dict[str, Any]:
        namespace: dict[str, Any] = {"__builtins__": dict(SAFE_BUILTINS), **HELPERS}
        self._arm(cpu_seconds, memory_mb)
        try:
            exec(program, namespace)
            return _value_reply(namespace[ENTRY](records, as_of))
        except MemoryError:
            raise
        except Exception as error:
            return _reply("exception", _describe(error))
        finally:
            self._disarm()
            namespace.clear()  # derive and its globals refer to each other

    def _arm(self, cpu_seconds: float, memory_mb: int) -> None:
        memory = _within(self.address_space() + int(memory_mb * (1 << 20)), self.memory_limits[1])
        resource.setrlimit(resource.RLIMIT_AS, (memory, self.memory_limits[1]))
        # The kernel's whole-second backstop, for C code that never lets the timer's handler run.
        cpu = math.ceil(time.process_time() + cpu_seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, self.cpu_limits[1]))
        sys.setrecursionlimit(_stack_depth() + RECURSION_DEPTH)
        self.armed = True
        signal.setitimer(signal.ITIMER_PROF, cpu_seconds, CPU_TICK_SECONDS)

    def _disarm(self) -> None:
        self.armed = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        sys.setrecursionlimit(self.recursion_limit)
        resource.setrlimit(resource.RLIMIT_CPU, self.cpu_limits)
        resource.setrlimit(resource.RLIMIT_AS, self.memory_limits)

    def address_space(self) -> int:
        return int(os.pread(self.statm, 64, 0).split()[0]) * self.page_bytes


def _within(value: int, hard_limit: int) -> int:
    return value if hard_limit == resource.RLIM_INFINITY else min(value, hard_limit)


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    return depth + 1


def _reply(failure: str | None, detail: str = "", value: Any = None) -> dict[str, Any]:
    return {"failure": failure, "value": value, "detail": storable_text(detail)[:DETAIL_CHARS]}


def _value_reply(value: object) -> dict[str, Any]:
    if value is None:
        return _reply(None)
    if type(value) is str:
        size = len(value)
    elif type(value) is list and all(type(v) is str for v in value):
        size = sum(len(v) + 1 for v in value)  # + 1: an empty string still costs its quotes
    else:
        return _reply("wrong_type", _wrong_type_message(value))
    if size > MAX_RESULT_CHARS:
        return _reply("wrong_type", f"the value is longer than {MAX_RESULT_CHARS} characters")
    problem = unstorable(value if type(value) is list else [value])
    return _reply("wrong_type", problem) if problem else _reply(None, value=value)


def _wrong_type_message(value: object) -> str:
    if type(value) is list:
        odd = next(v for v in value if type(v) is not str)
        return f"the list holds a {type(odd).__name__}; return None, a str or a list of str"
    return f"the program returned a {type(value).__name__}; return None, a str or a list of str"


def _describe(error: BaseException) -> str:
    line = _program_line(error.__traceback__)
    where = f" (line {line})" if line else ""
    return f"{type(error).__name__}: {_brief(error)}{where}"


def _brief(error: BaseException) -> str:
    """The exception's arguments, bounded in size however large the objects they hold."""
    parts = []
    for arg in error.args[:3]:
        if isinstance(arg, str):
            parts.append(repr(arg[:200]) if isinstance(error, KeyError) else arg[:200])
        elif isinstance(arg, bool | float | type(None)) or (
            isinstance(arg, int) and arg.bit_length() <= 64
        ):
            parts.append(repr(arg))
        else:
            parts.append(f"<{type(arg).__name__}>")
    return ", ".join(parts)


def _program_line(trace: TracebackType | None) -> int | None:
    line = None
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def serve_worker(growth_mb: int) -> None:
    """The worker's main loop. Its first line out is READY and its layers; then a job is a JSON
    header line on stdin, then as many bytes of pickled records as the header says; the reply is
    one JSON line on the original stdout. The worker's address space may grow by growth_mb from
    its size once confined, and no further."""
    requests, replies = _claim_channels()
    runner = _Runner()
    _quiet_and_warm(runner)
    layers = confine(runner.address_space, growth_mb << 20)
    runner.keep_limits()
    gc.freeze()  # what the worker holds now lives as long as it does: no collection scans it
    replies.write(READY + json.dumps([asdict(layer) for layer in layers]).encode("ascii") + b"\n")
    replies.flush()
    records_blob = b""
    while header := requests.readline():
        job = json.loads(header)
        if job["records"] >= 0:  # else the same records as the previous job
            records_blob = requests.read(job["records"])
        replies.write(runner.handle(job, records_blob))
        replies.flush()


def _claim_channels() -> tuple[IO[bytes], IO[bytes]]:
    """Moves the job pipes to private descriptors; fds 0 and 1 then point at /dev/null."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # The parent reads stderr only once the worker is dead: a full pipe must not block it.
    os.set_blocking(2, False)
    return requests, replies


def _quiet_and_warm(runner: _Runner) -> None:
    warnings.simplefilter("ignore")
    sys.unraisablehook = lambda _: None
    # Runs the whole path once, so lazy imports (_strptime) are done before the filesystem goes
    # and do not count against a program.
    runner.execute(_WARM_UP, pickle.dumps([]), "2000-01-03 00:00", 1.0, 64)


# The fullwidth name makes the parser import unicodedata, to normalize it.
_WARM_UP = (
    "def derive(records, as_of):\n"
    "    \uff4e = [str(minutes(as_of)), str(day_number(as_of[:10])), str(weekday(as_of))]\n"
    "    return [*n, f'{1!r}']\n"
)
