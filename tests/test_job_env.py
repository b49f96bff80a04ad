"""The jobs find the `memshift` installed beside the running Snakemake, venv activated or not."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memshift.workflow.job_env import own_bin_first


def test_the_running_pythons_directory_comes_first_once(monkeypatch):
    beside = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin"]))
    own_bin_first()
    own_bin_first()
    assert os.environ["PATH"].split(os.pathsep) == [beside, "/usr/bin", "/bin"]
    monkeypatch.delenv("PATH")
    own_bin_first()
    assert os.environ["PATH"] == beside
