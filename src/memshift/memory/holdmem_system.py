"""HoldMem as one object with the seven-method interface.

The pipeline runs HoldMem in stages (pre-fork store, detection, repair, probing) so each can be
cached and rerun alone; this class does the same work in one process, for users who want the
reference memory as a library or as a template for their own system.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import datetime
from pathlib import Path

from memshift.errors import MemshiftError
from memshift.intake.reading import load_json, shortened
from memshift.intake.storable import text_problem
from memshift.memory.holdmem import HoldMemDetector
from memshift.memory.interface import Blocked, Consents, Cost, Question
from memshift.memory.programs import ProgramRunner
from memshift.memory.repair import Repairer
from memshift.memory.stored import StoredItem
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.vocabulary import KEYED, READ_SETS
from memshift.world.items import Item
from memshift.world.records import PublicEvent

BUNDLE_FORMAT = "memshift-holdmem-1"
MAX_BUNDLE_BYTES = 16 << 20


def read_bundle(path: Path, item_ids: Collection[str]) -> dict[str, list[str]]:
    """The slots of a HoldMem bundle: item id -> served statements. Refused in one line naming
    the file when it is not one (duplicate keys, deep nesting, non-UTF-8 and oversized files
    are refused by the loader), when it names an item not among `item_ids`, or when a statement
    holds a lone surrogate (valid JSON, "\\ud83d", but no text any writer stores)."""
    bundle = load_json(path, "HoldMem bundle", MAX_BUNDLE_BYTES)
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        raise MemshiftError(f"{path} is not a HoldMem bundle ({BUNDLE_FORMAT})")
    slots = bundle.get("slots")
    if not isinstance(slots, dict) or not all(
        isinstance(v, list) and all(isinstance(t, str) for t in v) for v in slots.values()
    ):
        raise MemshiftError(f"{path}: 'slots' must map item ids to lists of statements")
    unknown = sorted(set(slots) - set(item_ids))
    if unknown:
        raise MemshiftError(
            f"{path}: 'slots' names {len(unknown)} item id(s) this memory does not have, "
            f"first {shortened(unknown[0])}"
        )
    unstorable = [
        (item_id, n, problem)
        for item_id, texts in sorted(slots.items())
        for n, text in enumerate(texts)
        if (problem := text_problem(text)) is not None
    ]
    if unstorable:
        item_id, n, problem = unstorable[0]
        raise MemshiftError(
            f"{path}: {len(unstorable)} statement(s) cannot be stored, first statement {n} of "
            f"{item_id}: {problem}"
        )
    return slots


class HoldMem:
    def __init__(
        self,
        items: Sequence[Item],
        *,
        detection: str = "source",
        repair: str = "1",
        client: ModelClient | None = None,
        context: CallContext | None = None,
        read_set: str = "selection",
    ) -> None:
        if read_set not in READ_SETS:
            raise ValueError(f"unknown read set {read_set!r}; choose one of {READ_SETS}")
        self.read_set = read_set
        self.client = client or ModelClient(Profile("rules", "rules"))
        context = context or CallContext()
        self.detector = HoldMemDetector(items, detection, self.client, context)
        programs = ProgramRunner(items, self.client, context) if repair == "m" else None
        self.repairer = Repairer(items, repair, programs)
        self.stored: dict[str, StoredItem] = {}
        self.checkpoint = -1
        self.consents = Consents()
        self.imported: dict[str, list[str]] | None = None
        self.item_ids = frozenset(item.item_id for item in items)

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        """The first call must bring the history up to the fork; each later call one interval."""
        self.detector.ingest(events)
        self.checkpoint += 1
        if self.checkpoint == 0:
            self.detector.adopt_prefork(self.detector.prefork_writes(now), now)
        else:
            self.detector.checkpoint(now, self.checkpoint)
        for write in self.detector.writes:
            if write.write_id not in self.stored:
                self.stored[write.write_id] = self.repairer.apply(write, self.detector.state)

    def define(self, item_id: str, version: int, text: str) -> None:
        """Definition versions arrive as `define` events through `ingest`; keys carry them."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        self.consents.set(agent, scope, allowed)

    def set_writer(self, writer: object) -> None:
        if not isinstance(writer, ModelClient):
            raise MemshiftError("HoldMem's writer is a memshift.models.client.ModelClient")
        self.client = writer
        self.detector.switch_writer(writer)

    def query(self, question: Question) -> list[str] | Blocked:
        """The served statements of the item; a B=1 memory refuses them to an agent that lost a
        scope they read (or cited, with `read_set="citations"`), a B=0 one serves every agent
        alike, and an imported store, which carries no read set, refuses by the item's declared
        sources."""
        if self.imported is not None:
            blocked = self.consents.blocked(question)
            return blocked or list(self.imported.get(question.item.item_id, ()))
        served = self.detector.served.get(self.checkpoint, {}).get(question.item.item_id, ())
        stored = [self.stored[w] for w in served if self.stored[w].served]
        if self.detector.detection in KEYED:
            scopes = {scope for s in stored for scope in s.scopes(self.read_set)}
            blocked = self.consents.touching(question, scopes)
            if blocked is not None:
                return blocked
        return [s.text for s in stored]

    def export(self, path: Path) -> None:
        slots = {
            item: [self.stored[w].text for w in ids if self.stored[w].served]
            for item, ids in self.detector.served.get(self.checkpoint, {}).items()
        }
        bundle = {
            "format": BUNDLE_FORMAT,
            "detection": self.detector.detection,
            "repair": self.repairer.repair,
            "writer": self.detector.writer,
            "slots": slots,
        }
        Path(path).write_text(json.dumps(bundle, indent=2, sort_keys=True))

    def import_(self, path: Path) -> None:
        """Serve the statements of a bundle `export` wrote; MemshiftError in one line naming the
        file when it is unreadable, oversized, malformed or names items this memory lacks."""
        self.imported = read_bundle(Path(path), self.item_ids)

    def cost(self) -> Cost:
        return Cost.of_calls(self.client.log.rows)
