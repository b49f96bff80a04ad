"""Stage `probe`: every probe of a branch asked of one system, answered by the shared reader;
a system with the optional `invalidations` method also gets its invalidation log. A custom
system, the one under test, is asked the public probes (`memshift.probes.public`), which do not
tell which item-times changed; memshift's own systems are asked the counted probes alone."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.intake.reading import schema_default
from memshift.memory.blinded import answer_blinded
from memshift.memory.interface import MemorySystem, SystemInputs
from memshift.memory.invalidation_log import invalidation_log
from memshift.memory.named import system_for
from memshift.memory.reading import (
    Asked,
    answer_branch,
    answers_table,
    drive,
    questions,
    reader_requests,
)
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.probes.build import measured
from memshift.probes.public import PublicProbe, public_probes
from memshift.probes.sample import ProbeSample, sample_world
from memshift.probes.sampled import sample_probes
from memshift.retrieval.budgets import evidence_budget
from memshift.stages.specs import ProbeJob
from memshift.vocabulary import in_order
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
    embedder: str | None = None,
    embedding_cache: Path | None = None,
    every_item_time: bool = False,
    read_set: str | None = None,
    reads: BranchReads | None = None,
    calls: CallLog | None = None,
    sample: ProbeSample | None = None,
) -> int:
    """`reads` (read here when not given, with `sample`) says what the system is asked."""
    reads = reads or BranchReads.read(world_dir, branch, sample)
    inputs = _inputs(world_dir, run_world_dir, branch, system, reads, profile, embedder,
                     embedding_cache, read_set)  # fmt: skip
    memory = system_for(inputs, spec)
    shown = None
    if spec is not None:
        gold = read_table(layout.gold(world_dir, branch), schemas.GOLD)
        shown = public_probes(gold, reads.probes, reads.world, branch)
    return answer_and_log(
        memory, reads, run_world_dir, branch, system, profile, cache_dir, every_item_time, calls,
        shown,
    )  # fmt: skip


@dataclass(frozen=True)
class Followed:
    """One system's questions on one branch, asked as it followed the branch."""

    world: int
    branch: str
    system: str
    asked: list[Asked]
    invalidations: pa.Table | None

    def named(self, run: str) -> dict[str, Any]:
        """Who asked, as `reading.reader_requests` and `reading.answers_table` name it."""
        return {"world": self.world, "branch": self.branch, "system": self.system, "run": run}


def run_together(
    world_dir: Path,
    run_world_dir: Path,
    branches: Sequence[str],
    systems: Sequence[str],
    profile: Profile,
    cache_dir: Path | None,
    calls: CallLog,
    embedder: str | None = None,
    embedding_cache: Path | None = None,
    every_item_time: Collection[str] = (),
    read_set: str | None = None,
    sample: ProbeSample | None = None,
) -> Iterator[tuple[str, str, int]]:
    """`run` for built-in systems on each branch, the reader's calls logged in `calls`: every
    system follows every branch first, then the reader reads all their questions in one batch,
    those about one item side by side (`ModelClient.generate_side_by_side`: their evidence
    starts with the same oldest records); yields (branch, system, answers) as each is written."""
    followed: list[Followed] = []
    for branch in branches:
        reads = BranchReads.read(world_dir, branch, sample)
        world = reads.world
        item_ids = [i.item_id for i in world.items]
        for system in systems:
            inputs = _inputs(world_dir, run_world_dir, branch, system, reads, profile, embedder,
                             embedding_cache, read_set)  # fmt: skip
            memory = system_for(inputs, None)
            counted = reads.probes if system in every_item_time else measured(reads.probes)
            asked = drive(
                memory, reads.events, world.timeline.checkpoints,
                questions(counted, world.items), profile,
            )  # fmt: skip
            reported = invalidation_log(memory, system, world.timeline.checkpoints, item_ids)
            followed.append(Followed(world.seed, branch, system, asked, reported))
    reader = ModelClient(profile, cache_dir=cache_dir, log=calls)
    requests = [reader_requests(f.asked, **f.named(profile.name)) for f in followed]
    replies = reader.generate_side_by_side(
        [list(r.values()) for r in requests], lambda r: r.item.item_id
    )
    for f, asked, got in zip(followed, requests, replies, strict=True):
        table = answers_table(f.asked, dict(zip(asked, got, strict=True)), reader,
                              **f.named(profile.name))  # fmt: skip
        _write(run_world_dir, f.branch, f.system, table, f.invalidations)
        yield f.branch, f.system, table.num_rows


def _inputs(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    reads: BranchReads,
    profile: Profile,
    embedder: str | None,
    embedding_cache: Path | None,
    read_set: str | None,
) -> SystemInputs:
    """What a system is built from; without an `embedder` or a `read_set`, the study's
    default."""
    return SystemInputs(
        world_dir,
        run_world_dir,
        branch,
        system,
        tuple(reads.world.timeline.checkpoints),
        embedder or schema_default("embedder"),
        embedding_cache,
        read_set or schema_default("consent.read_set"),
        evidence_budget(profile, "reader"),
    )


def _write(
    run_world_dir: Path, branch: str, system: str, answers: pa.Table, invalidations: pa.Table | None
) -> None:
    out = layout.system_dir(run_world_dir, branch, system)
    write_table(answers, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
    if invalidations is not None:
        write_table(invalidations, schemas.INVALIDATIONS, layout.table(out, layout.INVALIDATIONS))


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
    ingested: Callable[[int], None] | None = None,
) -> int:
    """`memory` follows the branch and the reader answers its probes (on the unshifted branch
    every item-time with `every_item_time`, else those the measures count); asked `shown` (the
    public probes) when given, the system gets those and the reader answers its probes from their
    evidence. Writes the answers, the reader's call log (unless the job keeps one log in `calls`)
    and, for a system with `invalidations`, its invalidation log; `ingested` follows the events
    fed to the system (`drive`). Returns the number of answers."""
    world = reads.world
    log = calls if calls is not None else CallLog()
    client = ModelClient(reader, cache_dir=cache_dir, log=log)
    counted = reads.probes if every_item_time else measured(reads.probes)
    events, checkpoints = list(reads.events), world.timeline.checkpoints
    if shown is None:
        table = answer_branch(
            memory, events, checkpoints, counted, world.items, client,
            world=world.seed, branch=branch, system=system, ingested=ingested,
        )  # fmt: skip
    else:
        table = answer_blinded(
            memory, events, checkpoints, counted, shown, world.items, client,
            world=world.seed, branch=branch, system=system, ingested=ingested,
        )  # fmt: skip
    reported = invalidation_log(
        memory, system, world.timeline.checkpoints, [i.item_id for i in world.items]
    )
    _write(run_world_dir, branch, system, table, reported)
    if calls is None:
        log.write(
            layout.table(layout.system_dir(run_world_dir, branch, system), layout.READER_CALLS)
        )
    return table.num_rows


def say_answers(world_dir: Path, branch: str, system: str, n: int) -> None:
    print(f"{world_dir.name} {branch} {system}: {n} answers", file=sys.stderr)


def run_job(job: ProbeJob) -> None:
    """Built-in systems on a world's branches in one batch (`ProbeJob`, `run_together`), the
    reader's calls in the job's one log, written once every answer is."""
    calls = CallLog()
    answered = run_together(
        job.world, job.run, in_order(job.branches), job.systems, job.access.profile("reader"),
        job.access.cache, calls, job.embedder, job.embedding_cache, job.every_item_time,
        job.read_set, job.sample,
    )  # fmt: skip
    for branch, system, n in answered:
        say_answers(job.world, branch, system, n)
    calls.write(job.calls)
