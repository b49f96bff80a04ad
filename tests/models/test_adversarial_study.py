"""A batch of a study against a server that injects every adversarial fault at once.

The batch finishes; the failed calls are counted in the replies, in the call log and in the
report's call table (which counts them from the call logs); nothing secret or unstorable is
written; and a rerun repeats only the failed calls, with cache hits for the others.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batchwork import openai_profile, reader_batch

from memshift import schemas
from memshift.analysis.costs import call_costs
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext
from memshift.models.retry import RetryPolicy
from memshift_tools.book import RequestBook
from memshift_tools.localserver import FaultRule, LocalServer

KEY_ENV = "MEMSHIFT_STUDY_TEST_KEY"
KEY = "sk-study-" + "k3y" * 12
FAILING: dict[int, tuple[FaultRule, str]] = {
    1: (FaultRule("malformed", variant="message_string"), "malformed_reply"),
    2: (FaultRule("malformed", variant="usage_string"), "malformed_reply"),
    3: (FaultRule("malformed", variant="content_object"), "malformed_reply"),
    4: (FaultRule("malformed", variant="blocks_not_objects"), "malformed_reply"),
    5: (FaultRule("malformed", variant="no_choices"), "malformed_reply"),
    6: (FaultRule("malformed", variant="not_json"), "malformed_reply"),
    7: (FaultRule("malformed", variant="deep_envelope"), "malformed_reply"),
    8: (FaultRule("malformed", variant="usage_huge"), "malformed_reply"),
    9: (FaultRule("deep_nesting"), "unstorable"),
    10: (FaultRule("huge_number"), "unstorable"),
    11: (FaultRule("lone_surrogate"), "unstorable"),
    12: (FaultRule("lone_surrogate", variant="raw"), "unstorable"),
    13: (FaultRule("oversized", size=1024 * 1024), "reply_too_large"),
    14: (FaultRule("oversized", size=1024 * 1024, variant="chunked"), "reply_too_large"),
    15: (FaultRule("echo_key"), "transport_error"),
}
TRANSIENT = {
    16: FaultRule("rate_limit", retry_after=0.3, variant="http_date"),
    17: FaultRule("rate_limit", retry_after=0.3, variant="ms"),
    18: FaultRule("rate_limit", retry_after=0.3),
}
BATCH = 30


def plan() -> list[FaultRule]:
    """Each fault once, on its own request of the batch (a distinct '(#k)' in its question)."""
    rules = [(k, rule) for k, (rule, _) in FAILING.items()] + list(TRANSIENT.items())
    return [dataclasses.replace(rule, attempts=1, match=f"(#{k})") for k, rule in rules]


@pytest.fixture(scope="module")
def batch():
    context = CallContext(run="adversarial", world=0, branch="src", system="bm25", checkpoint=1)
    return [dataclasses.replace(r, context=context) for r in reader_batch(BATCH)]


def failures_in_report(call_log: Path, tmp_path: Path) -> int:
    scores = tmp_path / "scores.parquet"
    write_table(schemas.SCORES.empty_table(), schemas.SCORES, scores)
    rows = call_costs(open_study(scores, [call_log])).to_pylist()
    return sum(row["failures"] for row in rows)


def test_a_batch_under_every_fault_finishes_counts_its_failures_and_reruns_only_them(
    batch, tmp_path, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, KEY)
    cache = tmp_path / "cache"
    first_log = tmp_path / "w0" / "src" / "bm25" / "calls-reader.parquet"
    rerun_log = tmp_path / "rerun" / "w0" / "src" / "bm25" / "calls-reader.parquet"
    with LocalServer(RequestBook(batch).answer, faults=plan()) as server:
        profile = openai_profile(
            server.url, api_key_env=KEY_ENV, max_reply_bytes=256 * 1024, concurrency=4
        )
        retry = RetryPolicy(max_attempts=3, base_delay=0.0, max_retry_after=5.0)
        log = CallLog()
        replies = ModelClient(profile, cache_dir=cache, log=log, retry=retry).generate(batch)
        log.write(first_log)
        server.reset()
        rerun = CallLog()
        again = ModelClient(profile, cache_dir=cache, log=rerun, retry=retry).generate(batch)
        rerun.write(rerun_log)
        asked_again = server.stats()["requests"]

    failed = {n: r.failure for n, r in enumerate(replies) if not r.ok}
    assert failed == {k: reason for k, (_, reason) in FAILING.items()}
    assert all(replies[k].attempts == 2 for k in TRANSIENT)
    assert sum(row["failure"] is not None for row in log.rows) == len(FAILING)
    assert failures_in_report(first_log, tmp_path) == len(FAILING)

    written = first_log.read_bytes().decode("latin-1")
    assert KEY not in written and KEY not in repr(replies)
    values = [json.dumps(r.value, ensure_ascii=False) for r in replies if r.ok]
    pq.write_table(pa.table({"value": values}), tmp_path / "answers.parquet")

    assert asked_again == len(FAILING), "the rerun asks for the failed calls only"
    assert all(r.ok for r in again)
    assert [r.cache_hit for r in again] == [n not in FAILING for n in range(BATCH)]
    assert failures_in_report(rerun_log, tmp_path / "rerun") == 0
