"""Stage `probe`: every probe of a branch asked of one system, answered by the shared reader;
a system with the optional `invalidations` method also gets its invalidation log. A custom
system, the one under test, is asked the public probes (`memshift.public_probes`), which do not
tell which item-times changed; memshift's own systems are asked the counted probes alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.memory.blinded import answer_blinded
from memshift.memory.interface import MemorySystem, SystemInputs
from memshift.memory.invalidation_log import invalidation_log
from memshift.memory.reading import answer_branch
from memshift.memory.systems import system_for
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.probe_sample import ProbeSample, sample_world
from memshift.probes import measured
from memshift.public_probes import PublicProbe, public_probes
from memshift.retrieval.budgets import evidence_budget
from memshift.sampled_probes import sample_probes
from memshift.world.generate import World
from memshift.world.records import PublicEvent
from memshift.world.stored import load as load_world
from memshift.world.stored import load_public_events


@dataclass(frozen=True)
class BranchReads:
    """What every system probed on a branch reads of its world: read once per process for all
    the systems one job asks (each system follows its own copy of the event list). In a
    sampled study the world holds the drawn items and the probes are those the sample asks."""

    world: World
    probes: pa.Table
    events: tuple[PublicEvent, ...]

    @classmethod
    def read(cls, world_dir: Path, branch: str, sample: ProbeSample | None = None) -> BranchReads:
        world = sample_world(load_world(world_dir, with_events=False), sample)
        probes = read_table(layout.probes(world_dir, branch), schemas.PROBES)
        return cls(
            world,
            sample_probes(probes, world, branch, sample),
            tuple(load_public_events(world_dir, branch)),
        )


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    profile: Profile,
    cache_dir: Path | None,
    spec: str | None = None,
    embedder: str = "wordllama",
    embedding_cache: Path | None = None,
    every_item_time: bool = False,
    read_set: str = "selection",
    reads: BranchReads | None = None,
    calls: CallLog | None = None,
    sample: ProbeSample | None = None,
) -> int:
    """`reads` (read here when not given, with `sample`) says what the system is asked."""
    reads = reads or BranchReads.read(world_dir, branch, sample)
    inputs = SystemInputs(
        world_dir,
        run_world_dir,
        branch,
        system,
        tuple(reads.world.timeline.checkpoints),
        embedder,
        embedding_cache,
        read_set,
        evidence_budget(profile, "reader"),
    )
    memory = system_for(inputs, spec)
    shown = None
    if spec is not None:
        gold = read_table(layout.gold(world_dir, branch), schemas.GOLD)
        shown = public_probes(gold, reads.probes, reads.world, branch)
    return answer_and_log(
        memory, reads, run_world_dir, branch, system, profile, cache_dir, every_item_time, calls,
        shown,
    )  # fmt: skip


def answer_and_log(
    memory: MemorySystem,
    reads: BranchReads,
    run_world_dir: Path,
    branch: str,
    system: str,
    reader: Profile,
    cache_dir: Path | None,
    every_item_time: bool = False,
    calls: CallLog | None = None,
    shown: list[PublicProbe] | None = None,
) -> int:
    """`memory` follows the branch and the reader answers its probes (on the unshifted branch
    every item-time with `every_item_time`, else those the measures count); asked `shown` (the
    public probes) when given, the system gets those and the reader answers its probes from their
    evidence. Writes the answers, the reader's call log (unless the job keeps one log in `calls`)
    and, for a system with `invalidations`, its invalidation log. Returns the number of
    answers."""
    world = reads.world
    log = calls if calls is not None else CallLog()
    client = ModelClient(reader, cache_dir=cache_dir, log=log)
    counted = reads.probes if every_item_time else measured(reads.probes)
    events, checkpoints = list(reads.events), world.timeline.checkpoints
    if shown is None:
        table = answer_branch(
            memory, events, checkpoints, counted, world.items, client,
            world=world.seed, branch=branch, system=system,
        )  # fmt: skip
    else:
        table = answer_blinded(
            memory, events, checkpoints, counted, shown, world.items, client,
            world=world.seed, branch=branch, system=system,
        )  # fmt: skip
    out = layout.system_dir(run_world_dir, branch, system)
    write_table(table, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
    if calls is None:
        log.write(layout.table(out, layout.READER_CALLS))
    reported = invalidation_log(
        memory, system, world.timeline.checkpoints, [i.item_id for i in world.items]
    )
    if reported is not None:
        write_table(reported, schemas.INVALIDATIONS, layout.table(out, layout.INVALIDATIONS))
    return table.num_rows
