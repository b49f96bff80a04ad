"""The MemOS adapter drives the real `MemoryOS` library, in its own environment, over the objects
of a three-month world that are revised, deleted and left alone, against a local server that
speaks OpenAI's API with a scripted stand-in for MemOS's extraction prompt: this tests the
plumbing (events reach MemOS through its extraction and add, it stores and retrieves, the reader
gets its memories), never MemOS's quality. `make test-native`
installs MemOS's environment and runs these tests; without it they fail naming the install."""

from __future__ import annotations

import json

import pytest
from network_guard import no_network  # noqa: F401  (autouse)
from served import followed, on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.native.memos_memory import MemOSMemory
from memshift.native.shared_text import RECORD_OPS, event_text
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, Replayer, load
from memshift_tools.stand_ins import memos_extraction

# minutes each (Cognee retries a refused LLM call for four minutes): make test-native
pytestmark = pytest.mark.native_full
SEED = 1000
BRANCH = "del"


def test_memos_keeps_every_shared_event_and_replays_a_recorded_run(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, ops, chosen = revised_and_deleted(public_view(data.branch.events))
    assert {"update", "delete"} <= {op for o in chosen for op in ops[o]}
    probes = measured(probes_to_table(data.probes, world=SEED, branch=BRANCH)).slice(0, 12)
    recording = tmp_path / "memos.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(memos_extraction, out)) as server:
        memory, asked, stored = follow(
            events, world, probes, server, tmp_path / "recorded", batch=5
        )
        stats = server.stats()
    assert memory.failures == []
    # one extraction call per add, each add at most `batch` events
    assert stats["paths"]["/v1/chat/completions"] == memory.calls
    # MemOS never updates or deletes what it was told: every record event up to the last
    # checkpoint is a memory, a revision beside the text it revised and a deletion as its
    # tombstone beside the deleted text, in the order they were shared
    last = world.timeline.checkpoints[-1]
    shared = [event_text(e) for e in events if e.time <= last and e.op in RECORD_OPS]
    assert [m["memory"] for m in stored] == shared
    assert [m["order"] for m in stored] == list(range(1, len(shared) + 1))
    assert any("was deleted." in m["memory"] for m in stored)
    assert len(asked) == probes.num_rows
    for a in asked:
        assert a.evidence and set(a.evidence) <= set(shared)
        # oldest first
        assert [shared.index(line) for line in a.evidence] == sorted(
            shared.index(line) for line in a.evidence
        )

    with LocalServer(replayer := Replayer(load(recording))) as server:
        replayed, again, _ = follow(events, world, probes, server, tmp_path / "replayed", batch=5)
    assert replayer.misses == [] and replayed.failures == []
    assert [a.evidence for a in again] == [a.evidence for a in asked]


def test_an_extraction_missing_from_the_recording_is_a_counted_failure(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, _, _ = revised_and_deleted(public_view(data.branch.events), each=1)
    inserts = [e for e in events if e.op == "insert"]
    with LocalServer(replayer := Replayer({})) as server:
        memory = on_server(MemOSMemory, server, tmp_path / "empty", batch=1)
        try:
            memory.ingest(inserts, world.timeline.checkpoints[0])
            memory.export(tmp_path / "export.json")
        finally:
            memory.close()
    assert replayer.misses
    assert memory.calls == len(inserts) == len(memory.failures)
    assert all("no recorded reply" in f for f in memory.failures), memory.failures
    assert json.loads((tmp_path / "export.json").read_text()) == []


def follow(events, world, probes, server, workdir, **options):
    return followed(MemOSMemory, events, world, probes, server, workdir, **options)
