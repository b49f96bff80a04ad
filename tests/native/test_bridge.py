"""The process of a library in its own environment (`native/bridge.py`, `native/bridges/loop.py`):
what the library raises is a failed call and serving goes on; what breaks the protocol (a dead
process, a reply too long, not JSON, out of protocol) stops the job naming the library with its
stderr; the library's own printing cannot reach the protocol; nothing of the caller's environment
reaches the library; a configured python is run as a program, never through a shell.

Each test runs a real process with memshift's own Python and a bridge module written here: the
library is what it fakes, the loop and the protocol are the real ones."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from memshift.errors import MemshiftError
from memshift.native.bridge import (
    BRIDGES,
    MAX_REPLY,
    Bridge,
    LibraryFailure,
    base_environment,
    environment_python,
)

FAKE = """
import os
import sys
import time

from .loop import protocol_stream, serve


def echo(*, text):
    return text


def fail(*, why):
    raise RuntimeError(why)


def chatty(*, text):
    print("a library printing to stdout", text)
    os.write(1, b"and C code writing to fd 1\\n")
    return text


def environment():
    return sorted(os.environ)


def unix_socket():
    from multiprocessing.connection import Listener

    listener = Listener(family="AF_UNIX")
    listener.close()
    return os.environ["TMPDIR"]


def interpreter():
    return {
        "hash_seeded": not sys.flags.hash_randomization,
        "user_site": not sys.flags.no_user_site,
        "working_folder_importable": "" in sys.path or os.getcwd() in sys.path,
        "hash": hash("memshift"),
    }


def hang():
    sys.stderr.write("waiting for a server that never answers\\n")
    sys.stderr.flush()
    time.sleep(3600)


def die():
    sys.stderr.write("the library's last words\\n")
    sys.stderr.flush()
    os._exit(3)


def huge(*, size):
    stream = STREAM[0]
    stream.write("x" * size)
    stream.flush()


def garbage(*, line):
    stream = STREAM[0]
    stream.write(line + "\\n")
    stream.flush()


STREAM = []
CLOSE = hang if os.environ.get("HANG_ON_CLOSE") else (lambda: None)


def main():
    STREAM.append(protocol_stream())
    serve({"echo": echo, "fail": fail, "chatty": chatty, "environment": environment,
           "interpreter": interpreter, "unix_socket": unix_socket, "die": die, "huge": huge,
           "garbage": garbage, "hang": hang, "close": CLOSE}, STREAM[0])
"""


def fake_bridge(tmp_path: Path, **options: Any) -> Bridge:
    folder = tmp_path / "bridges"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(BRIDGES / "__init__.py", folder)
    shutil.copy(BRIDGES / "loop.py", folder)
    (folder / "fake.py").write_text(textwrap.dedent(FAKE))
    env = {**base_environment(tmp_path / "work"), **options.pop("env", {})}
    return Bridge(Path(sys.executable), "fake", env, tmp_path, folder, **options)


@pytest.fixture
def bridge(tmp_path):
    os.environ["MEMSHIFT_TEST_SECRET"] = "sk-should-not-pass"
    try:
        made = fake_bridge(tmp_path)
        yield made
        made.close(timeout_s=10)
    finally:
        del os.environ["MEMSHIFT_TEST_SECRET"]


def test_a_library_failure_is_a_failed_call_and_serving_goes_on(bridge):
    assert bridge.call("echo", text="héllo\u2028") == "héllo\u2028"
    with pytest.raises(LibraryFailure, match="RuntimeError: the server said no"):
        bridge.call("fail", why="the server said no")
    assert bridge.call("echo", text="still here") == "still here"


def test_the_librarys_printing_never_reaches_the_protocol(bridge):
    assert bridge.call("chatty", text="one") == "one"
    assert bridge.call("echo", text="two") == "two"
    assert any("a library printing to stdout one" in line for line in bridge.stderr)


def test_nothing_of_the_callers_environment_reaches_the_library(bridge):
    found = bridge.call("environment")
    assert "MEMSHIFT_TEST_SECRET" not in found and "OPENAI_API_KEY" not in found
    assert {"HOME", "TMPDIR", "PATH"} <= set(found)


def test_the_library_hashes_the_same_on_every_run_and_imports_nothing_of_the_user_or_cwd(tmp_path):
    runs = []
    for k in range(2):
        made = fake_bridge(tmp_path / str(k))
        runs.append(made.call("interpreter"))
        made.close(timeout_s=10)
    assert runs[0] == runs[1]
    assert runs[0]["hash_seeded"] and not runs[0]["user_site"]
    assert not runs[0]["working_folder_importable"]


def test_a_library_binds_a_unix_socket_however_long_the_scratch_folder(tmp_path):
    """A Unix socket's path holds 107 bytes; a library that starts a multiprocessing manager
    (HippoRAG, on import) binds one under TMPDIR, which a deep scratch folder would overflow."""
    deep = tmp_path / ("scratch-" * 12)
    made = fake_bridge(deep)
    try:
        tmp = made.call("unix_socket")
        assert len(tmp) <= 64 and Path(tmp).is_dir()
    finally:
        made.close(timeout_s=10)
    assert not Path(tmp).exists()
    # a short scratch folder is the library's as it is, and is left in place
    short = tempfile.mkdtemp(prefix="b-", dir="/tmp")
    try:
        shallow = fake_bridge(tmp_path / "s", env={"TMPDIR": short})
        try:
            assert shallow.call("unix_socket") == short
        finally:
            shallow.close(timeout_s=10)
        assert Path(short).is_dir()
    finally:
        shutil.rmtree(short)


def test_a_process_that_dies_stops_the_job_with_its_last_words(bridge):
    with pytest.raises(MemshiftError, match=r"(?s)fake process ended during die.*last words"):
        bridge.call("die")


def test_a_library_that_hangs_is_stopped_and_stops_the_job_with_its_last_words(tmp_path):
    hung = fake_bridge(tmp_path, reply_timeout_s=1)
    assert hung.call("echo", text="answers first") == "answers first"
    with pytest.raises(
        MemshiftError,
        match=r"(?s)fake process gave no reply to hang within 1 s.*never answers",
    ):
        hung.call("hang")
    assert hung.process.poll() is not None
    hung.close(timeout_s=10)


def test_a_library_that_hangs_on_closing_is_killed(tmp_path, capsys):
    hung = fake_bridge(tmp_path, env={"HANG_ON_CLOSE": "1"})
    assert hung.call("echo", text="served") == "served"
    hung.close(timeout_s=1)
    assert hung.process.poll() is not None
    assert "gave no reply to close within 1 s" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("op", "arguments", "problem"),
    [
        ("huge", {"size": MAX_REPLY + 10}, "longer than"),
        ("garbage", {"line": "not json at all"}, "not bounded JSON"),
        ("garbage", {"line": "[" * 5000 + "]" * 5000}, "not bounded JSON"),
        ("garbage", {"line": '{"ok": 1, "failed": "x"}'}, "out of protocol"),
        ("garbage", {"line": '{"failed": {"not": "a message"}}'}, "refused"),
        ("nonsense", {}, "refused nonsense"),
    ],
)
def test_a_reply_out_of_protocol_stops_the_job(bridge, op, arguments, problem):
    with pytest.raises(MemshiftError, match=problem):
        bridge.call(op, **arguments)


@pytest.mark.parametrize("configured", ["/nowhere/bin/python; rm -rf /", "/tmp/$(touch pwned)"])
def test_a_configured_python_that_is_no_file_is_refused_and_never_run_by_a_shell(
    tmp_path, monkeypatch, configured
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MemshiftError, match="memos: no environment of its own at"):
        environment_python("memos", configured)
    assert not (tmp_path / "pwned").exists() and not Path("/tmp/pwned").exists()


def test_a_missing_environment_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr("memshift.native.bridge.ENVIRONMENTS", tmp_path)
    with pytest.raises(MemshiftError, match=r"environments/native.sh cognee"):
        environment_python("cognee")
