"""A study with Mem0 in it (`systems.native`), run by Snakemake from the world to the report
against the local server's scripted stand-in (`make test-native`, which the CI runs after `make
test`): the default Mem0 and Mem0 with both of the paper's interventions, scored, reported and
with a row in the inference of (D,B). It tests the plumbing, never Mem0's quality."""

from __future__ import annotations

import importlib.util
import subprocess

import pytest
import yaml

if importlib.util.find_spec("mem0") is None:
    pytest.skip(
        "the native extra is not installed: pip install -e .[native]", allow_module_level=True
    )

from test_snakemake import ROOT, SNAKEMAKE, job_env, workflow_copy

from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import STAND_IN_EMBEDDER, any_library, stand_in_profile

pytestmark = pytest.mark.native_full


def test_a_study_with_mem0_runs_from_the_world_to_the_report(tmp_path):
    with LocalServer(any_library) as server:
        models = yaml.safe_load((ROOT / "config/models.yaml").read_text())
        models["profiles"]["stand-in"] = stand_in_profile(f"{server.url}/v1")
        library = {"profile": "stand-in", **STAND_IN_EMBEDDER}
        where = workflow_copy(
            tmp_path / "flow",
            {
                "study": "native",
                "results": "results",
                "models": "models.yaml",
                "worlds": {"seeds": "1000", "history_months": 1},
                "branches": ["none", "src", "del"],
                "systems": {
                    "holdmem": {"detections": ["source"], "repairs": ["0", "1"]},
                    "baselines": ["bm25"],
                    "answer_audit": [],
                    "unshifted_all_items": [],
                    "native": {
                        "mem0": {"library": "mem0", **library},
                        "mem0-both": {
                            "library": "mem0",
                            **library,
                            "invalidate": "source",
                            "program_view": True,
                        },
                    },
                },
            },
        )
        (where / "models.yaml").write_text(yaml.safe_dump(models))
        run = subprocess.run(
            [str(SNAKEMAKE), "--configfile", "study.yaml", "--cores", "2"],
            cwd=where,
            capture_output=True,
            text=True,
            env=job_env(),
            check=False,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        calls = server.stats()["paths"]
    run_dir = where / "results/runs/native/h1/rules"
    report = (run_dir / "report/report.md").read_text()
    for system in ("mem0", "mem0-both"):
        assert f"| {system} |" in report
        for branch in ("none", "src", "del"):
            failures = run_dir / f"w1000/{branch}/{system}/native-failures.parquet"
            assert failures.exists()
    assert calls["/v1/chat/completions"] > 0 and calls["/v1/embeddings"] > 0
    # the inference of (D,B) from behaviour has a row for each native system
    inferred = report.split("## Settings inferred from behaviour", 1)[1].split("\n## ", 1)[0]
    assert "| mem0 |" in inferred and "| mem0-both |" in inferred
