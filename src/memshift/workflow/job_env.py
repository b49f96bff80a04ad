"""The environment the workflow's jobs start in: they run `memshift` by name, so the directory
of the running Python (a virtual environment's bin/, where `pip install` put `memshift` beside
`snakemake`) comes first on PATH, and `.venv/bin/snakemake` runs a study without the virtual
environment activated."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def own_bin_first() -> None:
    """Put the running Python's directory first on this process's PATH (once)."""
    beside = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != beside:
        os.environ["PATH"] = os.pathsep.join([beside, path]) if path else beside
