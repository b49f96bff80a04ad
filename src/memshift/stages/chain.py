"""Every data stage of one world in order, through files: what the study's world job runs, in
one process (`memshift job world`), and what the benchmark and the golden-world test build. Each
step says what it made, one line to stderr, as its own command (`memshift world`, `branches`,
`gold`, `probes`) does."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memshift.stages import branches, gold, manifest, probes, world
from memshift.stages.specs import WorldJob
from memshift.vocabulary import BRANCHES, in_order


def say(line: str) -> None:
    print(line, file=sys.stderr)


def make_world(seed: int, out: Path, history_months: int, definitions: str) -> None:
    w = world.run(seed, out, history_months, definitions)
    say(f"world {seed}: {len(w.events)} base events -> {out}")


def make_branches(world_dir: Path, names: Sequence[str]) -> None:
    for branch in in_order(names):
        b = branches.run(world_dir, branch)
        say(
            f"{world_dir.name} {branch}: {len(b.events)} events, {len(b.shift_events)} from the "
            f"shift, items touched: {', '.join(b.touched_items) or 'none'}"
        )


def make_gold(world_dir: Path, names: Sequence[str]) -> None:
    for branch in in_order(names):
        g = gold.run(world_dir, branch)
        changed = sum(p.changed for p in g.points)
        say(
            f"{world_dir.name} {branch}: {len(g.points)} item-times, {changed} changed, "
            f"fidelity {g.fidelity.facts_checked} facts ok"
        )


def make_probes(world_dir: Path, names: Sequence[str]) -> None:
    for branch in in_order(names):
        p = probes.run(world_dir, branch)
        say(f"{world_dir.name} {branch}: {len(p)} probes")


def run_job(job: WorldJob) -> None:
    """A world from nothing: its base events, then every branch's events, gold and probes, then
    its manifest."""
    make_world(job.seed, job.out, job.history_months, job.definitions)
    for step in (make_branches, make_gold, make_probes):
        step(job.out, job.branches)
    manifest.run(job.out, in_order(job.branches))


def build_world(seed: int, world_dir: Path, names: tuple[str, ...] = BRANCHES) -> None:
    """A world of the default settings, without `run_job`'s lines."""
    world.run(seed, world_dir)
    for branch in in_order(names):
        branches.run(world_dir, branch)
        gold.run(world_dir, branch)
        probes.run(world_dir, branch)
    manifest.run(world_dir, in_order(names))
