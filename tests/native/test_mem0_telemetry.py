"""Mem0 reads MEM0_TELEMETRY once, when it is imported, and then sends usage events to its
vendor: the adapter refuses a Mem0 that was imported with its telemetry on (whatever the
environment says by then), and imports it with it off. Each case runs in a process of its own,
so the import cannot reach other tests."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

BUILD = """
import os, sys
from pathlib import Path
{before}
from memshift.errors import MemshiftError
from memshift.native.mem0_memory import Mem0Memory
try:
    Mem0Memory(base_url="http://127.0.0.1:9/v1", model="m", embedder_model="e",
               embedding_dims=8, workdir=Path(sys.argv[1]))
except MemshiftError as exc:
    print("refused:", exc)
    raise SystemExit(0)
import mem0.memory.telemetry as telemetry
print("built, telemetry", telemetry.MEM0_TELEMETRY)
"""


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        # imported with the telemetry on, switched off only afterwards: refused
        ("import mem0\nos.environ['MEM0_TELEMETRY'] = 'false'", "refused: mem0 was imported with"),
        # left to the adapter: imported with it off
        ("", "built, telemetry False"),
    ],
)
def test_mem0_imported_with_its_telemetry_on_is_refused(tmp_path, before, expected):
    env = {k: v for k, v in os.environ.items() if k != "MEM0_TELEMETRY"}
    run = subprocess.run(
        [sys.executable, "-c", BUILD.format(before=before), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1].startswith(expected), run.stdout
