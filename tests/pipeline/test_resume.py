"""Killing a study mid-run and rerunning it: no half-written artifact, no completed model call
repeated (counted at a local OpenAI-compatible server), and the study finishes."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memshift.models.cache import ResponseCache
from memshift_tools.localserver import LocalServer, canned_answer, request_key
from pipeline.test_snakemake import (
    SNAKEMAKE,
    assert_verified,
    run_of,
    snakemake,
    workflow_copy,
)

STUDY = {
    "study": "resume",
    "results": "results",
    "llm": "local",
    "models": "models.yaml",
    "worlds": {"seeds": "1000", "history_months": 1},  # a short world: the kill is the point
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"]},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 50},
}


def cached_request_keys(cache: Path) -> set[str]:
    """The server-side identity of every call the pipeline completed (its cached body)."""
    store = ResponseCache(cache)
    return {request_key(store.components(key)["body"]) for key in store.stored_keys()}


def write_local_profile(where: Path, url: str, **settings: object) -> None:
    """models.yaml with one profile, `local`: the openai backend at the local server's url."""
    local = {
        "backend": "openai",
        "model": "local-model",
        "base_url": f"{url}/v1",
        "concurrency": 4,
        "timeout_s": 10.0,
        **settings,
    }
    (where / "models.yaml").write_text(yaml.safe_dump({"profiles": {"local": local}}))


@pytest.mark.studies
@pytest.mark.slow(minutes=1.2)
def test_a_killed_study_resumes_without_repeating_a_completed_call(tmp_path):
    where = workflow_copy(tmp_path / "study", STUDY)
    with LocalServer(canned_answer, latency=0.02) as server:
        write_local_profile(
            where,
            server.url,
            decoding={"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0},
        )
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
    assert (where / run_of(STUDY, "local") / "report/report.md").exists()
    assert_verified(where, run_of(STUDY, "local"))


SMALL_STUDY = {
    "study": "killed",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},  # a short world: the kill is the point
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"]},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 50},
}
PLAIN_RUN = [str(SNAKEMAKE), "--cores", "all"]  # the README's command (`make run`)


def partly_written(where: Path) -> list[str]:
    """Outputs of running jobs that are already on disk while their job is not finished (Snakemake
    marks a job's outputs incomplete under .snakemake/incomplete until the job ends)."""
    markers = where / ".snakemake/incomplete"
    found = []
    for marker in markers.glob("*") if markers.is_dir() else ():
        try:
            output = base64.urlsafe_b64decode(marker.name).decode()
        except ValueError:
            continue
        if (where / output).is_file():
            found.append(output)
    return found


@pytest.mark.studies
@pytest.mark.slow(minutes=0.6)
def test_a_study_killed_mid_job_finishes_with_the_plain_command(tmp_path):
    """SIGKILL to Snakemake's process group while a job has written some of its outputs, then
    `snakemake --cores all` again, with no --unlock and no --rerun-incomplete: the default
    profile and the Snakefile's stale-lock check make it finish."""
    where = workflow_copy(tmp_path / "study", SMALL_STUDY)
    (where / "config/config.yaml").write_text(yaml.safe_dump(SMALL_STUDY))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.Popen(
        PLAIN_RUN,
        cwd=where,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(where / "first.log").open("w"),
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    partial: list[str] = []
    while not partial and time.monotonic() < deadline:
        assert first.poll() is None, (where / "first.log").read_text()[-3000:]
        partial = partly_written(where)
        time.sleep(0.01)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert partial, "no job was caught with part of its outputs written"
    assert list((where / ".snakemake/locks").glob("*.lock")), "the killed run left no lock"
    second = subprocess.run(
        PLAIN_RUN, cwd=where, env=env, capture_output=True, text=True, check=False
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert "Using workflow specific profile profiles/default" in second.stderr
    assert (where / run_of(SMALL_STUDY) / "report/report.md").exists()
    assert_verified(where, run_of(SMALL_STUDY))


@pytest.mark.slow(minutes=0.15)
def test_a_running_studys_lock_still_stops_a_second_run(tmp_path):
    """The stale-lock check removes only a dead run's lock: while a study runs, a second plain
    `snakemake` in the same directory is refused as before."""
    where = workflow_copy(tmp_path / "study", SMALL_STUDY)
    (where / "config/config.yaml").write_text(yaml.safe_dump(SMALL_STUDY))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.Popen(
        PLAIN_RUN,
        cwd=where,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        # a job's log under results/ means Snakemake has written its lock lists whole (a list
        # seen while it is still being written would lock nothing)
        while not (
            list((where / ".snakemake/locks").glob("*.lock"))
            and list((where / "results").rglob("*.log"))
        ):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # held still (alive, lock kept) so that a slow start of the second run cannot outlast it
        os.killpg(first.pid, signal.SIGSTOP)
        second = subprocess.run(
            PLAIN_RUN, cwd=where, env=env, capture_output=True, text=True, check=False
        )
        assert first.poll() is None, "the first run ended before the second was refused"
        assert second.returncode != 0
        assert "Directory cannot be locked" in second.stdout + second.stderr
        assert list((where / ".snakemake/locks").glob("*.lock"))
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
