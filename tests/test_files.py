"""Written files get the permissions a plain open() gives (0666 less the umask), so colleagues
sharing a project directory can read results."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from memshift.artifacts import write_atomically, write_json, write_table, write_text
from memshift.models.cache import CachedReply, ResponseCache
from memshift.models.calllog import CallLog
from memshift.retrieval.embeddings import EmbeddingCache

UMASKS = (0o022, 0o007)


@pytest.fixture(params=UMASKS, ids=lambda u: f"umask{u:03o}")
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    before = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def as_open_would(umask: int) -> int:
    return 0o666 & ~umask


class Tiny:
    name = "tiny"

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), np.float32)


WRITERS: dict[str, Callable[[Path], Path]] = {
    "write_text": lambda d: (write_text("x\n", d / "a.md"), d / "a.md")[1],
    "write_json": lambda d: (write_json({"a": 1}, d / "a.json"), d / "a.json")[1],
    "write_table": lambda d: (
        write_table(
            pa.table({"a": pa.array([1], pa.int64())}),
            pa.schema([("a", pa.int64())]),
            d / "t.parquet",
        ),
        d / "t.parquet",
    )[1],
    "write_atomically": lambda d: (
        write_atomically(d / "b.bin", lambda tmp: tmp.write_bytes(b"1")),
        d / "b.bin",
    )[1],
    "call log": lambda d: (CallLog().write(d / "calls.parquet"), d / "calls.parquet")[1],
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_an_artifact_gets_the_mode_open_would_give_it(tmp_path, umask, writer):
    path = WRITERS[writer](tmp_path)
    assert mode(path) == as_open_would(umask), oct(mode(path))


def test_a_replaced_artifact_gets_the_mode_too(tmp_path, umask):
    path = tmp_path / "a.md"
    path.write_text("old")
    path.chmod(0o600)
    write_text("new", path)
    assert mode(path) == as_open_would(umask)


def test_embedding_vectors_get_the_mode_open_would_give_them(tmp_path, umask):
    cache = EmbeddingCache(tmp_path, Tiny())
    cache.embed_many(["text"])
    [written] = list(tmp_path.glob("*.npz"))
    assert mode(written) == as_open_would(umask)


def test_response_cache_packs_get_the_mode_open_would_give_them(tmp_path, umask):
    cache = ResponseCache(tmp_path)
    cache.put("0" * 64, {"backend": "rules"}, "{}", CachedReply("hi", "stop", 1, 1))
    cache.close()
    packs = list((tmp_path / "packs").iterdir())
    assert packs and all(mode(p) == as_open_would(umask) for p in packs)


def test_a_stage_run_as_a_command_honours_the_umask(tmp_path):
    """The world stage from the command line under umask 027: the group can read."""
    run = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "world", "--seed", "3", "--out", "w3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: os.umask(0o027),
    )
    assert run.returncode == 0, run.stderr
    files = sorted((tmp_path / "w3").iterdir())
    assert files and {mode(p) for p in files} == {0o640}
