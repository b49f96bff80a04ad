"""The restricted interpreter for the writer's programs.

A program is untrusted code: `def derive(records, as_of)`. It must pass an allow-list over its
syntax tree (`check_program`), and then runs in a long-lived worker process with a handful of
safe builtins and the helpers, under a CPU budget per program, an address-space limit and the
parent's wall-clock watchdog. The worker itself is confined by the operating system (`confine`:
no root, no network, an empty filesystem, hard resource limits), collects its garbage after
every program and is replaced when it has grown too much or served enough programs. A worker
whose program timed out, ran out of memory or killed it is replaced; the parent only ever reads
JSON lines from a worker, so nothing a program does reaches the parent but its value.

Linux only: the limits rest on setrlimit, setitimer, namespaces and /proc. docs/sandbox.md has
the threat model.
"""

from __future__ import annotations

import ast
import atexit
import builtins
import contextlib
import fcntl
import gc
import io
import json
import math
import os
import pickle
import resource
import select
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from types import CodeType, FrameType, MappingProxyType, TracebackType
from typing import IO, Any, TypeVar

from memshift.sandbox.confine import Layer, confine
from memshift.sandbox.helpers import HELPERS
from memshift.storable import storable_text, text_problem

FAILURE_KINDS = (
    "syntax_error",
    "violation",
    "exception",
    "timeout",
    "memory",
    "wrong_type",
    "crash",
)

ENTRY = "derive"
PARAMETERS = ("records", "as_of")
PROGRAM_FILENAME = "<program>"

MAX_SOURCE_CHARS = 20_000
MAX_NESTING = 50
RECURSION_DEPTH = 200
MAX_RESULT_CHARS = 100_000
DETAIL_CHARS = 600

EXCEPTION_NAMES = frozenset(
    {"Exception", "ValueError", "KeyError", "IndexError", "TypeError", "ZeroDivisionError"}
)
SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "isinstance", "len",
    "list", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "zip", *sorted(EXCEPTION_NAMES),
)  # fmt: skip
SAFE_BUILTINS: Mapping[str, Any] = MappingProxyType(
    {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
)

# Names a program may not even mention: they reflect, execute code, do I/O or name modules. None
# of them is in SAFE_BUILTINS either; rejecting them up front gives the writer a clear message.
DENIED_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "input", "print", "globals", "locals", "vars", "dir",
        "getattr", "setattr", "delattr", "hasattr", "type", "object", "super", "memoryview",
        "breakpoint", "help", "id", "classmethod", "staticmethod", "property", "exit", "quit",
        "copyright", "credits", "license", "os", "sys", "builtins", "importlib", "signal",
        "resource", "subprocess", "socket", "ctypes",
    }
)  # fmt: skip

# Method names of str, list, dict and set that only compute on the receiver. Deliberately absent:
# format and format_map (their fields read attributes by name), mro, encode, mapping (a dict
# view's underlying dict) and every generator, frame, code and traceback attribute.
SAFE_METHODS = frozenset(
    {
        "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum",
        "isalpha", "isdecimal", "isdigit", "islower", "isnumeric", "isspace", "istitle",
        "isupper", "join", "ljust", "lower", "lstrip", "partition", "removeprefix",
        "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip",
        "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill",
        "append", "clear", "copy", "extend", "insert", "pop", "remove", "reverse", "sort",
        "get", "items", "keys", "values", "setdefault", "update", "popitem",
        "add", "discard", "difference", "difference_update", "intersection",
        "intersection_update", "isdisjoint", "issubset", "issuperset", "symmetric_difference",
        "union",
    }
)  # fmt: skip

_OPERATORS = (
    ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift,
    ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.And, ast.Or, ast.Not, ast.Invert,
    ast.UAdd, ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot,
    ast.In, ast.NotIn,
)  # fmt: skip
ALLOWED_NODES: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign,
        ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If, ast.Expr, ast.Pass, ast.Break,
        ast.Continue, ast.Try, ast.ExceptHandler, ast.Raise, ast.Assert,
        ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Lambda, ast.Call,
        ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred, ast.Name,
        ast.NamedExpr, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
        ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.JoinedStr,
        ast.FormattedValue, ast.Load, ast.Store, *_OPERATORS,
    }
)  # fmt: skip
_CONSTANT_TYPES = (str, int, float, complex, bool, type(None), type(Ellipsis))
_T = TypeVar("_T")
_TOO_LONG = f"the program is longer than {MAX_SOURCE_CHARS} characters"


@dataclass(frozen=True)
class ProgramResult:
    value: str | list[str] | None
    failure: str | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if self.failure is not None and self.failure not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {self.failure!r}; one of {FAILURE_KINDS}")

    @property
    def ok(self) -> bool:
        return self.failure is None


def _failed(kind: str, detail: str) -> ProgramResult:
    return ProgramResult(None, kind, detail[:DETAIL_CHARS])


# ---------------------------------------------------------------- the static check


def check_program(code: str) -> str | None:
    """None if the code passes the allow-list (and compiles), else a message naming the first
    violation."""
    prepared = _prepare(code)
    return None if isinstance(prepared, CodeType) else prepared[1]


def _prepare(code: str) -> CodeType | tuple[str, str]:
    """The compiled program, or (failure kind, message) when it may not run."""
    if len(code) > MAX_SOURCE_CHARS:  # before the cache, which would keep the source
        return "violation", _TOO_LONG
    return _checked_and_compiled(code)


@lru_cache(maxsize=512)
def _checked_and_compiled(code: str) -> CodeType | tuple[str, str]:
    try:
        tree = _quietly(lambda: ast.parse(code, PROGRAM_FILENAME))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return "syntax_error", _syntax_message(error)
    problem = _first_violation(tree)
    if problem is not None:
        return "violation", problem
    try:
        return _quietly(lambda: compile(tree, PROGRAM_FILENAME, "exec", dont_inherit=True))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return "syntax_error", _syntax_message(error)


def _quietly(make: Callable[[], _T]) -> _T:
    # Invalid escape sequences warn on stderr; a program's warnings are nobody's business here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def _syntax_message(error: Exception) -> str:
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}" if error.lineno else error.msg
    if isinstance(error, RecursionError | MemoryError):
        return "the program is nested too deeply to parse"
    return str(error)


def _first_violation(tree: ast.Module) -> str | None:
    shape = _entry_problem(tree)
    if shape is not None:
        return shape
    problems = []
    for node, depth, place in _walk(tree):
        if depth > MAX_NESTING:
            return f"line {place[0]}: the program is nested more than {MAX_NESTING} levels deep"
        problem = _node_problem(node)
        if problem is not None:
            problems.append((place, problem))
    if not problems:
        return None
    (line, _), problem = min(problems)
    return f"line {line}: {problem}"


def _entry_problem(tree: ast.Module) -> str | None:
    entry = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(entry, ast.FunctionDef) or entry.name != ENTRY:
        return "the program must be exactly one top-level `def derive(records, as_of):`"
    a = entry.args
    extras = a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults
    if extras or tuple(p.arg for p in a.args) != PARAMETERS:
        return "derive must take exactly the parameters (records, as_of)"
    return None


_Place = tuple[int, int]  # line, and the column where the node ends: reading order


def _walk(tree: ast.AST) -> list[tuple[ast.AST, int, _Place]]:
    """Every node with its depth and place (an operator takes its parent's); iterative, so deep
    trees cannot overflow the stack."""
    stack: list[tuple[ast.AST, int, _Place]] = [(tree, 0, (0, 0))]
    order = []
    while stack:
        node, depth, place = stack.pop()
        if hasattr(node, "lineno"):
            place = (node.lineno, getattr(node, "end_col_offset", None) or 0)
        order.append((node, depth, place))
        stack.extend((child, depth + 1, place) for child in ast.iter_child_nodes(node))
    return order


def _node_problem(node: ast.AST) -> str | None:
    if type(node) not in ALLOWED_NODES:
        return f"{type(node).__name__} is not allowed"
    check = _NODE_CHECKS.get(type(node))
    return None if check is None else check(node)


def _name_problem(name: str | None) -> str | None:
    if name is None:
        return None
    if name.startswith("_") and name != "_":
        return f"the name {name!r} starts with an underscore"
    if name in DENIED_NAMES:
        return f"the name {name!r} is not allowed"
    return None


def _defaults_problem(arguments: ast.arguments) -> str | None:
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if any(not isinstance(d, ast.Constant) for d in defaults):
        return "default values must be constants"
    return None


def _function_problem(node: ast.FunctionDef) -> str | None:
    if node.decorator_list:
        return "decorators are not allowed"
    return _name_problem(node.name) or _defaults_problem(node.args)


def _lambda_problem(node: ast.Lambda) -> str | None:
    return _defaults_problem(node.args)


def _attribute_problem(node: ast.Attribute) -> str | None:
    if not isinstance(node.ctx, ast.Load):
        return "assigning to an attribute is not allowed"
    if node.attr not in SAFE_METHODS:
        return f"the attribute {node.attr!r} is not allowed"
    return None


def _is_exception_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in EXCEPTION_NAMES


def _handler_problem(node: ast.ExceptHandler) -> str | None:
    if node.type is None:
        return "a bare except is not allowed; name the exceptions"
    caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
    if not all(_is_exception_name(c) for c in caught):
        return f"only {', '.join(sorted(EXCEPTION_NAMES))} may be caught"
    return _name_problem(node.name)


def _try_problem(node: ast.Try) -> str | None:
    # A finally block would run code after the CPU timer has interrupted the program.
    return "finally is not allowed" if node.finalbody else None


def _raise_problem(node: ast.Raise) -> str | None:
    if node.cause is not None:
        return "raise ... from is not allowed"
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if raised is not None and not _is_exception_name(raised):
        return f"only {', '.join(sorted(EXCEPTION_NAMES))} may be raised"
    return None


def _constant_problem(node: ast.Constant) -> str | None:
    if not isinstance(node.value, _CONSTANT_TYPES):
        return f"{type(node.value).__name__} constants are not allowed"
    return None


def _formatted_problem(node: ast.FormattedValue) -> str | None:
    parts = node.format_spec.values if isinstance(node.format_spec, ast.JoinedStr) else []
    if not all(isinstance(part, ast.Constant) for part in parts):
        return "a format spec may not contain {...}"
    return None


def _comprehension_problem(node: ast.comprehension) -> str | None:
    return "async comprehensions are not allowed" if node.is_async else None


_NODE_CHECKS: dict[type[ast.AST], Callable[[Any], str | None]] = {
    ast.Name: lambda node: _name_problem(node.id),
    ast.arg: lambda node: _name_problem(node.arg),
    ast.keyword: lambda node: _name_problem(node.arg),
    ast.FunctionDef: _function_problem,
    ast.Lambda: _lambda_problem,
    ast.Attribute: _attribute_problem,
    ast.ExceptHandler: _handler_problem,
    ast.Try: _try_problem,
    ast.Raise: _raise_problem,
    ast.Constant: _constant_problem,
    ast.FormattedValue: _formatted_problem,
    ast.comprehension: _comprehension_problem,
}


# ---------------------------------------------------------------- the worker process

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
        prepared = _prepare(code)
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
    problem = _unstorable(value if type(value) is list else [value])
    return _reply("wrong_type", problem) if problem else _reply(None, value=value)


def _unstorable(texts: list[str]) -> str | None:
    """Why the texts cannot be stored as UTF-8 (a lone surrogate), or None if they can."""
    for number, text in enumerate(texts):
        problem = text_problem(text)
        if problem is not None:
            where = f" of string {number}" if len(texts) > 1 else ""
            return f"the value holds {problem}{where}, which cannot be stored as text"
    return None


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


# ---------------------------------------------------------------- the parent's pool

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
    "from memshift.sandbox.interpreter import serve_worker; serve_worker(int(sys.argv[2]))"
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
            return _failed("timeout", "the program used up the worker's CPU limit")
        if any(sign in tail for sign in ("MemoryError", "out of memory", "Cannot allocate")):
            return _failed("memory", f"the worker ran out of memory: {tail}")
        return _failed("crash", f"the worker died ({_exit_name(code)}) {tail}".strip())

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
        return _failed("crash", "the worker sent an unreadable reply")
    if not isinstance(reply, dict) or reply.get("id") != index:
        return _failed("crash", "the worker answered another job")
    failure, value, detail = reply.get("failure"), reply.get("value"), reply.get("detail")
    if failure is not None and failure not in FAILURE_KINDS:
        return _failed("crash", "the worker sent an unknown failure kind")
    if failure is None and not _is_value(value):
        return _failed("crash", "the worker sent a value of the wrong type")
    if failure is None and value is not None and _unstorable(_texts(value)):
        return _failed("crash", "the worker sent a value that cannot be stored as text")
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
        return [r if r is not None else _failed("crash", "no result") for r in self.results]

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
                self.results[index] = _failed("violation", _TOO_LONG)
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
        self.results[index] = _failed("crash", "no worker would take the program")
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
            self._finish(slot, index, _failed("crash", "the worker's reply is too long"))
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
                self._finish(slot, worker.job, _failed("timeout", message))


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
