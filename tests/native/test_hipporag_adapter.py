"""The HippoRAG adapter drives the real `hipporag` library, in its own environment, over the
objects of a three-month world that are revised, deleted and left alone, against a local server
that speaks OpenAI's API with a scripted stand-in for HippoRAG's three prompts (named entities,
triples, fact recognition): this tests the plumbing (one document per object, a revision
replacing it, a deletion removing it, its documents reaching the reader), never HippoRAG's
quality. `make test-native` installs HippoRAG's environment and runs these tests; without it
they fail naming the install."""

from __future__ import annotations

import json

import pytest
from network_guard import no_network  # noqa: F401  (autouse)
from served import followed, on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.native.hipporag_memory import HippoRAGMemory
from memshift.native.shared_text import event_text
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, Replayer, load
from memshift_tools.stand_ins import hipporag

pytestmark = pytest.mark.native_full
SEED = 1000
BRANCH = "del"


def live_texts(events, until):
    state = {}
    for e in events:
        if e.time <= until:
            state[e.object_id] = e
    return {o: event_text(e) for o, e in state.items() if e.op != "delete"}


def test_hipporag_keeps_one_document_per_object_and_replays_a_recorded_run(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, ops, chosen = revised_and_deleted(public_view(data.branch.events), each=3)
    assert {"update", "delete"} <= {op for o in chosen for op in ops[o]}
    probes = measured(probes_to_table(data.probes, world=SEED, branch=BRANCH)).slice(0, 8)
    recording = tmp_path / "hipporag.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(hipporag, out)) as server:
        memory, asked, held = follow(events, world, probes, server, tmp_path / "recorded")
        stats = server.stats()
    assert memory.failures == []
    # one live document per object, the text of its latest revision; a deleted object has none
    live = live_texts(events, world.timeline.checkpoints[-1])
    assert memory.documents == live and held == sorted(set(live.values()))
    # OpenIE's two prompts for each document indexed, one fact recognition per question at most
    chats = stats["paths"]["/v1/chat/completions"]
    assert 2 * len(memory.indexed) <= chats <= 2 * len(memory.indexed) + len(asked)
    assert len(asked) == probes.num_rows
    # HippoRAG's retrieval fails an assertion of its own when a fact it recognised weighs
    # nothing (its fact scores are min-max scaled): the question's failure, counted, never an
    # empty memory
    failed = [a for a in asked if a.failure is not None]
    assert all(a.failure.startswith("HippoRAG's search failed: AssertionError") for a in failed)
    assert all(a.evidence for a in asked if a.failure is None) and len(failed) < len(asked) / 2
    for a in asked:
        if a.failure is not None:
            continue
        # every document is one live when asked: nothing of a deleted or revised-away text
        now = live_texts(events, world.timeline.checkpoints[a.checkpoint])
        assert set(a.evidence) <= set(now.values()), a.evidence

    with LocalServer(replayer := Replayer(load(recording))) as server:
        replayed, again, _ = follow(events, world, probes, server, tmp_path / "replayed")
    assert replayer.misses == [] and replayed.failures == []
    assert [a.evidence for a in again] == [a.evidence for a in asked]


def test_a_refused_openie_leaves_the_document_without_entities_or_triples(tmp_path):
    """HippoRAG catches its model's failures itself: the document is indexed for dense search
    alone, and the refused calls are the server's (the meter's, in a study), not a failed call
    to HippoRAG."""
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, _, _ = revised_and_deleted(public_view(data.branch.events), each=1)
    inserts = [e for e in events if e.op == "insert"]
    with LocalServer(replayer := Replayer({})) as server:
        memory = on_server(HippoRAGMemory, server, tmp_path / "empty")
        try:
            memory.ingest(inserts, world.timeline.checkpoints[0])
            memory.export(tmp_path / "export.json")
        finally:
            memory.close()
    held = json.loads((tmp_path / "export.json").read_text())["documents"]
    assert memory.failures == [] and held == sorted({event_text(e) for e in inserts})
    assert len(replayer.misses) >= len(held)


def follow(events, world, probes, server, workdir):
    memory, asked, stored = followed(HippoRAGMemory, events, world, probes, server, workdir)
    return memory, asked, stored["documents"]
