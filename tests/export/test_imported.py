"""The second implementation: a bundle imported with the derivation extension keeps HoldMem's
behaviour after the fork; without it, nothing is ever invalidated; a bad bundle is refused whole."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import pytest
from test_portable import RULES, cell

from conftest import data, world
from memshift.errors import MemshiftError
from memshift.memory.detection import prefork_writes as written_prefork
from memshift.memory.detection import run_detection
from memshift.memory.invalidation_log import invalidation_log
from memshift.memory.reading import answer, drive, questions
from memshift.memory.repair import branch_states, run_repair
from memshift.memory.served import StoreServer
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.build import probes_to_table
from memshift.studies.export.imported import PortableHoldMem
from memshift.studies.export.portable import Served, export_bundle
from memshift.world.records import public_view

SEED = 1000


def events(branch: str):
    return tuple(public_view(data(SEED)[branch].branch.events))


def bundle(tmp_path: Path, arm: str = "ext", served=None) -> Path:
    out = tmp_path / f"{arm}.mem"
    export_bundle(served or cell(SEED, "source", "1"), arm == "ext", out, world(SEED).timeline.fork)
    return out


def evidence(memory, branch: str) -> dict[str, str]:
    """probe id -> the hash of the evidence the reader was shown."""
    w = world(SEED)
    probes = probes_to_table(data(SEED)[branch].probes, world=SEED, branch=branch)
    asked = drive(memory, events(branch), w.timeline.checkpoints, questions(probes, w.items))
    table = answer(asked, ModelClient(RULES), world=SEED, branch=branch, system="x", run="r")
    return {r["probe_id"]: r["evidence_hash"] for r in table.to_pylist()}


@cache
def holdmem_run(branch: str) -> tuple[dict[str, str], set[tuple[str, int]]]:
    """What HoldMem(1, source) shows the reader, and the (item, checkpoint) pairs it
    invalidated, run by HoldMem's own code."""
    w = world(SEED)
    client = ModelClient(RULES)
    prefork = written_prefork(w, events("none"), client, CallContext(world=SEED))
    detector = run_detection(w, events(branch), "source", client, prefork, CallContext())
    store = run_repair(w, branch_states(w, events(branch)), detector.writes, detector.served, "1")
    texts = {(k, i): [s.text for s in v] for k, slots in store.items() for i, v in slots.items()}
    invalidated = {(m.item_id, m.checkpoint) for m in detector.maintenance if m.invalidated}
    return evidence(StoreServer(texts, w.timeline.checkpoints), branch), invalidated


def holdmem_evidence(branch: str) -> dict[str, str]:
    return holdmem_run(branch)[0]


@pytest.mark.parametrize("branch", ["none", "src", "def", "del"])
def test_with_the_keys_the_import_shows_the_reader_what_holdmem_shows(tmp_path, branch):
    imported = PortableHoldMem(world(SEED).items, ModelClient(RULES))
    imported.import_(bundle(tmp_path))
    assert evidence(imported, branch) == holdmem_evidence(branch)
    assert imported.maintenance and all(m.reason == "key changed" for m in imported.maintenance)
    # what it reports through the interface is what HoldMem's maintenance log holds
    log = invalidation_log(imported, "pm", world(SEED).timeline.checkpoints, imported.items)
    assert log is not None
    assert {(r["item_id"], r["checkpoint"]) for r in log.to_pylist()} == holdmem_run(branch)[1]


def test_without_the_keys_the_import_never_invalidates_and_calls_no_writer(tmp_path):
    imported = PortableHoldMem(world(SEED).items, ModelClient(RULES))
    imported.import_(bundle(tmp_path, "noext"))
    shown = evidence(imported, "src")
    assert imported.maintenance == [] and imported.client.log.rows == []
    fork = {p: h for p, h in holdmem_evidence("src").items() if p in shown}
    # every item-time after the fork still sees the statement of the fork
    by_item: dict[str, set[str]] = {}
    for probe in data(SEED)["src"].probes:
        by_item.setdefault(probe.point.item.item_id, set()).add(shown[probe.probe_id])
    assert len(by_item) == 48 and all(len(hashes) == 1 for hashes in by_item.values())
    assert shown != fork


def test_another_writer_invalidates_every_slot_at_the_first_checkpoint(tmp_path):
    imported = PortableHoldMem(world(SEED).items, ModelClient(Profile("rules-copy", "rules")))
    imported.import_(bundle(tmp_path))
    evidence(imported, "none")
    first = [m for m in imported.maintenance if m.checkpoint == 0]
    assert len(first) == 48 and all(m.invalidated for m in first)


def altered(change) -> list[Served]:
    served = list(cell(SEED, "source", "1"))
    served[0] = change(served[0])
    return served


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda s: Served(
                dataclasses.replace(s.episode, metadata={**s.episode.metadata, "item_id": "x"}),
                s.derivation,
            ),
            "names no item of this world",
        ),
        (
            lambda s: Served(s.episode, {**s.derivation, "schema": "other-9"}),
            "the derivation extension is not memshift-derivation-1",
        ),
        (
            lambda s: Served(s.episode, {**s.derivation, "key_kind": "oracle"}),
            "key kind 'oracle' cannot be recomputed here",
        ),
        (
            lambda s: Served(s.episode, {**s.derivation, "item_id": "person.diet"}),
            "its derivation is of another item",
        ),
    ],
)
def test_a_bundle_this_memory_cannot_take_is_refused_naming_why(tmp_path, change, problem):
    imported = PortableHoldMem(world(SEED).items)
    imported.import_(bundle(tmp_path / "good"))
    before = dict(imported.slots)
    with pytest.raises(MemshiftError, match=problem):
        imported.import_(bundle(tmp_path / "bad", served=altered(change)))
    assert imported.slots == before  # nothing half-imported


def test_two_episodes_at_one_place_and_a_tampered_bundle_are_refused(tmp_path):
    served = list(cell(SEED, "source", "1"))
    twin = dataclasses.replace(served[0].episode, id=served[0].episode.id + "x")
    doubled = bundle(tmp_path / "twice", served=[*served, Served(twin, served[0].derivation)])
    imported = PortableHoldMem(world(SEED).items)
    with pytest.raises(MemshiftError, match="two episodes at"):
        imported.import_(doubled)
    tampered = bundle(tmp_path / "t")
    lines = tampered / "items/episode.jsonl"
    lines.write_bytes(lines.read_bytes().replace(b'"personal"', b'"Personal"', 1))
    with pytest.raises(MemshiftError, match=r"checksum mismatch: items/episode\.jsonl"):
        imported.import_(tampered)
    assert imported.slots == {}
