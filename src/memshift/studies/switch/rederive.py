"""The writer switch: the records and gold stay as they are; at the fork the writer model changes.

The store before the switch is the shared pre-fork store, written by the old writer. At the switch
each detection policy runs one checkpoint with no new events and the new writer: a key that holds
the writer (source, citation) changes for every item, which is invalidated ("writer changed") and
re-derived by the new writer from a fresh selection of the same records; a policy whose key does
not hold the writer, or that keys nothing (append, upsert, audit), re-derives nothing and makes no
call. Each repair arm is then applied to the new writes as after a shift (D=m with programs the
new writer writes). Checkpoint 0 of the result is the store before, checkpoint 1 the store after;
both stand at the fork.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from memshift.memory.holdmem import HoldMemDetector
from memshift.memory.interface import Question
from memshift.memory.programs import ProgramRunner
from memshift.memory.reading import Asked, questions
from memshift.memory.repair import Repairer
from memshift.memory.stored import StoredItem, serve
from memshift.memory.writes import WriteRecord
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.probes.build import DIRECT
from memshift.retrieval.budgets import evidence_budget, label_tokens
from memshift.retrieval.selection import pack_evidence
from memshift.world.generate import World
from memshift.world.records import LiveState, PublicEvent

BEFORE, AFTER = 0, 1


@dataclass(frozen=True)
class Switched:
    """One detection policy through the switch: its writes and maintenance (`detector`), and per
    repair arm the stored items served before (checkpoint 0) and after (checkpoint 1)."""

    detector: HoldMemDetector
    stores: dict[str, dict[int, dict[str, list[StoredItem]]]]
    # per repair arm, what it made of each write of the new writer (served or not)
    rederived: dict[str, list[StoredItem]]


def switch_writer(
    world: World,
    events: Sequence[PublicEvent],
    prefork: Sequence[WriteRecord],
    detection: str,
    old: ModelClient,
    new: ModelClient,
    repairs: Sequence[str],
    context: CallContext,
) -> Switched:
    """Adopt `prefork` (written by `old`), switch to `new` at the fork, repair by each arm (the
    programs of D=m are `new`'s too)."""
    fork = world.timeline.fork
    detector = HoldMemDetector(world.items, detection, old, context)
    detector.ingest([e for e in events if e.time <= fork])
    detector.adopt_prefork(prefork, fork)
    detector.switch_writer(new)
    detector.checkpoint(fork, AFTER)
    stores = {}
    rederived = {}
    for repair in repairs:
        runner = None
        if repair == "m":
            runner = ProgramRunner(world.items, new, context)
            runner.prepare([(w.item_id, w.version) for w in detector.writes if w.kind != "prefork"])
        repairer = Repairer(world.items, repair, runner)
        stored = {w.write_id: repairer.apply(w, detector.state) for w in detector.writes}
        stores[repair] = serve(detector.served, stored)
        rederived[repair] = [stored[w.write_id] for w in detector.writes if w.checkpoint == AFTER]
    return Switched(detector, stores, rederived)


def fork_questions(probes: pa.Table, world: World) -> list[Question]:
    """The direct probes at the fork: one per item, asked before and after the switch."""
    at_fork = probes.filter(
        pc.and_(
            pc.equal(probes.column("checkpoint"), BEFORE), pc.equal(probes.column("kind"), DIRECT)
        )
    )
    return [question for _, question in questions(at_fork, world.items)]


def asked_of(
    fork: Sequence[Question],
    served: dict[str, list[StoredItem]],
    checkpoint: int,
    reader: Profile | None = None,
) -> list[Asked]:
    """Every fork question asked of what a store serves, packed for the `reader`."""
    budget, per_item = evidence_budget(reader, "reader"), label_tokens(reader)
    return [
        Asked(
            q,
            checkpoint,
            pack_evidence([s.text for s in served.get(q.item.item_id, [])], budget, per_item),
        )
        for q in fork
    ]


def prefork_served(prefork: Sequence[WriteRecord], world: World) -> dict[str, list[StoredItem]]:
    """The pre-fork store as every cell serves it: as written."""
    repairer = Repairer(world.items, "0")
    stored: dict[str, list[StoredItem]] = {}
    for write in prefork:
        item = repairer.apply(write, LiveState())  # as written: D=0 reads no records
        if item.served:
            stored.setdefault(write.item_id, []).append(item)
    return stored
