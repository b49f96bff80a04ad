"""The memshift command as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq


def memshift(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memshift.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_stages_write_their_artifacts(tmp_path):
    world_dir = tmp_path / "w3"
    assert memshift("world", "--seed", "3", "--out", str(world_dir)).returncode == 0
    for stage in ("branches", "gold", "probes"):
        # named out of order: del's gold reads none's, which the command makes first
        run = memshift(stage, "--world-dir", str(world_dir), "--branch", "del", "--branch", "none")
        assert run.returncode == 0, run.stderr
        assert [line.split()[1].rstrip(":") for line in run.stderr.splitlines()] == ["none", "del"]
    run = memshift("manifest", "--world-dir", str(world_dir), "--branches", "none,del")
    assert run.returncode == 0, run.stderr
    probes = pq.read_table(world_dir / "probes-del.parquet")
    assert probes.num_rows > 48
    assert (world_dir / "manifest.json").exists()


def one_line_error(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode != 0
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    return lines[-1]


def test_unknown_branch_lists_the_choices(tmp_path):
    line = one_line_error(memshift("gold", "--world-dir", str(tmp_path), "--branch", "bogus"))
    assert "'bogus' is not one of 'none', 'src', 'def', 'del', 'cons', 'conflict'" in line


def test_bad_seed_range_is_named():
    line = one_line_error(memshift("stats", "--seeds", "1000:1019"))
    assert "'1000:1019' is not a seed, a range 'A-B' or a split name" in line


def test_a_missing_world_is_an_error_not_a_traceback(tmp_path):
    run = memshift("branches", "--world-dir", str(tmp_path / "nowhere"), "--branch", "src")
    assert run.returncode == 2
    assert run.stderr.strip().startswith("memshift: error: missing artifact")
    assert "Traceback" not in run.stderr
