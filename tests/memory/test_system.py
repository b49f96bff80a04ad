"""HoldMem as one object: the same answers as the staged cells, export and import, consent."""

from __future__ import annotations

import json

import pytest
from cellrun import answers_of, cell_answers

from conftest import world
from memshift.errors import MemshiftError
from memshift.memory.interface import Blocked, MemorySystem, Question
from memshift.memory.system import HoldMem

SEED, BRANCH = 1001, "src"


def run(system):
    return answers_of(system, SEED, BRANCH, f"holdmem-d1-{system.detector.detection}")


@pytest.mark.parametrize("detection", ["source", "append", "refresh", "upsert"])
def test_the_object_answers_exactly_like_the_staged_cell(detection):
    memory = HoldMem(world(SEED).items, detection=detection, repair="1")
    assert isinstance(memory, MemorySystem)
    assert run(memory) == cell_answers(SEED, BRANCH, detection, "1")


def test_refresh_keeps_old_items_beside_new_and_upsert_keeps_only_the_newest():
    sizes = {}
    for detection in ("refresh", "upsert", "source"):
        memory = HoldMem(world(SEED).items, detection=detection, repair="0")
        run(memory)
        sizes[detection] = max(len(ids) for ids in memory.detector.served[4].values())
    assert sizes["refresh"] > 1 and sizes["upsert"] == 1 and sizes["source"] == 1


def test_export_and_import_carry_the_served_statements(tmp_path):
    items = world(SEED).items
    memory = HoldMem(items, detection="source", repair="1")
    run(memory)
    bundle = tmp_path / "store.json"
    memory.export(bundle)
    other = HoldMem(items)
    other.import_(bundle)
    question = Question("q", items[0], 1, world(SEED).timeline.checkpoints[4], "assistant", "?")
    assert other.query(question) == memory.query(question) != []
    bundle.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(MemshiftError, match="is not a HoldMem bundle"):
        other.import_(bundle)


def test_a_revoked_agent_is_refused():
    items = world(SEED).items
    memory = HoldMem(items)
    item = next(i for i in items if i.item_id == "person.time_zone")
    memory.consent(item.agent, "calendar", False)
    question = Question("q", item, 1, world(SEED).timeline.fork, item.agent, "?")
    assert isinstance(memory.query(question), Blocked)
    memory.consent(item.agent, "calendar", True)
    assert memory.query(question) == []
