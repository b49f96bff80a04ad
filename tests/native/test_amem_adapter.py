"""The A-Mem adapter drives the real `a-mem` library, in its own environment, over the objects of
a three-month world that are revised, deleted and left alone, against a local server that speaks
OpenAI's API with a scripted stand-in for A-Mem's two prompts (content analysis, memory
evolution): this tests the plumbing (events reach A-Mem as notes through `add_note`, it analyses,
stores and retrieves them, the reader gets its notes), never A-Mem's quality. `make test-native`
installs A-Mem's environment and runs these tests; without it they fail naming the install."""

from __future__ import annotations

import json

import pytest
from network_guard import no_network  # noqa: F401  (autouse)
from served import followed, on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.native.amem_memory import AMemMemory
from memshift.native.shared_text import RECORD_OPS, event_text
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, Replayer, load
from memshift_tools.stand_ins import _first_sentence, amem

pytestmark = pytest.mark.native_full
SEED = 1000
BRANCH = "del"


def test_amem_keeps_every_shared_event_as_a_note_and_replays_a_recorded_run(tmp_path):
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, ops, chosen = revised_and_deleted(public_view(data.branch.events))
    assert {"update", "delete"} <= {op for o in chosen for op in ops[o]}
    probes = measured(probes_to_table(data.probes, world=SEED, branch=BRANCH)).slice(0, 12)
    recording = tmp_path / "amem.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(amem, out)) as server:
        memory, asked, stored = follow(events, world, probes, server, tmp_path / "recorded")
        stats = server.stats()
    assert memory.failures == []
    # each note is one content analysis, and one evolution once A-Mem holds a neighbour
    assert stats["paths"]["/v1/chat/completions"] == 2 * memory.calls - 1
    # A-Mem never replaces or deletes a note: every record event up to the last checkpoint is a
    # note, a revision beside the text it revised and a deletion as its tombstone, in the order
    # they were shared, each with what A-Mem's analysis derived of it
    last = world.timeline.checkpoints[-1]
    shared = [event_text(e) for e in events if e.time <= last and e.op in RECORD_OPS]
    assert [m["memory"] for m in stored] == shared
    assert [m["order"] for m in stored] == list(range(1, len(shared) + 1))
    assert [m["context"] for m in stored] == [_first_sentence(text) for text in shared]
    assert any("was deleted." in m["memory"] for m in stored)
    assert len(asked) == probes.num_rows
    for a in asked:
        assert a.evidence and set(a.evidence) <= set(shared)
        assert [shared.index(line) for line in a.evidence] == sorted(
            shared.index(line) for line in a.evidence
        )

    with LocalServer(replayer := Replayer(load(recording))) as server:
        replayed, again, _ = follow(events, world, probes, server, tmp_path / "replayed")
    assert replayer.misses == [] and replayed.failures == []
    assert [a.evidence for a in again] == [a.evidence for a in asked]


def test_a_refused_analysis_leaves_the_note_without_what_the_model_would_derive(tmp_path):
    """A-Mem catches its model's failures itself: the note is stored bare, and the refused calls
    are the server's (the meter's, in a study), not a failed call to A-Mem."""
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", BRANCH))[BRANCH]
    events, _, _ = revised_and_deleted(public_view(data.branch.events), each=1)
    inserts = [e for e in events if e.op == "insert"]
    with LocalServer(replayer := Replayer({})) as server:
        memory = on_server(AMemMemory, server, tmp_path / "empty")
        try:
            memory.ingest(inserts, world.timeline.checkpoints[0])
            memory.export(tmp_path / "export.json")
        finally:
            memory.close()
    stored = json.loads((tmp_path / "export.json").read_text())
    assert memory.calls == len(inserts) == len(stored) and memory.failures == []
    assert len(replayer.misses) >= len(inserts)
    assert all(m["context"] == "General" and m["keywords"] in ("", "[]") for m in stored), stored[
        :2
    ]


def follow(events, world, probes, server, workdir, **options):
    return followed(AMemMemory, events, world, probes, server, workdir, **options)
