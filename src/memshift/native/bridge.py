"""A native library in an environment of its own (`environments/native.sh`), run as a process
of that environment that speaks JSON lines (`native/bridges/`): the adapter sends a request and
reads one reply a line.

The process is started from an argument list, never a shell, with an environment built here
(no variable of memshift's own is passed on: an API key or a proxy of the caller's does not reach
the library), its home and temporary folders under the system's work folder. It loads the
bridges package from its folder under a name of its own, so nothing but that package is added to
the library environment's import path. A reply is read within bounds (one line of at most
`MAX_REPLY` bytes, bounded JSON, within the reply timeout); a process that dies, hangs, or
answers out of protocol stops the job with its last lines of stderr, while a failure the library
raised is a failed library call (`LibraryFailure`) that the adapter counts as the system's
behaviour."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path
from threading import Thread
from typing import IO, Any

import memshift
from memshift.errors import MemshiftError
from memshift.intake.storable import UnstorableError, parse_storable
from memshift.memory.under_test import QueryFailed

BRIDGES = Path(__file__).parent / "bridges"
# where environments/native.sh puts a library's environment, in a checkout of memshift
ENVIRONMENTS = Path(memshift.__file__).resolve().parents[2] / ".native"
MAX_REPLY = 64 * 1024 * 1024
STDERR_LINES = 40
# a Unix socket's path holds at most 107 bytes, and a library that starts a multiprocessing
# manager (HippoRAG does, on import) binds one under TMPDIR/pymp-XXXXXXXX/: a longer TMPDIR
# than this is swapped for a short one of the process's own
SOCKET_ROOM = 64
# a request (one add of a batch, one search) the library has not answered in this time is a hang:
# generous, since a library retries a refused model call for minutes and a CPU model is slow
REPLY_TIMEOUT_S = 1800
# Loads the bridges package from the folder of argv[1] as `memshift_bridge` (its modules import
# each other relatively) and runs the module named by argv[2]; paths are arguments, not code.
BOOT = (
    "import importlib, importlib.util, sys\n"
    "folder, module = sys.argv[1], sys.argv[2]\n"
    "spec = importlib.util.spec_from_file_location('memshift_bridge', folder + '/__init__.py',"
    " submodule_search_locations=[folder])\n"
    "package = importlib.util.module_from_spec(spec)\n"
    "sys.modules['memshift_bridge'] = package\n"
    "spec.loader.exec_module(package)\n"
    "importlib.import_module('memshift_bridge.' + module).main()\n"
)


class LibraryFailure(Exception):
    """The library raised while serving a request: a failed library call."""


def environment_python(library: str, configured: str = "") -> Path:
    """The Python of the library's environment: `configured`, else the one
    `environments/native.sh LIBRARY` installs."""
    python = Path(configured) if configured else ENVIRONMENTS / library / "bin" / "python"
    if not python.is_file():
        how = (
            f"environments/native.sh {library} (or make native-envs) installs it"
            if not configured
            else "give the python of an environment with the library installed"
        )
        raise MemshiftError(f"{library}: no environment of its own at {python}: {how}")
    return python


def _drain(stream: IO[bytes], kept: deque[str]) -> None:
    for line in stream:
        kept.append(line.decode("utf-8", "replace").rstrip())


def _read_replies(stream: IO[bytes], replies: queue.Queue[bytes]) -> None:
    """Each line of the protocol stream (cut after `MAX_REPLY` + 1 bytes), then b"" at its end."""
    while line := stream.readline(MAX_REPLY + 1):
        replies.put(line)
    replies.put(b"")


class Bridge:
    """One library process of the module `<folder>/<module>.py` (`bridges/` unless a test gives
    another), serving one system."""

    def __init__(
        self,
        python: Path,
        module: str,
        env: dict[str, str],
        workdir: Path,
        folder: Path = BRIDGES,
        reply_timeout_s: float = REPLY_TIMEOUT_S,
    ) -> None:
        self.module = module
        self.reply_timeout_s = reply_timeout_s
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        workdir.mkdir(parents=True, exist_ok=True)
        self.short_tmp: str | None = None
        if len(env.get("TMPDIR", "")) > SOCKET_ROOM:
            self.short_tmp = tempfile.mkdtemp(prefix="memshift-", dir=_short_root())
            env = {**env, "TMPDIR": self.short_tmp}
        self.process = subprocess.Popen(
            # not -I: its -E would drop the environment built here, which has no PYTHONPATH but
            # holds the hash seed; -s keeps the user's site packages and -P the working folder
            # out of the imports
            [str(python), "-s", "-P", "-c", BOOT, str(folder), module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=workdir,
        )
        assert self.process.stderr is not None and self.process.stdout is not None
        self._drain = Thread(target=_drain, args=(self.process.stderr, self.stderr), daemon=True)
        self._drain.start()
        self.replies: queue.Queue[bytes] = queue.Queue()
        self._reader = Thread(
            target=_read_replies, args=(self.process.stdout, self.replies), daemon=True
        )
        self._reader.start()

    def _stopped(self, what: str) -> MemshiftError:
        tail = "\n".join(self.stderr) or "(nothing on stderr)"
        return MemshiftError(f"the {self.module} process {what}; its last lines of stderr:\n{tail}")

    def call(self, op: str, **arguments: Any) -> Any:
        """The result of one request; `LibraryFailure` when the library raised."""
        return self._request(op, arguments, self.reply_timeout_s)

    def _request(self, op: str, arguments: dict[str, Any], timeout_s: float) -> Any:
        assert self.process.stdin is not None
        line = request_line(op, arguments)
        try:
            self.process.stdin.write(line)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._stopped(f"ended before {op} (exit status {self.process.wait()})") from None
        try:
            reply = self.replies.get(timeout=timeout_s)
        except queue.Empty:
            self.process.kill()
            self.process.wait()
            raise self._stopped(
                f"gave no reply to {op} within {timeout_s:g} s and was stopped"
            ) from None
        if not reply:
            raise self._stopped(f"ended during {op} (exit status {self.process.wait()})")
        if len(reply) > MAX_REPLY:
            raise self._stopped(f"sent a reply to {op} longer than {MAX_REPLY} bytes")
        try:
            found = parse_storable(reply.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, UnstorableError) as exc:
            raise self._stopped(f"sent a reply to {op} that is not bounded JSON: {exc}") from None
        if not isinstance(found, dict) or len(found) != 1:
            raise self._stopped(f"sent a reply to {op} out of protocol: {str(found)[:200]}")
        [(kind, value)] = found.items()
        if kind == "ok":
            return value
        if kind == "failed" and isinstance(value, str):
            raise LibraryFailure(value)
        raise self._stopped(f"refused {op}: {str(value)[:500]}")

    def close(self, timeout_s: float = 60.0) -> None:
        """Ask the process to close its stores and end; kill it if it does not."""
        if self.process.poll() is None:
            try:
                self._request("close", {}, timeout_s)
            except (LibraryFailure, MemshiftError) as exc:
                print(f"{self.module}: closing: {exc}", file=sys.stderr)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout_s)
        self._drain.join(timeout_s)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        if self.short_tmp is not None:
            shutil.rmtree(self.short_tmp, ignore_errors=True)


def _short_root() -> str:
    """Where a short temporary folder goes: the system's, unless it is itself long."""
    system = tempfile.gettempdir()
    return system if len(system) <= SOCKET_ROOM // 2 else "/tmp"


def request_line(op: str, arguments: dict[str, Any]) -> bytes:
    return (json.dumps({"op": op, **arguments}, ensure_ascii=True, allow_nan=False) + "\n").encode()


def started(
    library: str,
    shown: str,
    workdir: Path,
    python: str,
    settings: dict[str, Any],
    environment: dict[str, str] | None = None,
    reply_timeout_s: float = REPLY_TIMEOUT_S,
) -> Bridge:
    """The process of `library` (`shown` in messages) with its environment's python, initialised
    with `settings` (its `init`); a library that cannot start stops the job in one line."""
    env = {**base_environment(workdir), **(environment or {})}
    bridge = Bridge(
        environment_python(library, python),
        library,
        env,
        workdir,
        reply_timeout_s=reply_timeout_s,
    )
    try:
        bridge.call("init", workdir=str(workdir), **settings)
    except LibraryFailure as exc:
        bridge.close()
        raise MemshiftError(f"{shown} could not be built: {exc}") from None
    return bridge


def searched(bridge: Bridge, shown: str, query: str, top_k: int) -> list[Any] | QueryFailed:
    """What the library's `search` found for a question; a search that failed is the question's
    failure (logged and counted as such, never read as an empty memory)."""
    try:
        found: list[Any] = bridge.call("search", query=query, top_k=top_k)
    except LibraryFailure as exc:
        return QueryFailed(f"{shown}'s search failed: {exc}"[:300])
    return found


def base_environment(workdir: Path) -> dict[str, str]:
    """What every library process is given: its own home and temporary folder under `workdir`,
    UTF-8, no bytecode written into the environment, a fixed hash seed (a library that iterates
    a set of strings, as HippoRAG does when it lists facts in a prompt, then sends the same
    prompts on every run), and nothing of the caller's."""
    home, tmp = workdir / "home", workdir / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "NO_PROXY": "127.0.0.1,localhost",
    }
