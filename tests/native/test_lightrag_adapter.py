"""The LightRAG adapter drives the real `lightrag-hku` library, against the local server with a
scripted stand-in for LightRAG's prompts, recorded and then replayed: this tests the plumbing
(the update contract of one document per source object, the context reaching the reader, the
replay of a recorded run), never LightRAG's quality. A three-month world takes LightRAG about
nine minutes here, most of it LightRAG writing its whole store after every document, so `make
test` follows the objects of a branch that are revised or deleted and a few others, and
`make test-native` runs the whole world (tests/native/test_three_month_worlds.py). Skipped, with
the reason, where the native extra is not installed."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("lightrag") is None:
    pytest.skip(
        "the native extra is not installed: pip install -e .[native]", allow_module_level=True
    )

from network_guard import no_network  # noqa: F401  (autouse)
from served import on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.memory.reading import drive, questions
from memshift.native.lightrag_memory import LightRAGMemory
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, Replayer, load
from memshift_tools.stand_ins import lightrag

SEED = 1000
BRANCH = "del"


def follow(events, world, probes, server, workdir):
    memory = on_server(LightRAGMemory, server, workdir)
    try:
        asked = drive(memory, events, world.timeline.checkpoints, questions(probes, world.items))
        revisions = {f"{e.object_id}@{e.revision}" for e in events if e.op != "delete"}
        stored = {d: status for d, (status, _) in memory.statuses(sorted(revisions)).items()}
    finally:
        memory.close()
    return memory, asked, stored


def test_lightrag_keeps_one_document_per_object_and_replays_a_recorded_run(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, ops, chosen = revised_and_deleted(public_view(data.branch.events))
    assert {"update", "delete"} <= {op for o in chosen for op in ops[o]}
    probes = measured(probes_to_table(data.probes, world=SEED, branch=BRANCH)).slice(0, 12)
    recording = tmp_path / "lightrag.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(lightrag, out)) as server:
        memory, asked, stored = follow(events, world, probes, server, tmp_path / "recorded")
    assert memory.failures == []
    # one live document per object, its latest revision; a deleted object has none
    last = {}
    for e in events:
        if e.time <= world.timeline.checkpoints[-1]:
            last[e.object_id] = e
    live = {o: f"{e.object_id}@{e.revision}" for o, e in last.items() if e.op != "delete"}
    assert memory.documents == live
    assert stored == dict.fromkeys(sorted(live.values()), "processed")
    assert len(asked) == probes.num_rows
    assert all(a.evidence for a in asked)
    assert any("Document Chunks" in line for a in asked for line in a.evidence)

    with LocalServer(replayer := Replayer(load(recording))) as server:
        replayed, again, _ = follow(events, world, probes, server, tmp_path / "replayed")
    assert replayer.misses == [] and replayed.failures == []
    assert [a.evidence for a in again] == [a.evidence for a in asked]


def test_a_reply_missing_from_the_recording_is_a_counted_failure(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, _, _ = revised_and_deleted(public_view(data.branch.events), each=1)
    with LocalServer(replayer := Replayer({})) as server:
        memory = on_server(LightRAGMemory, server, tmp_path / "empty")
        try:
            memory.ingest([e for e in events if e.op == "insert"], world.timeline.checkpoints[0])
        finally:
            memory.close()
    assert replayer.misses
    assert memory.failures and all("no recorded reply" in f for f in memory.failures)
