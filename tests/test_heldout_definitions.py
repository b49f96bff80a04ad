"""The pinned held-out definitions: the registry, a regeneration, and gold on real worlds."""

from __future__ import annotations

import pytest

from conftest import world
from memshift.definitions.catalog import (
    DEFINITION_ITEMS,
    DEFINITION_SETS,
    HELDOUT_FORMATS,
    HELDOUT_PATH,
    HELDOUT_SETS,
    SIX,
    definition,
    definition_items,
)
from memshift.gold.evaluator import ANSWER, evaluate
from memshift.gold.heldout_definitions import (
    compute_statistics,
    heldout_payload,
    read_pinned,
    render_payload,
    statistics_from_payload,
)
from memshift.world.items import Item
from memshift.world.records import snapshots

HELDOUT = [d for name in HELDOUT_SETS for d in DEFINITION_SETS[name]]


def test_registry_holds_the_fixed_six_and_three_draws() -> None:
    assert list(DEFINITION_SETS) == ["fixed", *HELDOUT_SETS]
    assert DEFINITION_SETS["fixed"] is SIX
    assert definition_items("fixed") == DEFINITION_ITEMS
    for draw, name in enumerate(HELDOUT_SETS, start=1):
        assert definition_items(name) == tuple(f"def.h{draw}_{k}" for k in range(1, 7))
        assert [(d.item_id, d.version) for d in DEFINITION_SETS[name]] == [
            (f"def.h{draw}_{k}", v) for k in range(1, 7) for v in (1, 2)
        ]
    assert set(HELDOUT_FORMATS) == {d.item_id for d in HELDOUT}
    with pytest.raises(KeyError, match="no definition set"):
        definition_items("heldout-4")


def test_definition_resolves_held_out_items() -> None:
    d = definition("def.h1_1", 1)
    assert (d.item_id, d.version) == ("def.h1_1", 1)
    assert definition("def.h3_6", 2).version == 2
    assert definition("def.important_contacts", 2) is SIX[1]
    with pytest.raises(KeyError):
        definition("def.h1_7", 1)


def test_pinned_file_is_its_own_statistics_redrawn() -> None:
    payload = read_pinned()
    again = heldout_payload(statistics_from_payload(payload), payload["sampler_seed"])
    assert render_payload(again) == HELDOUT_PATH.read_text(encoding="utf-8")


# the held-out definitions drawn again, about 20 s: `make test-studies`, in CI
@pytest.mark.studies
@pytest.mark.slow(minutes=0.3)
def test_pinned_file_equals_a_regeneration() -> None:
    """Generates the ten dev worlds (about 15 s); after a change to the generator, rewrite the
    file with `python -m memshift.gold.heldout_definitions`."""
    pinned = read_pinned()
    fresh = heldout_payload(compute_statistics(pinned["dev_seeds"]), pinned["sampler_seed"])
    assert render_payload(fresh) == HELDOUT_PATH.read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", [1000, 1001])
def test_every_held_out_version_evaluates_on_a_world(seed: int) -> None:
    w = world(seed)
    times = list(w.timeline.checkpoints)
    states = list(snapshots(list(w.events), times))
    for d in HELDOUT:
        value_type, question, fmt = HELDOUT_FORMATS[d.item_id]
        item = Item(d.item_id, "definition", value_type, (d.source,), "x", question, fmt)
        for state, t in zip(states, times, strict=True):
            gold = evaluate(item, list(state.records.values()), t, version=d.version)
            assert gold.version == d.version
            if gold.status != ANSWER:
                continue
            texts = [state.records[oid].text for oid, _ in gold.deps]
            for surface, _ in gold.facts:
                assert any(surface in text for text in texts), (d.label, surface)


def test_every_held_out_version_is_non_empty_somewhere() -> None:
    found: set[str] = set()
    for seed in (1000, 1001, 1002):
        w = world(seed)
        times = list(w.timeline.checkpoints)
        for state, t in zip(snapshots(list(w.events), times), times, strict=True):
            records = list(state.records.values())
            for d in HELDOUT:
                if d.label + d.item_id in found:
                    continue
                item = Item(d.item_id, "definition", "entity_set", (d.source,), "x", "q", "f")
                gold = evaluate(item, records, t, version=d.version)
                if gold.status == ANSWER and gold.value not in (None, "", ()):
                    found.add(d.label + d.item_id)
    assert found == {d.label + d.item_id for d in HELDOUT}
