"""A native system whose library calls all fail (Mem0 against a replay server with an empty
recording: every extraction is refused) is scored like any system, and the failures table
shows it failed: the probe stage logs each library call, failed or not, in its call log."""

from __future__ import annotations

import pyarrow.parquet as pq
from click.testing import CliRunner
from network_guard import no_network  # noqa: F401  (autouse)
from served import STAND_IN

from analysis.test_failures import scored, study
from memshift import layout
from memshift.analysis.failures import counted, failures_table, verdict_line
from memshift.cli import cli
from memshift.definitions.catalog import FIXED_SET
from memshift.models.profiles import Profile
from memshift.native.library_calls import FAILURE, METERED, ROLE
from memshift.native.settings import NativeSettings
from memshift.stages import probe_native
from memshift.stages.specs import WorldJob
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Replayer

SEED, BRANCH = 1000, "none"
RULES = Profile("rules", "rules")


def test_a_native_system_whose_library_calls_all_fail_is_not_measured(tmp_path, monkeypatch):
    # another test of the worker may have imported Mem0 through the adapter and had its
    # environment restored since: the adapter refuses a Mem0 imported with telemetry on
    monkeypatch.setenv("MEM0_TELEMETRY", "false")
    world_dir, run_dir = tmp_path / "worlds/w1000", tmp_path / "run/w1000"
    spec = WorldJob(SEED, world_dir, 1, FIXED_SET, (BRANCH,))
    built = CliRunner().invoke(cli, ["job", "world", spec.to_json()])
    assert built.exit_code == 0, built.output
    settings = NativeSettings(
        "mem0", "local", STAND_IN["embedder_model"], STAND_IN["embedding_dims"]
    )
    with LocalServer(replayer := Replayer({})) as server:
        own = Profile("local", "openai", model="stand-in", base_url=f"{server.url}/v1")
        answered = probe_native.run(
            world_dir, run_dir, BRANCH, "mem0", RULES, None, settings, (own, RULES)
        )
    assert answered > 0 and replayer.misses
    out = layout.system_dir(run_dir, BRANCH, "mem0")
    failed = pq.read_table(layout.table(out, layout.NATIVE_FAILURES)).to_pylist()
    log = pq.read_table(layout.table(out, layout.READER_CALLS)).to_pylist()
    library = [row for row in log if row["role"] == ROLE]
    assert failed and len(library) == len(failed)
    assert all(row["failure"] == FAILURE for row in library)
    assert [row["detail"] for row in library] == [row["message"] for row in failed]
    assert {row["role"] for row in log} == {"reader", ROLE, METERED}
    # Mem0's own model calls, as the meter between Mem0 and the server saw them: every
    # extraction refused by the empty recording (HTTP 400), every embedding served
    metered = [row for row in log if row["role"] == METERED]
    chats = [row for row in metered if row["item"] == "chat"]
    assert len(chats) == len(failed) == len(replayer.misses)
    assert all(r["failure"] == "http_error" and "no recorded reply" in r["detail"] for r in chats)
    embeds = [row for row in metered if row["item"] == "embed"]
    assert embeds and all(r["failure"] is None and r["tokens_in"] > 0 for r in embeds)

    (row,) = failures_table(counted(study([scored("mem0", BRANCH, SEED)], log)), 0.05).to_pylist()
    assert (row["library_calls"], row["library_failed"]) == (len(failed), len(failed))
    assert row["model_calls"] == answered + len(metered) and row["model_failed"] == len(chats)
    assert row["reasons"] == [{"reason": "http_error", "calls": len(chats)}]
    calls = len(failed) + answered + len(metered)
    assert row["share"] == 2 * len(failed) / calls and not row["measured"]
    assert "mem0 (" in (verdict_line([row]) or "")
