"""The model client against a real HTTP server on loopback, through the official clients."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from batchwork import all_requests, openai_profile, reader_batch

from memshift.errors import ConfigError
from memshift.models import prompts
from memshift.models.cache import ResponseCache
from memshift.models.client import ModelClient
from memshift.models.client import request_key as client_key
from memshift.models.openai_backend import request_body
from memshift.models.profiles import Profile
from memshift.models.reply_schemas import SCHEMAS
from memshift.simulator.backend import RulesBackend
from memshift_tools.book import RequestBook
from memshift_tools.localserver import FaultRule, LocalServer, request_key

FAST = {"max_attempts": 4, "timeout_s": 2.0}


@pytest.fixture(scope="module")
def requests():
    return all_requests(20)


@pytest.fixture(scope="module")
def expected(requests):
    rules = RulesBackend(Profile("rules", "rules"))
    return [rules.answer(r) for r in requests]


@pytest.fixture
def server(requests):
    with LocalServer(RequestBook(requests).answer) as running:
        yield running


def anthropic_profile(url: str, structured: str = "json_schema") -> Profile:
    return Profile("claude-local", "anthropic", model="claude-local", base_url=url, concurrency=8,
                   timeout_s=5.0, structured=structured, decoding={"max_tokens": 512},
                   thinking={"type": "disabled"})  # fmt: skip


def test_replies_through_openai_equal_the_rules_backend_and_a_rerun_makes_no_call(
    server, requests, expected, tmp_path
):
    client = ModelClient(openai_profile(server.url), cache_dir=tmp_path)
    first = client.generate(requests)
    assert [r.value for r in first] == expected
    assert all(r.ok and not r.cache_hit and r.attempts == 1 for r in first)
    calls = server.stats()["requests"]
    assert calls == len(requests)
    assert server.stats()["last_extra"]["chat_template_kwargs"] == {"enable_thinking": False}
    again = ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(requests)
    assert server.stats()["requests"] == calls
    assert [r.value for r in again] == expected and all(r.cache_hit for r in again)
    assert len(client.log) == len(requests)
    client.log.write(tmp_path / "calls.parquet")
    rows = pq.read_table(tmp_path / "calls.parquet").to_pylist()
    assert [r["role"] for r in rows] == [r.role for r in requests]
    assert all(r["backend"] == "openai" and not r["cache_hit"] and r["failure"] is None
               for r in rows)  # fmt: skip
    assert all(r["tokens_in"] > 0 and r["latency_ms"] > 0 for r in rows)


def test_a_batch_takes_in_what_another_job_cached_since_it_last_looked(server, requests, tmp_path):
    job = ModelClient(openai_profile(server.url), cache_dir=tmp_path)
    job.generate(requests[:2])
    ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(requests[2:6])
    calls = server.stats()["requests"]
    again = job.generate(requests[:6])
    assert all(r.cache_hit for r in again)
    assert server.stats()["requests"] == calls


@pytest.mark.parametrize("concurrency", [1, 3])
def test_no_more_requests_are_in_flight_than_the_profile_allows(requests, concurrency):
    with LocalServer(RequestBook(requests).answer, latency=0.03) as slow:
        replies = ModelClient(openai_profile(slow.url, concurrency=concurrency)).generate(
            requests[:12]
        )
        stats = slow.stats()
    assert all(r.ok for r in replies)
    assert (stats["requests"], stats["most_in_flight"]) == (12, concurrency)


def test_cache_explain_names_why_a_call_missed(server, requests, tmp_path):
    first = ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(requests[:1])
    warmer = openai_profile(server.url, decoding={**openai_profile("").decoding, "top_p": 0.5})
    second = ModelClient(warmer, cache_dir=tmp_path).generate(requests[:1])
    assert not second[0].cache_hit and first[0].cache_key != second[0].cache_key
    run = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "cache", "explain", first[0].cache_key,
         second[0].cache_key, "--cache-dir", str(tmp_path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert run.stdout.strip() == "body.top_p: 1.0 != 0.5"


@pytest.mark.parametrize("structured", ["json_schema", "tool"])
def test_anthropic_structured_output_and_tool_fallback(server, requests, expected, structured):
    replies = ModelClient(anthropic_profile(server.url, structured)).generate(requests)
    assert [r.value for r in replies] == expected
    assert server.stats()["paths"] == {"/v1/messages": len(requests)}


@pytest.mark.parametrize(
    ("rule", "attempts"),
    [
        (FaultRule("rate_limit", attempts=2, retry_after=0.05), 3),
        (FaultRule("server_error", attempts=1), 2),
        (FaultRule("drop_connection", attempts=1), 2),
        (FaultRule("slow", attempts=1, delay=3.0), 2),
    ],
)
def test_transient_faults_end_in_the_right_reply_after_retries(server, requests, expected, rule,
                                                               attempts):  # fmt: skip
    server.set_faults([rule])
    profile = openai_profile(server.url, **FAST)
    start = time.monotonic()
    replies = ModelClient(profile).generate(requests[:6])
    assert [r.value for r in replies] == expected[:6]
    assert all(r.attempts == attempts for r in replies)
    assert time.monotonic() - start < 30


@pytest.mark.parametrize(
    ("kind", "failure"),
    [
        ("truncated", "truncated"),
        ("invalid_json", "invalid_json"),
        ("empty", "empty_content"),
        ("ignore_schema", "schema_violation"),
        ("refusal", "refusal"),
    ],
)
@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_bad_replies_are_recorded_failures_never_cached(server, requests, expected, tmp_path,
                                                        kind, failure, backend):  # fmt: skip
    server.set_faults([FaultRule(kind, attempts=1)])
    profile = openai_profile(server.url) if backend == "openai" else anthropic_profile(server.url)
    replies = ModelClient(profile, cache_dir=tmp_path).generate(requests[:5])
    assert [r.failure for r in replies] == [failure] * 5
    assert all(r.attempts == 1 and r.value is None for r in replies)
    assert not ResponseCache(tmp_path).stored_keys()
    later = ModelClient(profile, cache_dir=tmp_path).generate(requests[:5])
    assert [r.value for r in later] == expected[:5] and not any(r.cache_hit for r in later)


def test_a_persistent_error_ends_as_a_transport_failure(server, requests, tmp_path):
    server.set_faults([FaultRule("server_error", attempts=None)])
    replies = ModelClient(openai_profile(server.url, max_attempts=3), cache_dir=tmp_path).generate(
        requests[:3]
    )
    assert all(r.failure == "transport_error" and r.attempts == 3 for r in replies)
    assert "HTTP 500" in replies[0].detail
    assert server.stats()["requests"] == 9
    assert not ResponseCache(tmp_path).stored_keys()


def test_an_unknown_request_is_not_retried(server):
    stranger = dataclasses.replace(reader_batch(1)[0], question="never registered")
    (reply,) = ModelClient(openai_profile(server.url)).generate([stranger])
    assert reply.failure == "transport_error" and reply.attempts == 1 and "HTTP 400" in reply.detail


def test_an_api_key_comes_from_the_environment_only(server, monkeypatch):
    profile = openai_profile(server.url, api_key_env="MEMSHIFT_TEST_KEY")
    monkeypatch.delenv("MEMSHIFT_TEST_KEY", raising=False)
    with pytest.raises(
        ConfigError, match="environment variable MEMSHIFT_TEST_KEY, which is not set"
    ):
        ModelClient(profile).generate(reader_batch(1))
    monkeypatch.setenv("MEMSHIFT_TEST_KEY", "sk-secret-value")
    log_client = ModelClient(profile)
    assert log_client.generate(reader_batch(1))[0].ok
    assert "sk-secret-value" not in repr(log_client.log.rows)


def test_a_killed_batch_repeats_no_completed_call(tmp_path):
    batch = reader_batch(60)
    cache = tmp_path / "cache"
    script = Path(__file__).with_name("batchwork.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(script.parent), *sys.path])}
    with LocalServer(RequestBook(batch).answer, latency=0.1) as running:
        worker = subprocess.Popen([sys.executable, str(script), running.url, str(cache), "60"],
                                  env=env, stdout=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(ResponseCache(cache).stored_keys()) < 10:
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        done = ResponseCache(cache).stored_keys()
        assert 10 <= len(done) < 60, "the kill came too late to test anything"
        assert all(ResponseCache(cache).get(k) is not None for k in done)
        running.reset()
        rerun = subprocess.run([sys.executable, str(script), running.url, str(cache), "60"],
                               env=env, capture_output=True, text=True, check=True)  # fmt: skip
        assert rerun.stdout.strip() == "60"
        asked_again = running.stats()["keys"]
        profile = openai_profile(running.url, concurrency=2)
    by_cache_key = {}
    for request in batch:
        body = request_body(profile, request.role, prompts.build(request), SCHEMAS[request.role])
        by_cache_key[client_key(profile, body)[0]] = request_key(body)
    assert done <= set(by_cache_key)
    assert not {by_cache_key[k] for k in done} & set(asked_again)
    assert len(asked_again) == 60 - len(done)


def test_models_check_reports_every_role_working_against_the_local_server(tmp_path):
    from memshift.models.check import check_requests

    with LocalServer(RequestBook(check_requests()).answer) as running:
        run = subprocess.run(
            [sys.executable, "-m", "memshift.cli", "models", "check", "qwen3.5-9b",
             "--base-url", f"{running.url}/v1"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "4 of 4 roles work" in run.stdout
