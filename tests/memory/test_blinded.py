"""A custom system is asked every public probe under its public id; the reader answers the probes
the measures count from their twins' evidence, exactly as if the system had been asked those
alone."""

from __future__ import annotations

import re

import pytest
from cellrun import client, public_events

from conftest import data, world
from memshift.gold.tables import gold_to_table
from memshift.memory.blinded import answer_blinded
from memshift.memory.reading import answer_branch
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.probes.build import measured, probes_to_table
from memshift.probes.public import public_probes
from pipeline.custom_memory import NewestRecords

SEED = 1002


class Recording(NewestRecords):
    def __init__(self) -> None:
        super().__init__()
        self.questions: list = []

    def query(self, question):
        self.questions.append(question)
        return super().query(question)


def ask(branch: str, blinded: bool):
    w = world(SEED)
    probes = probes_to_table(data(SEED)[branch].probes, world=SEED, branch=branch)
    counted = measured(probes)
    memory, log = Recording(), CallLog()
    reader = ModelClient(client().profile, log=log)
    events, checkpoints = list(public_events(SEED, branch)), w.timeline.checkpoints
    if blinded:
        gold = gold_to_table(data(SEED)[branch].gold.points, world=SEED, branch=branch)
        shown = public_probes(gold, probes, w, branch)
        table = answer_blinded(memory, events, checkpoints, counted, shown, w.items, reader,
                               world=SEED, branch=branch, system="mine")  # fmt: skip
    else:
        table = answer_branch(memory, events, checkpoints, counted, w.items, reader,
                              world=SEED, branch=branch, system="mine")  # fmt: skip
    return table, memory.questions, len(log)


@pytest.mark.parametrize("branch", ["src", "del", "def"])
def test_blinded_asking_gives_the_answers_and_calls_of_asking_the_counted_probes(branch):
    blinded, shown, calls = ask(branch, blinded=True)
    alone, counted, alone_calls = ask(branch, blinded=False)
    assert blinded.equals(alone)
    assert calls == alone_calls == alone.num_rows
    # the system was asked more than was counted, under ids that name nothing
    assert len(shown) > len(counted)
    assert all(re.fullmatch(rf"w{SEED}-[0-9a-f]{{16}}", q.probe_id) for q in shown)
    checkpoints = len(world(SEED).timeline.checkpoints)
    asked = {(q.item.item_id, q.time) for q in shown}
    assert len({item for item, _ in asked}) == len(world(SEED).items)
    assert len({time for _, time in asked}) == checkpoints
