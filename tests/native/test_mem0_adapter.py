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

import sqlite3

from network_guard import no_network  # noqa: F401  (autouse)
from served import on_server
from slices import revised_and_deleted

from memshift.dataset import world_data
from memshift.gold.tables import value_json
from memshift.memory.programs import ProgramRunner
from memshift.memory.reading import answer, drive, questions
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.native.mem0_memory import PERSON, Mem0Memory
from memshift.probes.build import measured, probes_to_table
from memshift.world.generate import generate_world
from memshift.world.records import public_view
from memshift.world.timeline import Timeline
from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import mem0_extraction

SEED = 1000
RULES = Profile("rules", "rules")


def mem0(server, workdir, **options):
    return on_server(Mem0Memory, server, workdir, **options)


def writer_programs(world, branch):
    return ProgramRunner(
        world.items, ModelClient(RULES), CallContext("rules", SEED, branch, "mem0")
    )


def history_events(workdir):
    with sqlite3.connect(workdir / "history.db") as db:
        return [row[0] for row in db.execute("SELECT event FROM history ORDER BY created_at")]


def test_mem0_follows_a_three_month_branch_and_serves_the_reader(tmp_path):
    """The redefinition branch, with the query-time program view on: every other line of the
    evidence is a Mem0 memory, and for a definition item the first is the writer's program value,
    which with the exact rule-based program writer is the gold value."""
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", "def"))["def"]
    events = public_view(data.branch.events)
    probes = measured(probes_to_table(data.probes, world=SEED, branch="def"))
    with LocalServer(mem0_extraction) as server:
        memory = mem0(server, tmp_path / "mem0", programs=writer_programs(world, "def"))
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
    # the release only adds (MemShift C.5): no update or delete decision of its own
    assert set(history_events(tmp_path / "mem0")) == {"ADD"}
    assert len(asked) == probes.num_rows
    served = [a for a in asked if a.evidence]
    assert len(served) > 0.9 * len(asked)
    # the evidence is Mem0's memories: the stand-in keeps each shared line as one memory
    assert any("[email message," in text for a in served for text in a.evidence)
    gold = {p["probe_id"]: p for p in probes.to_pylist()}
    definitions = [a for a in asked if a.question.item.is_definition]
    assert definitions and all(
        a.evidence[0].endswith(")") and "computed by the writer's own program" in a.evidence[0]
        for a in definitions
    )
    assert not any(
        "computed by the writer's own program" in a.evidence[0]
        for a in served
        if not a.question.item.is_definition
    )
    answerable = [a for a in definitions if gold[a.question.probe_id]["gold_status"] == "answer"]
    assert answerable
    for a in answerable:
        viewed = value_json(memory.viewed[a.question.probe_id])
        assert viewed == gold[a.question.probe_id]["gold_value"], a.question.probe_id
    rows = answer(
        asked, ModelClient(RULES), world=SEED, branch="def", system="mem0", run="test"
    ).to_pylist()
    assert {r["status"] for r in rows} <= {"answer", "abstain"}


def test_source_keyed_invalidation_deletes_earlier_revisions_through_mem0(tmp_path):
    """Before a revision or a deletion is added, the memories whose metadata names the record are
    deleted through Mem0's own delete: what is left is one memory per object, of its last event."""
    world = generate_world(SEED, Timeline(3))
    data = world_data(world, ("none", "del"))["del"]
    events, _, _ = revised_and_deleted(public_view(data.branch.events))
    last_checkpoint = world.timeline.checkpoints[-1]
    followed = [e for e in events if e.time <= last_checkpoint]
    assert {"update", "delete"} <= {e.op for e in followed}
    with LocalServer(mem0_extraction) as server:
        memory = mem0(server, tmp_path / "mem0", invalidate="source")
        try:
            drive(memory, events, world.timeline.checkpoints, [])
            kept = memory.memory.get_all(filters={"user_id": PERSON}, top_k=10_000)["results"]
        finally:
            memory.close()
    assert memory.failures == []
    last = {}
    for e in followed:
        last[e.object_id] = e
    assert sorted((m["metadata"]["object_id"], m["metadata"]["revision"]) for m in kept) == sorted(
        (o, e.revision) for o, e in last.items()
    )
    replaced = sum(e.op != "insert" for e in followed)
    assert memory.deleted == replaced
    assert history_events(tmp_path / "mem0").count("DELETE") == replaced
