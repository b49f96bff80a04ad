"""The second implementation: a memory that imports a Portable Memory bundle and keeps it up.

It shares HoldMem's data model (statements, keys, the writer's request, the repair arms), which
is why the paper's leaving test cannot fail between the two, but not its code: it keeps its own
slots and maintenance loop and never builds a `HoldMemDetector`. It follows the sources like any
product with the same connectors, from the start of the world, deriving nothing before the
import. At each checkpoint a slot whose episode carried the derivation extension has its key
recomputed from the extension's kind and components (event counts of the named sources or record
groups, the definition version, its current writer); when the key differs, the slot is
invalidated, the writer re-derives the item from a fresh selection and the extension's repair arm
checks the new write. A slot imported without the extension is served as imported and never
invalidated: nothing tells the memory when it goes stale.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from portable_memory import BundleImporter, PortableEpisode, PortableMemoryStore

from memshift.errors import MemshiftError
from memshift.intake.reading import shortened
from memshift.memory.interface import Blocked, Consents, Cost, Invalidation, Question
from memshift.memory.keys import EventCounts, citation_key, scope_key, source_key
from memshift.memory.programs import ProgramRunner
from memshift.memory.repair import Repairer
from memshift.memory.writes import MaintenanceRow, WriteRecord, writer_id, written
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext, WriterRequest
from memshift.retrieval.budgets import evidence_budget
from memshift.retrieval.queries import item_query
from memshift.retrieval.selection import Selector
from memshift.studies.export.bundles import bundle_issues
from memshift.studies.export.portable import EXT_KEY, EXT_SCHEMA, world_context
from memshift.vocabulary import REPAIRS
from memshift.world.items import Item
from memshift.world.records import LiveState, PublicEvent

KEY_KINDS = ("source", "citation", "scope")


@dataclass
class ImportedSlot:
    """One item's statements as imported, and what the extension says derived them."""

    texts: list[str]
    derivation: dict[str, Any] | None
    key: str = ""


class _Received(PortableMemoryStore):
    """What the package's importer hands over: every episode and its extra keys."""

    def __init__(self) -> None:
        self.episodes: list[tuple[PortableEpisode, dict[str, Any] | None]] = []

    def import_episode(self, e: PortableEpisode, ext: str | None) -> None:
        self.episodes.append((e, None if ext is None else json.loads(ext)))


def read_slots(
    path: Path, items: dict[str, Item], world: int | None = None
) -> dict[str, ImportedSlot]:
    """The slots of a bundle, or MemshiftError naming the bundle and what is wrong with it:
    the issues `bundle_issues` finds (before anything reads it), an episode of another world
    than `world` (or, with no world given, episodes of several worlds), without an item id or
    naming an unknown item, two episodes at one position of an item, an extension of another
    schema or key."""
    issues = bundle_issues(path)
    if issues:
        raise MemshiftError(f"bundle {path}: {'; '.join(issues)}")
    received = _Received()
    BundleImporter().import_bundle(received, path, reembed=False)
    _check_world(path, [episode for episode, _ in received.episodes], world)
    placed: dict[tuple[str, int], tuple[str, dict[str, Any] | None]] = {}
    for episode, ext in received.episodes:
        item_id = episode.metadata.get("item_id", "")
        if item_id not in items:
            raise MemshiftError(f"bundle {path}: episode {episode.id} names no item of this world")
        try:
            position = int(episode.metadata.get("position", "0"))
        except ValueError:
            raise MemshiftError(f"bundle {path}: episode {episode.id} has no position") from None
        if (item_id, position) in placed:
            raise MemshiftError(f"bundle {path}: two episodes at {item_id} position {position}")
        derivation = None if ext is None else ext.get(EXT_KEY)
        if derivation is not None:
            _check_derivation(path, episode.id, item_id, derivation)
        placed[(item_id, position)] = (episode.details, derivation)
    slots: dict[str, ImportedSlot] = {}
    for (item_id, _), (text, derivation) in sorted(placed.items()):
        slot = slots.setdefault(item_id, ImportedSlot([], derivation))
        slot.texts.append(text)
        if derivation is not None:
            slot.derivation = derivation
            slot.key = json.dumps(derivation["key"], sort_keys=True, separators=(",", ":"))
    return slots


def _check_world(path: Path, episodes: Sequence[PortableEpisode], world: int | None) -> None:
    """Every episode's contextID names `world`, or, with none given, one world for all."""
    claims = sorted({str(e.context_id) for e in episodes})
    if world is None:
        if len(claims) > 1:
            raise MemshiftError(
                f"bundle {path}: its episodes claim {len(claims):,} worlds "
                f"({', '.join(shortened(c) for c in claims[:3])}{', ...' if claims[3:] else ''})"
            )
        return
    expected = world_context(world)
    strangers = [e for e in episodes if e.context_id != expected]
    if strangers:
        raise MemshiftError(
            f"bundle {path}: {len(strangers):,} of its {len(episodes):,} episodes are not of "
            f"world {world} (episode {shortened(strangers[0].id)} has contextID "
            f"{shortened(strangers[0].context_id)}, not {expected!r})"
        )


def _check_derivation(path: Path, episode: str, item_id: str, derivation: Any) -> None:
    where = f"bundle {path}: episode {episode}"
    if not isinstance(derivation, dict) or derivation.get("schema") != EXT_SCHEMA:
        raise MemshiftError(f"{where}: the derivation extension is not {EXT_SCHEMA}")
    if derivation.get("item_id") != item_id:
        raise MemshiftError(f"{where}: its derivation is of another item")
    if derivation.get("key_kind") not in KEY_KINDS:
        raise MemshiftError(
            f"{where}: key kind {derivation.get('key_kind')!r} cannot be recomputed here "
            f"(one of {', '.join(KEY_KINDS)})"
        )
    if not isinstance(derivation.get("key"), dict) or derivation.get("repair") not in REPAIRS:
        raise MemshiftError(f"{where}: the derivation has no key or no repair arm")


class PortableHoldMem:
    """The second implementation, with the seven-method interface and `invalidations`;
    `maintenance` logs what it invalidated and re-derived at each checkpoint."""

    def __init__(
        self,
        items: Sequence[Item],
        writer: ModelClient | None = None,
        context: CallContext | None = None,
    ) -> None:
        from memshift.models.profiles import Profile

        self.items = {i.item_id: i for i in items}
        self.client = writer or ModelClient(Profile("rules", "rules"))
        self.context = context or CallContext()
        self.slots: dict[str, ImportedSlot] = {}
        self.state = LiveState()
        self.counts = EventCounts()
        self.checkpoint = -1
        self.times: list[datetime] = []  # each checkpoint's `now`
        self.consents = Consents()
        self.maintenance: list[MaintenanceRow] = []
        self.writes: list[WriteRecord] = []

    # ---- the seven methods --------------------------------------------------------------------

    def import_(self, path: Path) -> None:
        """Take a bundle's slots; nothing is kept from a bundle that fails any check, and every
        episode must be of the context's world (when it names one)."""
        world = self.context.world if self.context.world >= 0 else None
        self.slots = read_slots(Path(path), self.items, world)

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        for e in events:
            self.state.apply(e)
            if e.op in ("insert", "update", "delete"):
                self.counts.add(e.source, e.cluster, e.object_id)
        self.checkpoint += 1
        self.times.append(now)
        self._maintain(now)

    def define(self, item_id: str, version: int, text: str) -> None:
        """Definition versions arrive as `define` events through `ingest`."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        self.consents.set(agent, scope, allowed)

    def set_writer(self, writer: object) -> None:
        if not isinstance(writer, ModelClient):
            raise MemshiftError("the writer is a memshift.models.client.ModelClient")
        self.client = writer

    def query(self, question: Question) -> list[str] | Blocked:
        blocked = self.consents.blocked(question)
        if blocked is not None:
            return blocked
        slot = self.slots.get(question.item.item_id)
        return list(slot.texts) if slot else []

    def export(self, path: Path) -> None:
        raise MemshiftError(
            "the second implementation imports bundles; it does not export them again"
        )

    def cost(self) -> Cost:
        return Cost.of_calls(self.client.log.rows)

    def invalidations(self) -> list[Invalidation]:
        return [
            Invalidation(m.item_id, self.times[m.checkpoint], m.reason)
            for m in self.maintenance
            if m.invalidated
        ]

    # ---- its own maintenance ------------------------------------------------------------------

    def key_now(self, item: Item, derivation: dict[str, Any], now: datetime) -> str:
        """The slot's key as the records, definitions and writer stand now, of the kind and from
        the cited records its derivation names."""
        version = self.state.definition_versions.get(item.item_id, 1)
        writer = writer_id(self.client)
        kind = derivation["key_kind"]
        if kind == "citation":
            cited = [c["object_id"] for c in derivation["cited"]]
            return citation_key(cited, self.counts, version, writer)
        if kind == "scope" and item.is_definition:
            return scope_key(item, self.state, now, version)
        return source_key(item, self.counts, version, writer)

    def _maintain(self, now: datetime) -> None:
        stale = [
            (item_id, slot.key)
            for item_id, slot in sorted(self.slots.items())
            if slot.derivation is not None
            and self.key_now(self.items[item_id], slot.derivation, now) != slot.key
        ]
        writes = self._rederive([self.items[i] for i, _ in stale], now)
        repairers = self._repairers(writes)
        for (item_id, before), write in zip(stale, writes, strict=True):
            slot = self.slots[item_id]
            assert slot.derivation is not None
            stored = repairers[slot.derivation["repair"]].apply(write, self.state)
            slot.texts = [stored.text] if stored.served else []
            slot.derivation = {
                **slot.derivation,
                "cited": [dict(c) for c in write.citations],
                "writer": writer_id(self.client),
                "definition_version": write.version,
            }
            slot.key = self.key_now(self.items[item_id], slot.derivation, now)
            self.maintenance.append(
                MaintenanceRow(
                    item_id,
                    self.checkpoint,
                    True,
                    "key changed",
                    before,
                    slot.key,
                    True,
                    write.write_id,
                )
            )

    def _repairers(self, writes: Sequence[WriteRecord]) -> dict[str, Repairer]:
        """One repairer per arm the re-derived slots name; D=m's programs prepared for them."""
        items = list(self.items.values())
        arms = {
            w.item_id: self.slots[w.item_id].derivation["repair"]  # type: ignore[index]
            for w in writes
        }
        repairers = {}
        for repair in sorted(set(arms.values())):
            runner = None
            if repair == "m":
                runner = ProgramRunner(items, self.client, self.context)
                runner.prepare([(w.item_id, w.version) for w in writes if arms[w.item_id] == "m"])
            repairers[repair] = Repairer(items, repair, runner)
        return repairers

    def _rederive(self, items: Sequence[Item], now: datetime) -> list[WriteRecord]:
        requests = []
        # one index per set of sources: items reading the same sources now rank the same records
        selectors: dict[tuple[str, ...], Selector] = {}
        budget = evidence_budget(self.client.profile, "writer")
        for item in items:
            version = self.state.definition_versions.get(item.item_id, 1)
            if item.sources not in selectors:
                live = sorted(
                    (r for r in self.state.records.values() if r.source in item.sources),
                    key=lambda r: (r.updated, r.object_id),
                )
                selectors[item.sources] = Selector.over(live)
            requests.append(
                WriterRequest(
                    item,
                    version,
                    now,
                    selectors[item.sources].select(item_query(item, version), budget),
                    None,
                    replace(self.context, item=item.item_id, checkpoint=self.checkpoint),
                )
            )
        replies = self.client.generate(requests) if requests else []
        writes = [
            written(q, a, "rederive", self.checkpoint)
            for q, a in zip(requests, replies, strict=True)
        ]
        self.writes += writes
        return writes
