"""Running HoldMem cells in memory for the tests (the stages do the same through files)."""

from __future__ import annotations

import json
from functools import cache

from conftest import data, unshifted, world
from memshift.memory.detection import prefork_writes, run_detection
from memshift.memory.programs import ProgramRunner
from memshift.memory.reading import answer, drive, questions
from memshift.memory.repair import branch_states, run_repair
from memshift.memory.served import StoreServer
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.build import IMPLICIT, probes_to_table
from memshift.world.records import PublicEvent, public_view

RULES = Profile("rules", "rules")
WEAK = Profile("weak", "rules", error_model={"seed": 3, "rates": {"definition": 0.3}})
PROFILES = {"rules": RULES, "weak": WEAK}


def client(profile: Profile = RULES) -> ModelClient:
    return ModelClient(profile)


@cache
def public_events(seed: int, branch: str) -> tuple[PublicEvent, ...]:
    """What a memory system is given, as the stages give it: no generator annotations."""
    chosen = unshifted(seed) if branch == "none" else data(seed)[branch]
    return tuple(public_view(chosen.branch.events))


def gold_deps(seed: int, branch: str):
    return {(p.item.item_id, p.time): p.gold.deps for p in data(seed)[branch].gold.points}


@cache
def prefork(seed: int, profile: str = "rules"):
    return tuple(
        prefork_writes(
            world(seed),
            public_events(seed, "none"),
            client(PROFILES[profile]),
            CallContext(world=seed),
        )
    )


@cache
def detect(seed: int, branch: str, detection: str, profile: str = "rules"):
    return run_detection(
        world(seed),
        public_events(seed, branch),
        detection,
        client(PROFILES[profile]),
        prefork(seed, profile),
        CallContext(world=seed, branch=branch),
        gold_deps(seed, branch) if detection == "oracle" else None,
    )


def cell_answers(seed: int, branch: str, detection: str, repair: str, profile: str = "rules"):
    w, events = world(seed), public_events(seed, branch)
    states = branch_states(w, events)
    detector = detect(seed, branch, detection, profile)
    model = client(PROFILES[profile])
    programs = ProgramRunner(w.items, model, CallContext()) if repair == "m" else None
    store = run_repair(w, states, detector.writes, detector.served, repair, programs)
    evidence = {
        (k, i): [s.text for s in items] for k, slots in store.items() for i, items in slots.items()
    }
    probes = item_probes(seed, branch)
    asked = drive(
        StoreServer(evidence, w.timeline.checkpoints),
        events,
        w.timeline.checkpoints,
        questions(probes, w.items),
    )
    return answer(
        asked, model, world=seed, branch=branch, system=f"holdmem-d{repair}-{detection}", run="test"
    ).to_pylist()


def item_probes(seed: int, branch: str, implicit: bool = False):
    """The branch's probes whose gold is their item's (direct and premise ones), or with
    `implicit` its implicit-dependency probes, whose gold is the answer's."""
    chosen = [p for p in data(seed)[branch].probes if (p.kind == IMPLICIT) == implicit]
    return probes_to_table(chosen, world=seed, branch=branch)


def answers_of(system, seed: int, branch: str, name: str = "x", implicit: bool = False):
    """Drive any memory system through a branch and answer its probes with the rules reader
    (its implicit-dependency probes with `implicit`)."""
    w, probes = world(seed), item_probes(seed, branch, implicit)
    asked = drive(
        system, public_events(seed, branch), w.timeline.checkpoints, questions(probes, w.items)
    )
    return answer(
        asked, client(RULES), world=seed, branch=branch, system=name, run="test"
    ).to_pylist()


def gold_points(seed: int, branch: str):
    return {(p.item.item_id, p.checkpoint): p for p in data(seed)[branch].gold.points}


def correct(row, point) -> bool:
    if row["status"] != point.gold.status:
        return False
    if point.gold.status != "answer":
        return True
    value = json.loads(row["value"]) if row["value"] is not None else None
    value = tuple(sorted(value)) if isinstance(value, list) else value
    return value == point.gold.value
