"""A native job says how far it has got: the events fed to the library of the branch's total,
with an ETA, and the library's own model calls as its meter sees them, so a long ingestion is
not minutes of silence in the job's log; and nothing when progress is not asked for."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from network_guard import no_network  # noqa: F401  (autouse)
from served import STAND_IN

from memshift.cli import cli
from memshift.definitions.catalog import FIXED_SET
from memshift.models.profiles import Profile
from memshift.models.progress import native_progress
from memshift.native.settings import NativeSettings
from memshift.stages import probe_native
from memshift.stages.specs import WorldJob
from memshift.world.stored import load as load_world
from memshift.world.stored import load_public_events
from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import mem0_extraction

SEED, BRANCH = 1001, "del"
RULES = Profile("rules", "rules")
EVENTS = re.compile(
    r"memshift: mem0 del \(w1001\): (?P<done>[\d,]+) of (?P<total>[\d,]+) events \(\d+%\), "
    r"(?P<rate_in>[\d,]+) tokens/s in, [\d,]+ out, (?P<eta>ETA .+|done)$"
)
MODEL = re.compile(
    r"memshift: mem0 del \(w1001\): the library's model: (?P<calls>[\d,]+) calls so far in this "
    r"job, [\d,]+ tokens/s in, [\d,]+ out$"
)


def followed(tmp_path, monkeypatch, progress: str) -> int:
    """Mem0 follows the deletion branch of a one-month world against the stand-in, with
    MEMSHIFT_PROGRESS=`progress`; the events it was fed (those up to the last checkpoint)."""
    monkeypatch.setenv("MEM0_TELEMETRY", "false")
    monkeypatch.setenv("MEMSHIFT_PROGRESS", progress)
    world_dir, run_dir = tmp_path / "worlds/w1001", tmp_path / "run/w1001"
    spec = WorldJob(SEED, world_dir, 1, FIXED_SET, ("none", BRANCH))
    built = CliRunner().invoke(cli, ["job", "world", spec.to_json()])
    assert built.exit_code == 0, built.output
    settings = NativeSettings(
        "mem0", "local", STAND_IN["embedder_model"], STAND_IN["embedding_dims"]
    )
    with LocalServer(mem0_extraction) as server:
        own = Profile("local", "openai", model="stand-in", base_url=f"{server.url}/v1")
        probe_native.run(world_dir, run_dir, BRANCH, "mem0", RULES, None, settings, (own, RULES))
    last = load_world(world_dir, with_events=False).timeline.checkpoints[-1]
    return sum(1 for e in load_public_events(world_dir, BRANCH) if e.time <= last)


def test_a_native_job_counts_the_events_fed_to_the_library_and_its_model_calls(
    tmp_path, monkeypatch, capfd
):
    total = followed(tmp_path, monkeypatch, "0.000001")
    lines = capfd.readouterr().err.splitlines()
    events = [m for line in lines if (m := EVENTS.match(line))]
    model = [m for line in lines if (m := MODEL.match(line))]
    assert events, lines[-20:]
    assert {int(m["total"].replace(",", "")) for m in events} == {total}
    done = [int(m["done"].replace(",", "")) for m in events]
    assert done == sorted(done) and done[-1] == total and events[-1]["eta"] == "done"
    assert all(m["eta"].startswith("ETA ") for m in events[:-1])
    # the library's model spent tokens while it ingested, and each of its calls was tallied
    assert any(int(m["rate_in"].replace(",", "")) > 0 for m in events)
    calls = [int(m["calls"].replace(",", "")) for m in model]
    assert calls and calls == sorted(calls)


@pytest.mark.parametrize("asked", ["", "0"])
def test_a_native_job_is_quiet_unless_progress_is_asked_for(asked):
    progress, tally = native_progress("mem0 del (w1001)", 500, {"MEMSHIFT_PROGRESS": asked})
    lines: list[str] = []
    progress.emit = lines.append
    for _ in range(50):
        progress.advance(1000, 100, 10)
    progress.finish()
    assert tally is None and lines == []
