"""The README's quickstart, run as a new user runs it: each line of its code block, as written,
in a copy of the checkout, one after another; each must succeed, and the paths must leave what
the README says they do."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("Snakefile", "rules", "workflow", "profiles", "config", "envs", "examples")


def quickstart() -> list[str]:
    """The command lines of the README's quickstart block, comments left out."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the quickstart has a sh block"
    return [line for line in block[1].splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.newcomer
def test_the_quickstart_runs_as_written(tmp_path: Path):
    where = tmp_path / "checkout"
    where.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, where / name)
        else:
            shutil.copy(source, where / name)
    (where / ".venv").symlink_to(ROOT / ".venv")
    # a user's shell: the virtual environment not activated
    bin_dir = str(ROOT / ".venv" / "bin")
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != bin_dir)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    outputs = []
    for line in quickstart():
        done = subprocess.run(
            ["bash", "-c", line], cwd=where, capture_output=True, text=True,
            env={**env, "PATH": path}, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
        outputs.append(done.stdout + done.stderr)
    runs = where / "results" / "runs"
    report = (runs / "quickstart/h1/rules/report/report.md").read_text()
    assert "| mine |" in report  # the predictions, scored beside the study's own systems
    assert "| mine |" in (runs / "my-memory/h1/rules/report/report.md").read_text()
    assert any(out.startswith("memshift explain: world 1000, branch src") for out in outputs)
