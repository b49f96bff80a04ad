"""Class 3: secrets stay out of everything stored, logged or raised; limits hold.

API keys and credential headers are redacted from failure details and the call log; a base URL
with credentials is refused; replies have a size limit; the server's wait is honoured in all its
forms, up to a maximum; `models check` fails fast on a refused connection and names a parameter
the server refuses; profiles can omit sampling parameters a model does not accept.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest
import yaml
from batchwork import openai_profile, reader_batch

from memshift.errors import ConfigError
from memshift.models import prompts
from memshift.models.cache import ResponseCache
from memshift.models.calllog import CallLog
from memshift.models.check import check_requests, report
from memshift.models.client import ModelClient
from memshift.models.openai_backend import request_body
from memshift.models.profiles import DEFAULT_MAX_REPLY_BYTES, Profile, load_profiles
from memshift.models.replies import Reply
from memshift.models.reply_schemas import SCHEMAS
from memshift.models.requests import CallContext
from memshift.models.retry import RetryPolicy, parse_retry_after, parse_retry_after_ms
from memshift_tools.book import RequestBook
from memshift_tools.localserver import FaultRule, LocalServer, Messages

KEY_ENV = "MEMSHIFT_TEST_SECRET_KEY"
KEY = "sk-test-" + "q7" * 20
LONG_KEY = "sk-long-" + "z" * 400  # longer than the 300 characters of a detail
NO_WAIT = RetryPolicy(max_attempts=3, base_delay=0.0)


@pytest.fixture(scope="module")
def batch():
    return reader_batch(3)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


def anthropic_profile(url: str, **changes) -> Profile:
    settings = {"model": "claude-local", "base_url": url, "timeout_s": 5.0,
                "decoding": {"max_tokens": 512}}  # fmt: skip
    settings.update(changes)
    return Profile("claude-local", "anthropic", **settings)


def profile_for(backend: str, url: str, **changes) -> Profile:
    if backend == "openai":
        return openai_profile(url, **changes)
    return anthropic_profile(url, **changes)


def everything_kept(client: ModelClient, replies: list[Reply], tmp_path) -> str:
    """Every string the call stored, logged or returned, as one text."""
    client.log.write(tmp_path / "calls.parquet")
    written = (tmp_path / "calls.parquet").read_bytes().decode("latin-1")
    return repr(replies) + repr(client.log.rows) + written


# --- Secrets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_an_error_body_echoing_the_key_is_stored_without_it(batch, tmp_path, key, backend):
    with LocalServer(RequestBook(batch).answer, faults=[FaultRule("echo_key")]) as server:
        client = ModelClient(profile_for(backend, server.url, api_key_env=KEY_ENV))
        replies = client.generate(batch[:1])
    assert replies[0].failure == "transport_error" and "HTTP 401" in replies[0].detail
    kept = everything_kept(client, replies, tmp_path)
    assert key not in kept and key[:12] not in kept
    assert "[REDACTED]" in replies[0].detail


def test_a_key_longer_than_a_detail_leaves_no_part_of_itself_behind(batch, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, LONG_KEY)
    with LocalServer(RequestBook(batch).answer, faults=[FaultRule("echo_key")]) as server:
        client = ModelClient(openai_profile(server.url, api_key_env=KEY_ENV))
        replies = client.generate(batch[:1])
    assert "z" * 40 not in everything_kept(client, replies, tmp_path)


def test_credential_headers_are_redacted_from_the_call_log_even_when_the_key_is_unknown(tmp_path):
    detail = 'HTTP 403: {"Authorization": "Bearer proxy-token-1", "x-api-key": "ak-2"}'
    log = CallLog()
    log.add(CallContext(), Reply("reader", None, "transport_error", detail), backend="b", model="m")
    log.write(tmp_path / "calls.parquet")
    kept = repr(log.rows) + (tmp_path / "calls.parquet").read_bytes().decode("latin-1")
    assert "proxy-token-1" not in kept and "ak-2" not in kept


def holds_the_key(api: str, messages: Messages, schema: dict | None) -> str:
    return json.dumps({"status": "answer", "value": os.environ[KEY_ENV]})


def test_a_reply_that_holds_the_key_is_a_failure_never_cached(batch, tmp_path, key):
    with LocalServer(holds_the_key) as server:
        client = ModelClient(openai_profile(server.url, api_key_env=KEY_ENV), cache_dir=tmp_path)
        replies = client.generate(batch[:1])
    assert replies[0].failure == "unstorable"
    assert not ResponseCache(tmp_path).stored_keys()
    assert key not in everything_kept(client, replies, tmp_path)


def write_profiles(tmp_path, **profile) -> object:
    path = tmp_path / "models.yaml"
    raw = {"backend": "openai", "model": "m", "decoding": {"max_tokens": 64}, **profile}
    path.write_text(yaml.safe_dump({"profiles": {"leaky": raw}}))
    return path


@pytest.mark.parametrize(
    ("base_url", "problem"),
    [
        ("https://me:sk-in-url-123@api.example.com/v1", "must not carry credentials"),
        ("https://sk-in-url-123@api.example.com/v1", "must not carry credentials"),
        ("https://api.example.com/v1?api_key=sk-in-url-123", "query string"),
        ("ftp://api.example.com/v1", "http:// or https://"),
        ("http://api.example.com:99999999/v1", "not a valid URL"),
    ],
)
def test_a_base_url_with_credentials_or_not_http_is_refused_in_one_line_without_the_secret(
    tmp_path, base_url, problem
):
    with pytest.raises(ConfigError) as caught:
        load_profiles(write_profiles(tmp_path, base_url=base_url))
    message = str(caught.value)
    assert message.startswith("model profile 'leaky': base_url ") and problem in message
    assert "sk-in-url-123" not in message and "\n" not in message


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "memshift.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def test_models_check_refuses_credentials_in_an_overriding_base_url():
    run = cli("models", "check", "qwen3.5-9b", "--base-url", "http://me:sk-cli-777@127.0.0.1:9/v1")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and "must not carry credentials" in run.stderr
    assert "sk-cli-777" not in run.stdout + run.stderr


# --- Reply size ------------------------------------------------------------------------------


def test_a_64_mib_schema_valid_reply_is_refused_by_the_default_limit_and_not_cached(
    batch, tmp_path
):
    assert DEFAULT_MAX_REPLY_BYTES < 64 * 1024 * 1024
    with LocalServer(RequestBook(batch).answer, faults=[FaultRule("oversized")]) as server:
        (reply,) = ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(batch[:1])
    assert (reply.failure, reply.attempts) == ("reply_too_large", 1)
    assert "reply too large" in reply.detail and not ResponseCache(tmp_path).stored_keys()


@pytest.mark.parametrize("variant", [None, "chunked"])
@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_the_reply_size_limit_is_set_per_profile(batch, tmp_path, variant, backend):
    rule = FaultRule("oversized", size=200_000, variant=variant)
    with LocalServer(RequestBook(batch).answer, faults=[rule]) as server:
        profile = profile_for(backend, server.url, max_reply_bytes=64 * 1024)
        replies = ModelClient(profile, cache_dir=tmp_path).generate(batch)
    assert [r.failure for r in replies] == ["reply_too_large"] * len(batch)
    assert not ResponseCache(tmp_path).stored_keys()


def test_max_reply_bytes_is_a_profile_key_with_a_floor(tmp_path):
    path = write_profiles(tmp_path, base_url="http://h/v1", max_reply_bytes=1_000_000)
    assert load_profiles(path)["leaky"].max_reply_bytes == 1_000_000
    with pytest.raises(ConfigError, match="max_reply_bytes"):
        load_profiles(write_profiles(tmp_path, base_url="http://h/v1", max_reply_bytes=10))


# --- The server's wait -----------------------------------------------------------------------


def timed_batch(batch, rule: FaultRule, retry: RetryPolicy = NO_WAIT) -> tuple[list[Reply], float]:
    with LocalServer(RequestBook(batch).answer, faults=[rule]) as server:
        client = ModelClient(openai_profile(server.url), retry=retry)
        start = time.monotonic()
        replies = client.generate(batch[:1])
        return replies, time.monotonic() - start


def test_retry_after_as_an_http_date_is_honoured(batch):
    rule = FaultRule("rate_limit", retry_after=1.0, variant="http_date")
    replies, elapsed = timed_batch(batch, rule)
    assert replies[0].ok and replies[0].attempts == 2
    assert elapsed >= 0.95


def test_retry_after_ms_is_honoured(batch):
    replies, elapsed = timed_batch(batch, FaultRule("rate_limit", retry_after=0.6, variant="ms"))
    assert replies[0].ok and replies[0].attempts == 2
    assert elapsed >= 0.55


def test_a_far_retry_after_date_is_bounded_by_the_maximum_wait(batch):
    rule = FaultRule("rate_limit", retry_after=3600.0, variant="http_date")
    bounded = dataclasses.replace(NO_WAIT, max_retry_after=0.4)
    replies, elapsed = timed_batch(batch, rule, bounded)
    assert replies[0].ok and 0.35 <= elapsed < 5


def test_retry_after_forms_parse_to_seconds():
    now = datetime(2015, 10, 21, 7, 27, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=now) == 60.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:26:00 GMT", now=now) == 0.0
    assert parse_retry_after("inf") is None and parse_retry_after("nan") is None
    assert parse_retry_after_ms("1500") == 1.5 and parse_retry_after_ms("soon") is None


# --- models check ----------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_models_check_against_a_refused_connection_fails_fast_in_one_line():
    start = time.monotonic()
    run = cli("models", "check", "qwen3.5-9b", "--base-url", f"http://127.0.0.1:{closed_port()}/v1")
    elapsed = time.monotonic() - start
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "connection refused" in run.stderr
    assert elapsed < 15


def test_a_refused_connection_is_not_retried_by_a_check_policy(batch):
    policy = RetryPolicy(max_attempts=6, base_delay=5.0, retry_connect=False)
    client = ModelClient(openai_profile(f"http://127.0.0.1:{closed_port()}"), retry=policy)
    start = time.monotonic()
    replies = client.generate(batch)
    assert time.monotonic() - start < 3
    assert all(r.attempts == 1 and r.detail.startswith("cannot connect to") for r in replies)


def test_models_check_names_the_parameter_the_server_refuses():
    with LocalServer(RequestBook(check_requests()).answer, unsupported=["temperature"]) as server:
        run = cli("models", "check", "qwen3.5-9b", "--base-url", f"{server.url}/v1")
    assert run.returncode == 1
    assert "the server refused the parameter 'temperature'" in run.stdout
    assert "0 of 4 roles work" in run.stdout


def test_a_parameter_refused_in_an_anthropic_message_is_named(batch):
    with LocalServer(RequestBook(batch).answer, unsupported=["top_k"]) as server:
        profile = anthropic_profile(server.url, decoding={"max_tokens": 64, "top_k": 5})
        (reply,) = ModelClient(profile).generate(batch[:1])
    assert reply.attempts == 1 and "(refused parameter 'top_k')" in reply.detail
    assert "refused the parameter 'top_k'" in report(profile, [reply])


# --- Sampling parameters a model does not accept ---------------------------------------------


def test_the_shipped_gpt_5_mini_profile_sends_no_temperature_or_top_p():
    profile = load_profiles("config/models.yaml")["openai-gpt-5-mini"]
    request = reader_batch(1)[0]
    body = request_body(profile, "reader", prompts.build(request), SCHEMAS["reader"])
    assert "temperature" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 4096


def test_a_profile_may_omit_every_sampling_parameter_and_none_is_sent(tmp_path, batch):
    path = write_profiles(tmp_path, base_url="http://h/v1")
    profile = load_profiles(path)["leaky"]
    with LocalServer(
        RequestBook(batch).answer, unsupported=["temperature", "top_p", "seed"]
    ) as server:
        replies = ModelClient(dataclasses.replace(profile, base_url=f"{server.url}/v1")).generate(
            batch
        )
        assert all(r.ok for r in replies), [r.detail for r in replies]
        assert server.stats()["requests"] == len(batch)


def test_a_profile_built_in_code_with_credentials_in_its_url_is_refused_before_any_call(batch):
    profile = openai_profile("http://me:sk-in-code-55@127.0.0.1:9")
    with pytest.raises(ConfigError, match="must not carry credentials") as caught:
        ModelClient(profile).generate(batch[:1])
    assert "sk-in-code-55" not in str(caught.value)
