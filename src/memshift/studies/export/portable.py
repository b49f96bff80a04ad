"""HoldMem's store at the fork as a Portable Memory bundle (the `.mem` format, the PyPI package
`portable-memory`), with or without the derivation extension.

One episode per served statement: its text is what the reader sees, its times the write's. The
derivation extension (`memshift.derivation`, one namespaced top-level key per episode) carries
what the format has no field for and a key needs: the detection and repair arm, the definition
version, the writer, the slot's key and what it is built from, the typed value, the cited records
and the selection (MemShift App. A: no portable format records the definition version a
derivation depended on). Without the extension a second implementation can serve the statements
but cannot tell when they go stale.

The bytes are deterministic: episode lines and checksums are canonical JSON, and the manifest's
creation time (the package writes the clock's) is set to the time of the store, the fork.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from portable_memory import (
    BundleExporter,
    PortableEpisode,
    PortableMemoryStore,
    StoreInfo,
    canonical_json,
    to_line,
)

from memshift import layout
from memshift.errors import MemshiftError
from memshift.memory.holdmem import HoldMemDetector
from memshift.memory.repair import Repairer
from memshift.memory.writes import WriteRecord
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext
from memshift.studies.export.bundles import bundle_issues
from memshift.vocabulary import cell_system
from memshift.world.generate import World
from memshift.world.records import PublicEvent

EXT_KEY = "memshift.derivation"
EXT_SCHEMA = "memshift-derivation-1"
SOURCE_TYPE = "memshift.derived"


@dataclass(frozen=True)
class Served:
    """One statement a cell serves at the fork, with what derived it."""

    episode: PortableEpisode
    derivation: dict[str, Any]


def episode_id(world: int, cell: str, write_id: str) -> str:
    digest = hashlib.sha256(f"{world}|{cell}|{write_id}".encode()).hexdigest()
    return f"ep_{digest[:24]}"


def world_context(seed: int) -> str:
    """An episode's contextID: the world its statement is of."""
    return f"memshift:w{seed}"


def key_kind(detection: str) -> str:
    return {"citation": "citation", "oracle": "oracle", "scope": "scope"}.get(detection, "source")


def served_at_fork(
    world: World,
    events: Sequence[PublicEvent],
    prefork: Sequence[WriteRecord],
    detection: str,
    repair: str,
    writer: ModelClient,
) -> list[Served]:
    """What the cell (detection, repair) serves at the fork, from the shared pre-fork store
    written by `writer`, each statement with its derivation."""
    fork = world.timeline.fork
    detector = HoldMemDetector(world.items, detection, writer, CallContext(world=world.seed))
    detector.ingest([e for e in events if e.time <= fork])
    detector.adopt_prefork(prefork, fork)
    repairer = Repairer(world.items, repair)
    cell = cell_system(detection, repair)
    items = {i.item_id: i for i in world.items}
    found = []
    for item_id, slot in sorted(detector.slots.items()):
        item = items[item_id]
        for position, write_id in enumerate(slot.served):
            write = detector.write_of(write_id)
            stored = repairer.apply(write, detector.state)
            if not stored.served:
                continue
            episode = PortableEpisode(
                id=episode_id(world.seed, cell, write_id),
                event_time=write.time,
                mention_time=write.time,
                ingestion_time=write.time,
                source_type=SOURCE_TYPE,
                source_id=write_id,
                actors=["user"],
                summary=stored.text,
                details=stored.text,
                sensitivity="third-party" if item_id.startswith("contact") else "personal",
                metadata={"item_id": item_id, "write_id": write_id, "position": str(position)},
                categories=["memshift:item", item.item_class],
                importance=0.5,
                confidence=1.0,
                lifecycle_state="active",
                extraction_state="derived",
                access_count=0,
                pinned=False,
                vault_refs=[],
                context_id=world_context(world.seed),
            )
            derivation = {
                "schema": EXT_SCHEMA,
                "item_id": item_id,
                "position": position,
                "detection": detection,
                "repair": repair,
                "definition_version": write.version,
                "writer": slot.writer,
                "written_at": write.time.isoformat(),
                "key_kind": key_kind(detection),
                "key": json.loads(slot.key),
                "cited": [dict(c) for c in write.citations],
                "selection": [list(pair) for pair in write.selection],
                "value": list(stored.value) if isinstance(stored.value, tuple) else stored.value,
                "status": "answer" if stored.value is not None else "abstain",
                "origin": stored.origin,
                "check": stored.check,
            }
            found.append(Served(episode, derivation))
    return found


class HoldMemPortableStore(PortableMemoryStore):
    """A cell's statements at the fork as the package's store; `with_ext` adds the derivation."""

    def __init__(self, served: Sequence[Served], with_ext: bool) -> None:
        self.served = list(served)
        self.with_ext = with_ext

    def store_info(self) -> StoreInfo:
        return StoreInfo(generator=f"memshift/{version('memshift')}", schema_version=1)

    def export_episodes(self) -> list[PortableEpisode]:
        return [s.episode for s in self.served]

    def export_episode_ext(self) -> dict[str, str]:
        if not self.with_ext:
            return {}
        return {s.episode.id: canonical_json({EXT_KEY: s.derivation}) for s in self.served}


def export_bundle(served: Sequence[Served], with_ext: bool, out: Path, at: datetime) -> Any:
    """Write the bundle to `out` (a directory, conventionally `*.mem`) with its creation time
    set to `at`, validate it, and return its manifest; MemshiftError naming every issue."""
    store = HoldMemPortableStore(served, with_ext)
    manifest = BundleExporter().export(store, out)
    manifest = dataclasses.replace(manifest, created_at=at)
    layout.bundle_manifest(out).write_text(to_line(manifest))
    issues = bundle_issues(out)
    if issues:
        raise MemshiftError(f"bundle {out} does not validate: {'; '.join(issues)}")
    return manifest
