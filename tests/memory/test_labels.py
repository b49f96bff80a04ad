"""Systems under test never see the generator's labels: no annotation reaches `ingest`, and no
id in an event, a prompt or an evidence header says which component wrote a record."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import pytest

from conftest import data
from memshift import vocabulary
from memshift.branches import BRANCHES
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.prompts import build
from memshift.stages import answer_audit, audit_repair, ingest, prefork, probe
from memshift.stages.chain import build_world
from memshift.world.ids import SOURCE_PREFIXES
from memshift.world.records import PublicEvent

OPAQUE = re.compile(rf"^(?:{'|'.join(SOURCE_PREFIXES.values())})-[0-9a-f]{{12}}$")
# anything shaped like an object id in a text: a source prefix, a dash and more
ID_LIKE = re.compile(rf"\b(?:{'|'.join(SOURCE_PREFIXES.values())})-[\w-]+")
# Words only the generator knows: which component wrote a record (the life script, churn, the
# routine mail), that a shift did, and which objects items track. Component names that are also
# what a record plainly is (mail, notes, tasks, series, meetings...) say nothing its fields do not.
GENERATOR_WORDS = {"life", "shift", *BRANCHES[1:], "tracked", "card", "churn", "routine"}
HEADER_ID = re.compile(r"^\[(\S+) r\d+ \| ", flags=re.MULTILINE)
BRANCH_NAMES = ("none", "src")
RULES = Profile("rules", "rules")


def words(text: str) -> set[str]:
    """The words of a name, leaving out the opaque ids in it (their hex digits can spell one)."""
    return set(re.split(r"[^a-z]+", ID_LIKE.sub(" ", text).lower())) - {""}


@pytest.mark.parametrize("seed", [1000, 1001])
def test_every_object_id_is_opaque_and_every_group_name_is_silent(seed: int) -> None:
    for branch in BRANCHES:
        for event in data(seed)[branch].branch.events:
            if event.op in ("define", "consent"):
                continue
            assert OPAQUE.match(event.object_id), event.object_id
            assert not words(event.cluster) & GENERATOR_WORDS, event.cluster


def test_an_object_keeps_its_id_in_every_branch_and_ids_are_unique() -> None:
    d = data(1000)
    base = {e.object_id: e.source for e in d["none"].branch.events if e.object_id}
    for branch in BRANCHES:
        shared = [e for e in d[branch].branch.events if not e.component.startswith("shift:")]
        assert {e.object_id: e.source for e in shared if e.object_id} == base
    first_writes = [e for e in d["src"].branch.events if e.op == "insert"]
    assert len({e.object_id for e in first_writes}) == len(first_writes)


class Spy:
    """A custom memory system that keeps everything it is given."""

    seen: ClassVar[list[object]] = []

    def ingest(self, events, now):
        Spy.seen.extend(events)

    def define(self, item_id, version, text): ...
    def consent(self, agent, scope, allowed): ...
    def set_writer(self, writer): ...

    def query(self, question):
        return []

    def export(self, path): ...
    def import_(self, path): ...
    def cost(self): ...


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[object]]:
    """One world through every stage that feeds a system, with every model request kept."""
    root = tmp_path_factory.mktemp("labels")
    world_dir, run_dir = root / "w", root / "run"
    build_world(1000, world_dir, BRANCH_NAMES)
    requests: list[object] = []
    original = ModelClient.generate

    def keep(self, batch):
        requests.extend(batch)
        return original(self, batch)

    patch = pytest.MonkeyPatch()
    patch.setattr(ModelClient, "generate", keep)
    try:
        prefork.run(world_dir, run_dir, RULES, None)
        for branch in BRANCH_NAMES:
            for detection in ("append", "citation", "audit"):
                ingest.run(world_dir, run_dir, branch, detection, RULES, None)
            audit_repair.run(world_dir, run_dir, branch, "append", "m", RULES, None)
            probe.run(
                world_dir, run_dir, branch, vocabulary.cell_system("append", "m"), RULES, None
            )
            answer_audit.run(
                world_dir, run_dir, branch, vocabulary.cell_system("append", "m"), RULES, None
            )
            probe.run(world_dir, run_dir, branch, "spy", RULES, None, spec=f"{__name__}:Spy")
    finally:
        patch.undo()
    return world_dir, run_dir, requests


def test_a_custom_system_is_given_public_events_only(study) -> None:
    assert Spy.seen
    for event in Spy.seen:
        assert type(event) is PublicEvent
        for label in ("asserts", "component", "event_id"):
            assert not hasattr(event, label)


def test_no_prompt_shows_a_generator_label(study) -> None:
    _, _, requests = study
    roles = {r.role for r in requests}
    assert roles == {"writer", "program", "auditor", "reader"}
    for request in requests:
        text = "\n".join(m["content"] for m in build(request))
        for found in ID_LIKE.findall(text):
            assert OPAQUE.match(found), f"{request.role} prompt shows the id {found!r}"
        for shown in HEADER_ID.findall(text):
            assert OPAQUE.match(shown), f"{request.role} prompt heads a record with {shown!r}"
