"""The operating system's layers around a worker, tried by programs that have got round the
allow-list.

Each attack runs in a real worker, confined as every worker is, but with the allow-list switched
off and every builtin there (os, socket, resource and ctypes already imported): what stands in
the way is only the layers that `confine` set up. In a worker without them (the code before the
layers) every attack here succeeds. An attack on a layer the kernel did not grant is skipped,
with the worker's own note on why.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from memshift.sandbox import ProgramResult, Sandbox, pool
from memshift.sandbox.confine import Layer

SRC = Path(pool.__file__).resolve().parents[2]
AS_OF = "2026-03-01 12:00"
LAYER_NAMES = [
    "allow-list", "worker memory", "no root", "namespaces", "no network", "empty filesystem",
    "resource limits", "no processes",
]  # fmt: skip
ESCAPED_BOOT = (
    "import sys, builtins, ctypes, os, resource, signal, socket\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from memshift.sandbox import worker\n"
    "worker.prepare = lambda code: compile(code, '<program>', 'exec')\n"
    "worker.SAFE_BUILTINS = vars(builtins)\n"
    "worker.serve_worker(int(sys.argv[2]))\n"
)
# Modules the boot imported, so an attack needs no file to import them.
IMPORTS = "import ctypes, os, resource, signal, socket\n"
# The simplest way in: a descriptor given up is a number under the limit for a socket or a file.
FREE_A_DESCRIPTOR = "os.close(0)\n"


def escaped_command(growth_mb: int) -> list[str]:
    return [sys.executable, "-S", "-s", "-B", "-c", ESCAPED_BOOT, str(SRC), str(growth_mb)]


@pytest.fixture
def escaped(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    monkeypatch.setattr(pool, "_worker_command", escaped_command)
    with Sandbox(workers=1) as box:
        yield box


def require(box: Sandbox, *names: str) -> None:
    layers = {layer.name: layer for layer in box.layers()}
    for name in names:
        if not layers[name].active:
            pytest.skip(f"the {name} layer is not in force here: {layers[name].note}")


def attack(box: Sandbox, body: str, **limits: float) -> ProgramResult:
    text = textwrap.indent(IMPORTS + textwrap.dedent(body).strip("\n"), "    ")
    code = f"def derive(records, as_of):\n{text}\n"
    return box.run_programs([(code, [], AS_OF)], **limits)[0]


def outcomes(result: ProgramResult) -> list[str]:
    assert result.ok, result.detail
    assert isinstance(result.value, list)
    return result.value


TRY = """
def attempt(step):
    try:
        step()
    except OSError as error:
        return error.strerror
    return 'done'
"""


def test_the_escaped_worker_runs_what_the_allow_list_refuses(escaped: Sandbox):
    result = attack(escaped, "import os\nreturn [str(os.getpid() > 0)]")
    assert result == ProgramResult(["True"])


def test_an_escaped_program_cannot_reach_the_network(escaped: Sandbox):
    require(escaped, "no network")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        body = (
            FREE_A_DESCRIPTOR
            + TRY
            + (
                "def connect(address):\n"
                "    with socket.socket() as s:\n"
                "        s.settimeout(2)\n"
                "        s.connect(address)\n"
                f"return [attempt(lambda: connect(a)) for a in [('127.0.0.1', {port}), "
                "('1.1.1.1', 53)]]"
            )
        )
        result = outcomes(attack(escaped, body))
        listener.settimeout(0.2)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert result == ["Network is unreachable"] * 2


def test_an_escaped_program_cannot_create_change_or_delete_a_file(escaped: Sandbox, tmp_path: Path):
    require(escaped, "empty filesystem")
    victim, marker = tmp_path / "victim.txt", tmp_path / "marker"
    victim.write_text("kept")
    body = (
        FREE_A_DESCRIPTOR
        + TRY
        + (
            f"victim, marker = {str(victim)!r}, {str(marker)!r}\n"
            "return [\n"
            "    attempt(lambda: open(marker, 'w').write('x')),\n"
            "    attempt(lambda: open(victim, 'w').write('x')),\n"
            "    attempt(lambda: os.truncate(victim, 0)),\n"
            "    attempt(lambda: os.rename(victim, marker)),\n"
            "    attempt(lambda: os.remove(victim)),\n"
            "]"
        )
    )
    assert outcomes(attack(escaped, body)) == ["No such file or directory"] * 5
    assert not marker.exists()
    assert victim.read_text() == "kept"


def test_an_escaped_program_cannot_read_the_machines_files(escaped: Sandbox, tmp_path: Path):
    require(escaped, "empty filesystem")
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2")
    body = (
        FREE_A_DESCRIPTOR
        + TRY
        + (
            f"found = [attempt(lambda: open(p).read()) for p in [{str(secret)!r}, '/etc/passwd']]\n"
            "return [*found, str(os.listdir('/')), str(os.listdir('/..'))]"
        )
    )
    assert outcomes(attack(escaped, body)) == ["No such file or directory"] * 2 + ["[]"] * 2


def test_an_escaped_program_cannot_climb_out_of_the_empty_root(escaped: Sandbox):
    require(escaped, "empty filesystem")
    body = TRY + (
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def remount():\n"
        "    if libc.mount(None, b'/', None, 32, None) != 0:  # MS_REMOUNT, writable\n"
        "        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))\n"
        "return [attempt(remount), attempt(lambda: os.mkdir('/up')), "
        "attempt(lambda: os.chroot('/'))]"
    )
    assert outcomes(attack(escaped, body)) == [
        "Operation not permitted",
        "Read-only file system",
        "Operation not permitted",
    ]


def test_an_escaped_program_cannot_start_a_process(escaped: Sandbox):
    require(escaped, "no processes")
    body = TRY + (
        "def fork():\n"
        "    if os.fork() == 0:\n"
        "        os._exit(0)\n"
        "return [attempt(fork), attempt(lambda: os.posix_spawn('/bin/sh', ['sh'], {}))]"
    )
    assert outcomes(attack(escaped, body)) == ["Resource temporarily unavailable"] * 2


def test_an_escaped_program_cannot_signal_the_pipelines_processes(escaped: Sandbox):
    require(escaped, "no root")
    if os.geteuid() != 0:
        pytest.skip("the worker runs as the tests' own user, which may signal its own processes")
    with subprocess.Popen(["sleep", "60"]) as bystander:
        body = TRY + (
            f"return [attempt(lambda: os.kill({bystander.pid}, signal.SIGKILL)), "
            "attempt(lambda: os.kill(os.getppid(), 0))]"
        )
        result = outcomes(attack(escaped, body))
        alive = bystander.poll() is None
        bystander.kill()
    assert result == ["Operation not permitted"] * 2
    assert alive


def test_an_escaped_program_cannot_lift_the_memory_ceiling(escaped: Sandbox):
    require(escaped, "resource limits")
    body = (
        "soft, hard = resource.getrlimit(resource.RLIMIT_AS)\n"
        "try:\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (-1, -1))\n"
        "    lifted = 'lifted'\n"
        "except ValueError as error:\n"
        "    lifted = str(error)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (hard, hard))\n"
        "try:\n"
        "    block = bytearray(2 << 30)\n"
        "    allocated = 'allocated'\n"
        "except MemoryError:\n"
        "    allocated = 'MemoryError'\n"
        "return [lifted, allocated, str(hard < 2 << 30)]"
    )
    result = outcomes(attack(escaped, body))
    assert result == ["not allowed to raise maximum limit", "MemoryError", "True"]


def test_an_escaped_program_cannot_raise_any_hard_limit(escaped: Sandbox):
    require(escaped, "resource limits")
    names = ["RLIMIT_AS", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CORE"]
    body = (
        "refused = []\n"
        f"for name in {names!r}:\n"
        "    limit = getattr(resource, name)\n"
        "    soft, hard = resource.getrlimit(limit)\n"
        "    try:\n"
        "        resource.setrlimit(limit, (hard + 1, hard + 1))\n"
        "        refused.append(name + ' raised')\n"
        "    except ValueError as error:\n"
        "        refused.append(str(error))\n"
        "return refused"
    )
    assert outcomes(attack(escaped, body)) == ["not allowed to raise maximum limit"] * len(names)


def test_an_escaped_program_gets_no_new_file_descriptor(escaped: Sandbox):
    require(escaped, "resource limits")
    body = (
        "opened = 0\n"
        "while opened < 100_000:\n"
        "    try:\n"
        "        os.dup(1)\n"
        "    except OSError as error:\n"
        "        return [str(opened), error.strerror]\n"
        "    opened += 1\n"
        "return [str(opened), 'no limit']"
    )
    assert outcomes(attack(escaped, body)) == ["0", "Too many open files"]


def test_an_escaped_program_cannot_write_file_content_even_in_memory(escaped: Sandbox):
    require(escaped, "resource limits")
    body = (
        FREE_A_DESCRIPTOR
        + TRY
        + (
            "fd = os.memfd_create('hidden')\n"
            "return [attempt(lambda: os.write(fd, b'x' * 4096)), str(os.fstat(fd).st_size)]"
        )
    )
    assert outcomes(attack(escaped, body)) == ["File too large", "0"]


def test_the_worker_reports_every_layer_and_the_docs_describe_each():
    with Sandbox(workers=1) as box:
        layers = box.layers()
    assert [layer.name for layer in layers] == LAYER_NAMES
    assert all(layer.note for layer in layers)
    assert all(layer.active for layer in layers if layer.name in ("allow-list", "worker memory"))
    page = (SRC.parent / "docs" / "sandbox.md").read_text()
    assert all(f"`{name}`" in page for name in LAYER_NAMES)
    assert "docs/sandbox.md" in (SRC.parent / "README.md").read_text()


THREADED_BOOT = (
    "import sys, threading, time\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
    "from memshift.sandbox.worker import serve_worker\n"
    "serve_worker(int(sys.argv[2]))\n"
)


def threaded_command(growth_mb: int) -> list[str]:
    return [sys.executable, "-S", "-s", "-B", "-c", THREADED_BOOT, str(SRC), str(growth_mb)]


def test_a_layer_the_kernel_refuses_is_reported_and_warned_about(monkeypatch: pytest.MonkeyPatch):
    # The kernel refuses a new user namespace to a process with more than one thread.
    monkeypatch.setattr(pool, "_worker_command", threaded_command)
    with Sandbox(workers=1) as box:
        with pytest.warns(RuntimeWarning, match="namespaces .*Invalid argument"):
            layers: dict[str, Layer] = {layer.name: layer for layer in box.layers()}
        assert not layers["namespaces"].active
        assert "Invalid argument" in layers["namespaces"].note
        assert not layers["no network"].active
        assert not layers["empty filesystem"].active
        assert layers["resource limits"].active
        legit = "def derive(records, as_of):\n    return str(len(records))\n"
        assert box.run_programs([(legit, [{}], AS_OF)]) == [ProgramResult("1")]
