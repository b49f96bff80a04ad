"""Conflicting sources (MemShift F.10): a HoldMem cell abstains on a conflict item-time only when
its reader was shown both disagreeing values; a key detects a changed source, not a
disagreement."""

from __future__ import annotations

import pytest
from cellrun import client, detect, item_probes, public_events

from conftest import data, world
from memshift.gold.evaluator import conflict_key
from memshift.memory.reading import answer, drive, questions
from memshift.memory.repair import branch_states, run_repair
from memshift.memory.served import StoreServer


def rival_values(seed: int) -> dict[str, tuple[str, str]]:
    """Per conflict item, the card's new value and the one the contact's message states."""
    shift = data(seed)["conflict"].branch.shift_events
    out = {}
    for item_id in data(seed)["conflict"].branch.touched_items:
        k, attribute = int(item_id[7:9]), item_id.split(".")[1]
        card_id = world(seed).cast.card_id(k)
        card = next(e for e in shift if e.object_id == card_id)
        key = conflict_key(card_id, attribute)
        message = next(e for e in shift if key in e.asserts)
        out[item_id] = (card.fields[attribute], message.asserts[key])
    return out


@pytest.mark.parametrize("seed", [1000, 1001])
@pytest.mark.parametrize("detection", ["append", "source"])
def test_a_cell_abstains_on_a_conflict_only_when_shown_both_values(seed, detection):
    w, events = world(seed), public_events(seed, "conflict")
    states = branch_states(w, events)
    detector = detect(seed, "conflict", detection)
    store = run_repair(w, states, detector.writes, detector.served, "1")
    evidence = {
        (k, i): [s.text for s in items] for k, slots in store.items() for i, items in slots.items()
    }
    probes = item_probes(seed, "conflict")
    asked = drive(StoreServer(evidence, w.timeline.checkpoints), events, w.timeline.checkpoints,
                  questions(probes, w.items))  # fmt: skip
    answers = answer(asked, client(), world=seed, branch="conflict", system="x", run="test")
    shown = {a.question.probe_id: " ".join(a.evidence or ()) for a in asked}
    rivals = rival_values(seed)
    answered = {a["probe_id"]: a for a in answers.to_pylist()}
    conflicts = [
        (p, answered[p["probe_id"]])
        for p in probes.to_pylist()
        if p["item_id"] in rivals and p["gold_status"] == "abstain" and p["checkpoint"] > 0
    ]
    assert conflicts
    for p, a in conflicts:
        on_card, in_message = rivals[p["item_id"]]
        if a["status"] == "abstain":
            assert on_card in shown[p["probe_id"]] and in_message in shown[p["probe_id"]]
