"""HoldMem as one object: the same answers as the staged cells, export and import, consent."""

from __future__ import annotations

import json

import pytest
from cellrun import answers_of, cell_answers

from conftest import world
from memshift.errors import MemshiftError
from memshift.memory.holdmem_system import HoldMem
from memshift.memory.interface import Blocked, MemorySystem, Question

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


def _served(memory, item_id):
    ids = memory.detector.served[memory.checkpoint][item_id]
    return [memory.stored[w] for w in ids if memory.stored[w].served]


@pytest.mark.parametrize("read_set", ["selection", "citations"])
def test_a_b1_memory_refuses_an_item_whose_read_set_touches_a_revoked_scope(read_set):
    items = world(SEED).items
    memory = HoldMem(items, detection="source", read_set=read_set)
    run(memory)
    item = next(i for i in items if i.item_id == "person.employer")
    (stored,) = _served(memory, item.item_id)
    read, unread = stored.scopes(read_set), sorted(set(item.sources) - set(stored.scopes(read_set)))
    assert read
    now = world(SEED).timeline.checkpoints[memory.checkpoint]
    question = Question("q", item, 1, now, item.agent, "?")
    served = memory.query(question)
    assert served == [stored.text]
    memory.consent(item.agent, read[0], False)
    assert isinstance(memory.query(question), Blocked)
    other_agent = Question("q", item, 1, now, "someone-else", "?")
    assert memory.query(other_agent) == served
    memory.consent(item.agent, read[0], True)
    for scope in unread:  # a scope the item declares but its write did not read
        memory.consent(item.agent, scope, False)
    assert memory.query(question) == served


def test_a_b0_memory_keeps_no_read_set_and_ignores_consent():
    items = world(SEED).items
    memory = HoldMem(items, detection="append")
    run(memory)
    item = next(i for i in items if i.item_id == "person.employer")
    now = world(SEED).timeline.checkpoints[memory.checkpoint]
    question = Question("q", item, 1, now, item.agent, "?")
    served = memory.query(question)
    for scope in item.sources:
        memory.consent(item.agent, scope, False)
    assert memory.query(question) == served != []
