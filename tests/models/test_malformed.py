"""Class 1: no reply, whatever its shape or content, kills a batch or a stage.

Every reply ends as a value every writer can store, or as a recorded failure of that one call
(never cached), and the rest of the batch goes on.
"""

from __future__ import annotations

import json
import math
import re

import pyarrow as pa
import pytest
from batchwork import openai_profile, reader_batch

from memshift.intake.storable import (
    INT32,
    UnstorableError,
    parse_json,
    parse_storable,
    require_storable,
    storable_text,
    value_problem,
)
from memshift.models.cache import CachedReply, ResponseCache
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient, key_meta
from memshift.models.profiles import Profile
from memshift.models.reply_schemas import check_reply
from memshift_tools.book import RequestBook
from memshift_tools.localfaults import MALFORMED
from memshift_tools.localserver import FaultRule, LocalServer, Messages

BATCH = 12
TARGET = 5  # the request of the batch that gets the fault


@pytest.fixture(scope="module")
def batch():
    return reader_batch(BATCH)


def anthropic_profile(url: str, **changes) -> Profile:
    settings = {"model": "claude-local", "base_url": url, "concurrency": 4, "timeout_s": 5.0,
                "max_attempts": 3, "decoding": {"max_tokens": 512}}  # fmt: skip
    settings.update(changes)
    return Profile("claude-local", "anthropic", **settings)


def profile_for(backend: str, url: str, **changes) -> Profile:
    if backend == "openai":
        return openai_profile(url, concurrency=4, max_attempts=3, **changes)
    return anthropic_profile(url, **changes)


def one_fault(kind: str, **fields) -> FaultRule:
    return FaultRule(kind, attempts=None, match=f"(#{TARGET})", **fields)


def run_batch(backend, batch, rule, tmp_path):
    """The batch with `rule` applied to request TARGET: replies, call log, server stats."""
    log = CallLog()
    with LocalServer(RequestBook(batch).answer, faults=[rule]) as server:
        client = ModelClient(profile_for(backend, server.url), cache_dir=tmp_path, log=log)
        replies = client.generate(batch)
        stats = server.stats()
    log.write(tmp_path / "calls.parquet")
    return replies, log, stats


EXPECTED = {variant: "malformed_reply" for variant in MALFORMED}


def expected_failure(backend: str, variant: str) -> str:
    # A messages reply without `content` has no content, which is a reply of its own kind.
    if backend == "anthropic" and variant == "no_choices":
        return "empty_content"
    return EXPECTED[variant]


@pytest.mark.parametrize("variant", MALFORMED)
@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_a_malformed_reply_fails_its_own_call_and_the_batch_goes_on(
    batch, tmp_path, backend, variant
):
    replies, log, stats = run_batch(
        backend, batch, one_fault("malformed", variant=variant), tmp_path
    )
    assert stats["requests"] == BATCH, "malformed replies are not retried, and every call is sent"
    failed = [n for n, r in enumerate(replies) if not r.ok]
    assert failed == [TARGET]
    assert replies[TARGET].failure == expected_failure(backend, variant)
    assert replies[TARGET].attempts == 1
    assert [row["failure"] for row in log.rows].count(None) == BATCH - 1
    assert len(ResponseCache(tmp_path).stored_keys()) == BATCH - 1, "the failure is not cached"


CONTENT_FAULTS = [
    ("deep_nesting", None, "nested too deep"),
    ("huge_number", None, "5000 digits"),
    ("lone_surrogate", None, "lone surrogate"),
    ("lone_surrogate", "raw", "lone surrogate"),
]


@pytest.mark.parametrize(("kind", "variant", "detail"), CONTENT_FAULTS)
@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_content_no_writer_can_store_is_a_recorded_failure_never_cached(
    batch, tmp_path, backend, kind, variant, detail
):
    replies, log, _ = run_batch(backend, batch, one_fault(kind, variant=variant), tmp_path)
    assert [r.failure for r in replies].count(None) == BATCH - 1
    assert (replies[TARGET].failure, detail in replies[TARGET].detail) == ("unstorable", True)
    assert len(ResponseCache(tmp_path).stored_keys()) == BATCH - 1
    storable_text(replies[TARGET].detail).encode("utf-8")
    assert log.rows[TARGET]["failure"] == "unstorable"


def fixed(content: str):
    def answer(api: str, messages: Messages, schema: dict | None) -> str:
        return content

    return answer


SURROGATE_READING = '{"status": "answer", "value": "\\ud800"}'


def test_a_schema_valid_lone_surrogate_is_refused_before_the_cache_and_the_parquet_write(
    batch, tmp_path
):
    with LocalServer(fixed(SURROGATE_READING)) as server:
        client = ModelClient(openai_profile(server.url), cache_dir=tmp_path)
        (reply,) = client.generate(batch[:1])
    assert reply.failure == "unstorable" and "U+D800" in reply.detail
    assert not ResponseCache(tmp_path).stored_keys()
    client.log.write(tmp_path / "calls.parquet")


def poison(root, key, profile, prefix=""):
    """Store for `key` what an earlier version cached: a lone surrogate, valid JSON and valid
    under the schema, which crashed the stage's Parquet write on every rerun. With a `prefix`,
    its pack sorts before every other."""
    scratch = root / "scratch"
    store = ResponseCache(scratch)
    store.put(key, key_meta(profile), "{}", CachedReply(SURROGATE_READING, "stop", 1, 1))
    store.close()
    (root / "packs").mkdir(exist_ok=True)
    for path in (scratch / "packs").iterdir():
        path.rename(root / "packs" / f"{prefix}{path.name}")


def test_a_rerun_passes_over_a_poisoned_copy_that_was_served_first(batch, tmp_path):
    with LocalServer(RequestBook(batch).answer) as server:
        profile = openai_profile(server.url)
        (good,) = ModelClient(profile, cache_dir=tmp_path).generate(batch[:1])
        poison(tmp_path, good.cache_key, profile, prefix="0-")
        server.reset()
        (again,) = ModelClient(profile, cache_dir=tmp_path).generate(batch[:1])
        assert server.stats()["requests"] == 0, "the good copy serves; nothing is asked"
    assert again.ok and again.cache_hit and again.value == good.value
    pa.table({"value": [json.dumps(again.value, ensure_ascii=False)]})


def test_a_stage_can_finish_after_a_poisoned_entry_is_the_only_copy(batch, tmp_path):
    with LocalServer(RequestBook(batch).answer) as server:
        profile = openai_profile(server.url)
        key = ModelClient(profile).generate(batch[:1])[0].cache_key
        server.reset()
        poison(tmp_path, key, profile)
        first = ModelClient(profile, cache_dir=tmp_path).generate(batch[:1])
        second = ModelClient(profile, cache_dir=tmp_path).generate(batch[:1])
        assert server.stats()["requests"] == 1, "asked once, then the healed copy serves"
    assert first[0].ok and not first[0].cache_hit
    assert second[0].ok and second[0].cache_hit
    require_storable(second[0].value, "the reply")


WRITER_REVISION = json.dumps(
    {"value": "x", "statement": "s", "citations": [{"object_id": "o", "revision": 2**40,
                                                    "quote": "q"}]}
)  # fmt: skip


@pytest.mark.parametrize(
    ("role", "content", "failure"),
    [
        ("reader", "[" * 100_000 + "]" * 100_000, "unstorable"),
        ("reader", '{"status": "answer", "value": ' + "7" * 5000 + "}", "unstorable"),
        ("reader", '{"status": "answer", "value": "\\udfff"}', "unstorable"),
        ("reader", '{"status": "answer", "value": "\ud800"}', "unstorable"),
        ("reader", '{"status": "answer", "value": ["a", "\\ud83d"]}', "unstorable"),
        ("writer", WRITER_REVISION, "unstorable"),
        ("reader", '{"status": "answer", "value": "ok", "\\ud800": 1}', "unstorable"),
    ],
)
def test_check_reply_returns_a_failure_for_what_the_parser_or_a_writer_cannot_take(
    role, content, failure
):
    value, reason, detail = check_reply(role, content)
    assert (value, reason) == (None, failure)
    detail.encode("utf-8")


def test_check_reply_still_takes_ordinary_text_outside_the_basic_plane():
    value, reason, _ = check_reply(
        "reader", '{"status": "answer", "value": "caf\\u00e9 \\ud83d\\ude00"}'
    )
    assert reason is None and value["value"] == "café 😀"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deep"),
        ("1" * 5000, "5000 digits"),
        ("-" + "1" * 21, "21 digits"),
        ("NaN", "NaN"),
        ("[Infinity]", "Infinity"),
        ('{"a": -Infinity}', "-Infinity"),
        ("[1e999]", "beyond what a float holds"),
    ],
)
def test_parse_json_refuses_what_json_loads_takes_or_crashes_on(text, problem):
    with pytest.raises(UnstorableError, match=problem):
        parse_json(text)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("\ud800", "lone surrogate"),
        ({"\udc00": 1}, "lone surrogate"),
        ([[[["deep"]]]], "nested deeper than 3"),
        (2**63, "integer outside"),
        (-(2**63) - 1, "integer outside"),
        (math.inf, "cannot hold"),
        (math.nan, "cannot hold"),
        ({1: "x"}, "the key 1"),
        ({"a": (1, 2)}, "tuple"),
    ],
)
def test_value_problem_names_what_no_writer_can_store(value, problem):
    found = value_problem(value, max_depth=3)
    assert found is not None and problem in found
    with pytest.raises(UnstorableError, match="the output cannot be stored"):
        require_storable(value, "the output", max_depth=3)


def test_storable_values_pass_and_storable_text_escapes_surrogates():
    assert value_problem({"a": [1, 2.5, None, True, "é", {"b": -(2**63)}]}) is None
    assert storable_text("a\ud800b") == "a\\ud800b"
    assert value_problem("x" * 10, max_depth=1) is None
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert "nested deeper" in value_problem(deep)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": ["\\ud800"]}', "lone surrogate (U+D800 at character 0) at $.a[0]"),
        ('{"\\uDFFF": 1}', "the key"),
        ('"raw \ud800"', "lone surrogate"),
        ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
        ('{"n": 2147483648}', "integer outside"),
    ],
)
def test_parse_storable_refuses_in_one_step_what_no_writer_can_store(text, problem):
    with pytest.raises(UnstorableError, match=re.escape(problem)):
        parse_storable(text, int_range=INT32)


def test_parse_storable_returns_what_json_loads_returns_for_storable_text():
    text = '{"a": [1, -2.5e3, null, true, "caf\\u00e9", "\\ud83d\\ude00"], "b": {"c": ""}}'
    assert parse_storable(text) == json.loads(text)
    assert parse_storable("[" * 64 + "]" * 64) is not None


def test_a_truncated_reply_keeps_its_finish_reason(batch):
    with LocalServer(RequestBook(batch).answer, faults=[FaultRule("truncated")]) as server:
        (reply,) = ModelClient(openai_profile(server.url)).generate(batch[:1])
    assert (reply.failure, reply.finish_reason) == ("truncated", "length")
