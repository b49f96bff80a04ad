"""The Mem0 adapter drives the real `mem0ai` library over a three-month world, against a local
server that speaks OpenAI's API with a scripted stand-in for Mem0's extraction prompt: this
tests the plumbing (events reach Mem0, it stores and retrieves, the reader gets its memories),
never Mem0's quality. Skipped, with the reason, where the native extra is not installed."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("mem0") is None:  # not imported here: the adapter switches off
    # its telemetry before importing it
    pytest.skip(
        "the native extra is not installed: pip install -e .[native]", allow_module_level=True
    )

from memshift.dataset import world_data
from memshift.memory.reading import answer, drive, questions
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.native.mem0_memory import Mem0Memory
from memshift.probes import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import mem0_extraction

SEED = 1000


def test_mem0_follows_a_three_month_branch_and_serves_the_reader(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", "src"))["src"]
    events = public_view(data.branch.events)
    probes = measured(probes_to_table(data.probes, world=SEED, branch="src"))
    with LocalServer(mem0_extraction) as server:
        memory = Mem0Memory(
            base_url=f"{server.url}/v1",
            model="stand-in",
            embedder_model="hashed-words",
            embedding_dims=64,
            workdir=tmp_path / "mem0",
        )
        try:
            asked = drive(
                memory, events, world.timeline.checkpoints, questions(probes, world.items)
            )
        finally:
            memory.close()
        stats = server.stats()
    assert memory.failures == []
    last = world.timeline.checkpoints[-1]
    records = sum(e.op in ("insert", "update", "delete") and e.time <= last for e in events)
    assert memory.adds >= records / memory.batch
    assert stats["paths"]["/v1/chat/completions"] == memory.adds
    assert stats["paths"]["/v1/embeddings"] >= memory.adds
    assert len(asked) == probes.num_rows
    served = [a for a in asked if a.evidence]
    assert len(served) > 0.9 * len(asked)
    # the evidence is Mem0's memories: the stand-in keeps each shared line as one memory
    assert any("[email message," in text for a in served for text in a.evidence)
    rows = answer(
        asked,
        ModelClient(Profile("rules", "rules")),
        world=SEED,
        branch="src",
        system="mem0",
        run="test",
    ).to_pylist()
    assert {r["status"] for r in rows} <= {"answer", "abstain"}
