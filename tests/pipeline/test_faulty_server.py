"""A whole study against a model server that injects every adversarial fault on a few calls each:
the study finishes, the report counts the failed calls, no secret reaches a file, and a rerun asks
again for the failed calls and for no call that had completed."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from memshift_tools.localserver import FaultRule, LocalServer, canned_answer
from pipeline.test_resume import STUDY, cached_request_keys, write_local_profile
from pipeline.test_snakemake import assert_verified, run_of, snakemake, workflow_copy

KEY_ENV = "MEMSHIFT_FAULTY_STUDY_KEY"
KEY = "sk-faulty-" + "s3cr3t" * 6
SHARE = 0.015
# each kind with the failure reason the client must record for it
FAILING = {
    ("malformed", "message_string"): "malformed_reply",
    ("malformed", "usage_string"): "malformed_reply",
    ("malformed", "content_object"): "malformed_reply",
    ("malformed", "no_choices"): "malformed_reply",
    ("malformed", "not_json"): "malformed_reply",
    ("deep_nesting", None): "unstorable",
    ("huge_number", None): "unstorable",
    ("lone_surrogate", None): "unstorable",
    ("lone_surrogate", "raw"): "unstorable",
    ("oversized", None): "reply_too_large",
    ("oversized", "chunked"): "reply_too_large",
}
TRANSIENT = [("rate_limit", "http_date"), ("rate_limit", "ms"), ("server_error", None)]


def plan() -> list[FaultRule]:
    failing = [
        FaultRule(
            kind, variant=variant, share=SHARE, size=512 * 1024 if kind == "oversized" else None
        )
        for kind, variant in FAILING
    ]
    transient = [
        FaultRule(kind, variant=variant, share=SHARE, retry_after=0.05 if variant else None)
        for kind, variant in TRANSIENT
    ]
    return [*failing, *transient, FaultRule("echo_key", share=SHARE)]


def call_logs(run: Path) -> list[dict]:
    """Every call the study's stages logged (the report's own calls table is a summary of them)."""
    logs = sorted(p for p in run.glob("w*/**/calls*.parquet"))
    assert logs, f"no call logs under {run}"
    return [row for log in logs for row in pq.read_table(log).to_pylist()]


def report_failures(where: Path) -> int:
    calls = pq.read_table(where / run_of(STUDY, "local") / "report/tables/calls.parquet")
    return sum(calls.column("failures").to_pylist())


def every_file_bytes(root: Path) -> bytes:
    return b"".join(path.read_bytes() for path in root.rglob("*") if path.is_file())


@pytest.mark.studies
@pytest.mark.slow(minutes=1)
def test_a_study_under_every_fault_finishes_counts_them_and_reruns_only_them(tmp_path):
    # its faults fail more than report.max_failure_share of some systems' calls: the report
    # marks them, and the gate is allowed to pass so that the rerun can be compared
    allowed = {**STUDY["report"], "allow_failures": True}
    where = workflow_copy(tmp_path / "study", {**STUDY, "branches": ["none"], "report": allowed})
    with LocalServer(canned_answer, faults=plan()) as server:
        write_local_profile(
            where,
            server.url,
            api_key_env=KEY_ENV,
            max_reply_bytes=256 * 1024,
            decoding={"max_tokens": 512},
        )
        os.environ[KEY_ENV] = KEY
        try:
            first = snakemake(where)
            assert first.returncode == 0, first.stderr[-3000:]
            applied = server.stats()["faults"]
            asked_first = set(server.stats()["keys"])
            completed = cached_request_keys(where / "results/cache/llm")
            first_rows = call_logs(where / run_of(STUDY, "local"))
            first_report = report_failures(where)
            server.reset()
            second = snakemake(where, "--forceall")
            assert second.returncode == 0, second.stderr[-3000:]
            asked_again = set(server.stats()["keys"])
            second_rows = call_logs(where / run_of(STUDY, "local"))
            second_report = report_failures(where)
        finally:
            del os.environ[KEY_ENV]

    kinds = {kind for kind, _ in FAILING} | {kind for kind, _ in TRANSIENT} | {"echo_key"}
    assert kinds <= set(applied), f"some faults met no call: {kinds - set(applied)}"
    reasons = Counter(row["failure"] for row in first_rows if row["failure"])
    assert set(FAILING.values()) <= set(reasons), reasons
    assert "transport_error" in reasons  # the 401 that echoes the key, not retried

    assert first_report == sum(reasons.values())
    # the failed calls asked again meet no fault (each spent its one attempt); only calls that are
    # new in the rerun can fail, and the report counts them as well
    assert second_report == sum(1 for row in second_rows if row["failure"]) < first_report
    assert KEY.encode() not in every_file_bytes(where / "results")
    # failures are never cached: the rerun asks again for failed calls (and for calls downstream
    # of them, whose prompts changed), never for one that had completed
    assert not completed & asked_again, "a completed call was asked again"
    assert asked_again
    assert asked_again & (asked_first - completed), "no failed call was asked again"
    assert_verified(where, run_of(STUDY, "local"))
