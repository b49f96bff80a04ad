"""Killing a study mid-run and rerunning it: no half-written artifact, no completed model call
repeated (counted at a local OpenAI-compatible server), and the study finishes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from memshift.models.cache import ResponseCache
from memshift.models.localserver import LocalServer, canned_answer, request_key
from pipeline.test_snakemake import SNAKEMAKE, assert_verified, snakemake, workflow_copy

STUDY = {
    "study": "resume",
    "results": "results",
    "llm": "local",
    "models": "models.yaml",
    "worlds": {"seeds": "1000", "history_months": 9},
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"]},
        "baselines": ["bm25"],
        "answer_audit": [],
    },
    "report": {"draws": 50},
}


def cached_request_keys(cache: Path) -> set[str]:
    """The server-side identity of every call the pipeline completed (its cached body)."""
    store = ResponseCache(cache)
    return {request_key(store.components(key)["body"]) for key in store.stored_keys()}


@pytest.mark.slow
def test_a_killed_study_resumes_without_repeating_a_completed_call(tmp_path):
    where = workflow_copy(tmp_path / "study", STUDY)
    with LocalServer(canned_answer, latency=0.02) as server:
        profiles = {
            "profiles": {
                "local": {
                    "backend": "openai",
                    "model": "local-model",
                    "base_url": f"{server.url}/v1",
                    "concurrency": 4,
                    "timeout_s": 10.0,
                    "decoding": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0},
                }
            }
        }
        (where / "models.yaml").write_text(yaml.safe_dump(profiles))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(os.sys.path)}
        first = subprocess.Popen(
            [str(SNAKEMAKE), "--configfile", "study.yaml", "--cores", "2"],
            cwd=where,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(where / "first.log").open("w"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and sum(server.stats()["ok"].values()) < 120:
            assert first.poll() is None, (where / "first.log").read_text()[-3000:]
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        cache = where / "results/cache/llm"
        completed = cached_request_keys(cache)
        assert len(completed) >= 100, "the kill came too late or too early to test anything"
        assert not list((where / "results").rglob("*.tmp")), "a half-written file survived"
        server.reset()
        assert snakemake(where, "--unlock").returncode == 0
        second = snakemake(where)
        assert second.returncode == 0, second.stderr[-3000:]
        asked_again = set(server.stats()["keys"])
    assert not completed & asked_again, "a completed call was made again"
    assert asked_again, "the rerun should still have had calls to make"
    assert (where / "results/runs/local/report/report.md").exists()
    assert_verified(where, "local")
