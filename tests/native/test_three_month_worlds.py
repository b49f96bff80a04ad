"""A long run of a real library (`make test-native`, which the CI runs after `make test`): LightRAG
over a whole branch of a three-month world, about eight minutes, most of it LightRAG writing its
whole store after every document; against the local server's scripted stand-in, recorded as it
answers. It tests the plumbing at full size, never LightRAG's quality."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("lightrag") is None:
    pytest.skip(
        "the native extra is not installed: pip install -e .[native]", allow_module_level=True
    )

from network_guard import no_network  # noqa: F401  (autouse)
from served import on_server

from memshift.dataset import world_data
from memshift.memory.reading import answer, drive, questions
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.native.lightrag_memory import LightRAGMemory
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, load
from memshift_tools.stand_ins import lightrag

pytestmark = pytest.mark.native_full
SEED = 1000


def test_lightrag_follows_a_whole_three_month_branch(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", "src"))["src"]
    events = public_view(data.branch.events)
    probes = measured(probes_to_table(data.probes, world=SEED, branch="src"))
    recording = tmp_path / "lightrag.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(lightrag, out)) as server:
        memory = on_server(LightRAGMemory, server, tmp_path / "lightrag")
        try:
            asked = drive(
                memory, events, world.timeline.checkpoints, questions(probes, world.items)
            )
        finally:
            memory.close()
    assert memory.failures == []
    last = world.timeline.checkpoints[-1]
    live: dict[str, str] = {}
    for e in events:
        if e.time <= last and e.op in ("insert", "update"):
            live[e.object_id] = f"{e.object_id}@{e.revision}"
        elif e.time <= last and e.op == "delete":
            live.pop(e.object_id, None)
    assert memory.documents == live
    assert len(asked) == probes.num_rows and all(a.evidence for a in asked)
    assert len(load(recording)) == memory.endpoint.calls["chat"] > len(live)
    rows = answer(
        asked,
        ModelClient(Profile("rules", "rules")),
        world=SEED,
        branch="src",
        system="lightrag",
        run="test",
    ).to_pylist()
    assert len(rows) == probes.num_rows
