"""The Cognee adapter drives the real `cognee` library, in its own environment, over the objects
of a three-month world that are revised, deleted and left alone, against a local server that
speaks OpenAI's API with a scripted stand-in for cognify's two prompts: this tests the plumbing
(one item per object, a revision replacing it, a deletion removing it, its chunks reaching the
reader), never Cognee's quality. `make test-native` installs Cognee's
environment and runs these tests; without it they fail naming the install."""

from __future__ import annotations

import pytest
from network_guard import no_network  # noqa: F401  (autouse)
from served import followed, on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.native.cognee_memory import CogneeMemory
from memshift.native.shared_text import event_text
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, Replayer, load
from memshift_tools.stand_ins import cognee

# minutes each (Cognee retries a refused LLM call for four minutes): make test-native
pytestmark = pytest.mark.native_full
SEED = 1000
BRANCH = "del"


def test_cognee_keeps_one_item_per_object_and_replays_a_recorded_run(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, ops, chosen = revised_and_deleted(public_view(data.branch.events), each=3)
    assert {"update", "delete"} <= {op for o in chosen for op in ops[o]}
    probes = measured(probes_to_table(data.probes, world=SEED, branch=BRANCH)).slice(0, 8)
    recording = tmp_path / "cognee.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(cognee, out)) as server:
        memory, asked, held = follow(events, world, probes, server, tmp_path / "recorded")
        stats = server.stats()
    assert memory.failures == []
    # one live item per object, of its latest revision; a deleted object has none
    last = {}
    for e in events:
        if e.time <= world.timeline.checkpoints[-1]:
            last[e.object_id] = e
    live = {o: f"{e.object_id}@{e.revision}" for o, e in last.items() if e.op != "delete"}
    assert memory.documents == live and held == sorted(live.values())
    # cognify's two prompts (graph, summary) for each chunk of each item put
    assert stats["paths"]["/v1/chat/completions"] >= 2 * len(memory.added)
    assert len(asked) == probes.num_rows and all(a.evidence for a in asked)
    for a in asked:
        # every chunk is of an item live when asked: nothing of a deleted or revised-away text
        at = world.timeline.checkpoints[a.checkpoint]
        state = {}
        for e in events:
            if e.time <= at:
                state[e.object_id] = e
        texts = [event_text(e) for e in state.values() if e.op != "delete"]
        assert all(any(line in t for t in texts) for line in a.evidence), a.evidence

    with LocalServer(replayer := Replayer(load(recording))) as server:
        replayed, again, _ = follow(events, world, probes, server, tmp_path / "replayed")
    assert replayer.misses == [] and replayed.failures == []
    assert [a.evidence for a in again] == [a.evidence for a in asked]


def test_an_item_whose_cognify_fails_is_a_counted_failure(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, _, _ = revised_and_deleted(public_view(data.branch.events), each=1)
    inserts = [e for e in events if e.op == "insert"]
    with LocalServer(replayer := Replayer({})) as server:
        memory = on_server(CogneeMemory, server, tmp_path / "empty")
        try:
            memory.ingest(inserts, world.timeline.checkpoints[0])
        finally:
            memory.close()
    assert replayer.misses
    assert memory.calls == len(inserts) == len(memory.failures)
    assert memory.documents == {}
    assert all(f.startswith("put ") for f in memory.failures), memory.failures


def follow(events, world, probes, server, workdir):
    memory, asked, stored = followed(CogneeMemory, events, world, probes, server, workdir)
    return memory, asked, stored["items"]
