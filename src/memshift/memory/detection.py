"""Running HoldMem's detection over one branch of a world: the shared pre-fork store, then one
detection policy at every checkpoint after the fork."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memshift.gold.tables import Dependencies
from memshift.memory.holdmem import HoldMemDetector
from memshift.memory.writes import WriteRecord
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext
from memshift.world.generate import World
from memshift.world.records import PublicEvent


def _interval(
    events: Sequence[PublicEvent], lo: datetime | None, hi: datetime
) -> list[PublicEvent]:
    return [e for e in events if (lo is None or e.time > lo) and e.time <= hi]


def prefork_writes(
    world: World, events: Sequence[PublicEvent], client: ModelClient, context: CallContext
) -> list[WriteRecord]:
    """One write per item at the fork from the full history; identical for every branch and
    cell, since every branch shares the events up to the fork."""
    detector = HoldMemDetector(world.items, "source", client, context)
    detector.ingest(_interval(events, None, world.timeline.fork))
    return detector.prefork_writes(world.timeline.fork)


def run_detection(
    world: World,
    events: Sequence[PublicEvent],
    detection: str,
    client: ModelClient,
    prefork: Sequence[WriteRecord],
    context: CallContext,
    gold_deps: Dependencies | None = None,
    auditor: ModelClient | None = None,
) -> HoldMemDetector:
    checkpoints = world.timeline.checkpoints
    detector = HoldMemDetector(world.items, detection, client, context, gold_deps, auditor)
    detector.ingest(_interval(events, None, checkpoints[0]))
    detector.adopt_prefork(prefork, checkpoints[0])
    for k in range(1, len(checkpoints)):
        detector.ingest(_interval(events, checkpoints[k - 1], checkpoints[k]))
        detector.checkpoint(checkpoints[k], k)
    return detector
