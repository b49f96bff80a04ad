"""A model server for one study: start it, wait until it answers, run the study, stop it.

`config/servers.yaml` holds the presets (`memshift serve-study --list`): the command that starts
a server (an argument list, never a shell line: a value of the file reaches the program as one
argument, whatever it holds), the port it listens on and the model profile that talks to it. The
study runs as `snakemake --configfile STUDY --config llm=PROFILE` in a child process; the server
is stopped however the study ends (finished, failed, interrupted).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema

from memshift.errors import ConfigError, MemshiftError
from memshift.intake.reading import describe_error, load_yaml
from memshift.models.profiles import Profile, load_profile

LOOPBACK = "127.0.0.1"
POLL_S = 1.0
PROGRESS_EVERY_S = 15.0
STOP_GRACE_S = 30.0
LOG_TAIL_LINES = 20
# placeholders a preset's command may hold, filled in when the server starts
PLACEHOLDERS = ("port", "host", "root")

PRESET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["command", "port", "profile"],
    "additionalProperties": False,
    "properties": {
        "description": {"type": "string"},
        "command": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        "profile": {"type": "string", "minLength": 1},
        "ready_timeout_s": {"type": "number", "exclusiveMinimum": 0},
        "needs": {"type": "string", "description": "What must be installed, for the error."},
    },
}
FILE_SCHEMA = {
    "type": "object",
    "required": ["servers"],
    "additionalProperties": False,
    "properties": {"servers": {"type": "object", "additionalProperties": PRESET_SCHEMA}},
}


@dataclass(frozen=True)
class Preset:
    name: str
    command: tuple[str, ...]
    port: int
    profile: str
    ready_timeout_s: float = 600.0
    needs: str = ""
    description: str = ""

    def argv(self, root: Path) -> list[str]:
        """The command with its placeholders filled in ({port}, {host}, {root})."""
        values = {"port": str(self.port), "host": LOOPBACK, "root": str(root)}
        return [_fill(part, values) for part in self.command]

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"


def _fill(part: str, values: Mapping[str, str]) -> str:
    for name, value in values.items():
        part = part.replace("{" + name + "}", value)
    return part


def load_presets(path: Path) -> dict[str, Preset]:
    data = load_yaml(Path(path), "server presets")
    error = next(iter(jsonschema.Draft202012Validator(FILE_SCHEMA).iter_errors(data)), None)
    if error is not None:
        raise ConfigError(f"{path}: {describe_error(error)}")
    return {
        name: Preset(
            name=name,
            command=tuple(raw["command"]),
            port=raw["port"],
            profile=raw["profile"],
            ready_timeout_s=float(raw.get("ready_timeout_s", 600.0)),
            needs=raw.get("needs", ""),
            description=raw.get("description", ""),
        )
        for name, raw in data["servers"].items()
    }


def load_preset(path: Path, name: str) -> Preset:
    presets = load_presets(path)
    if name not in presets:
        raise ConfigError(
            f"unknown server preset {name!r}; {path} defines {', '.join(sorted(presets))}"
        )
    return presets[name]


def matching_profile(preset: Preset, models_file: Path) -> Profile:
    """The preset's profile, which must talk to the preset's own host and port."""
    profile = load_profile(models_file, preset.profile)
    parts = urlsplit(profile.base_url)
    if parts.hostname not in (LOOPBACK, "localhost") or parts.port != preset.port:
        raise ConfigError(
            f"server preset {preset.name!r} listens on {LOOPBACK}:{preset.port}, but profile "
            f"{profile.name!r} sends to {parts.hostname}:{parts.port}; make them agree"
        )
    return profile


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex((LOOPBACK, port)) == 0


def answers(url: str) -> bool:
    """Whether the server lists its models (every OpenAI-compatible server has /v1/models)."""
    try:
        with urllib.request.urlopen(f"{url}/v1/models", timeout=5) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-LOG_TAIL_LINES:])


@dataclass
class Running:
    preset: Preset
    process: subprocess.Popen[bytes]
    log: Path


def start(preset: Preset, root: Path, log: Path) -> Running:
    """Start the preset's server in a session of its own (so stopping it stops its children)."""
    if port_in_use(preset.port):
        raise MemshiftError(
            f"port {preset.port} is in use: a server already listens there (stop it, or run the "
            f"study against it with snakemake --config llm={preset.profile})"
        )
    argv = preset.argv(root)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        with log.open("ab") as out:
            process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=root
            )
    except OSError as exc:
        hint = f" ({preset.needs})" if preset.needs else ""
        raise MemshiftError(
            f"server preset {preset.name!r}: cannot start {argv[0]!r}: {exc.strerror}{hint}"
        ) from None
    return Running(preset, process, log)


def wait_ready(
    running: Running, say: Callable[[str], None], clock: Callable[[], float] = time.monotonic
) -> float:
    """Seconds until the server answered; fails at once if it exits, or after its timeout."""
    preset, began = running.preset, clock()
    said = began
    while True:
        if answers(preset.url):
            return clock() - began
        code = running.process.poll()
        if code is not None:
            raise MemshiftError(
                f"server {preset.name!r} exited with status {code} before it answered; the "
                f"end of its log ({running.log}):\n{_tail(running.log)}"
            )
        now = clock()
        if now - began > preset.ready_timeout_s:
            raise MemshiftError(
                f"server {preset.name!r} did not answer on {preset.url} within "
                f"{preset.ready_timeout_s:.0f} s; the end of its log ({running.log}):\n"
                f"{_tail(running.log)}"
            )
        if now - said >= PROGRESS_EVERY_S:
            say(f"waiting for {preset.name} on {preset.url} ({now - began:.0f} s)")
            said = now
        time.sleep(POLL_S)


def stop(running: Running) -> None:
    """SIGTERM to the server's process group, SIGKILL after a grace period."""
    process = running.process
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def serving(preset: Preset, root: Path, log: Path, say: Callable[[str], None]) -> Iterator[Running]:
    running = start(preset, root, log)
    say(f"started {preset.name} (pid {running.process.pid}), log {log}")
    try:
        waited = wait_ready(running, say)
        say(f"{preset.name} answers on {preset.url} after {waited:.0f} s")
        yield running
    finally:
        stop(running)
        say(f"stopped {preset.name}")


def study_argv(
    configfile: Path | None, profile: str, cores: str, extra: Sequence[str], dry_run: bool
) -> list[str]:
    """The snakemake command of the study, on the preset's profile. Snakemake keeps only the
    last `--config` it is given, so the profile joins a `--config` of `extra` if there is one."""
    argv = [sys.executable, "-m", "snakemake", "--cores", cores]
    if configfile is not None:
        argv += ["--configfile", str(configfile)]
    extra = list(extra)
    if "--config" in extra:
        extra.insert(extra.index("--config") + 1, f"llm={profile}")
    else:
        argv += ["--config", f"llm={profile}"]
    if dry_run:
        argv.append("-n")
    return [*argv, *extra]


def shown(argv: Sequence[str]) -> str:
    return shlex.join(argv)
