"""What a system under test is asked (issue 42): every probe `probes.census_probes` could draw on
a branch, under opaque ids, in an order those ids set. Which of them the measures count (the
changed item-times, the sampled unchanged ones, their premise and implicit probes) stays on the
scoring side, in the branch's probes table.

The measures count the changed item-times and as many unchanged ones, and a premise probe exists
only where an item-time changed; asking exactly those, under ids such as
`w1003-del-c2-<item>-premise`, told a system which item-times changed and on which branch. Asked
all of them, a system sees at every item-time the same kinds of probe whether it changed or not,
and an id is a keyed hash of the probe's identity that names neither its branch nor its kind.
Two probes that ask the same words at the same item-time (a held probe and its direct twin) are
one question, whose answer stands for both.

The key is drawn from the world's seed (`rng.stream`), like everything else of a world: whoever
runs memshift's generator on a seed can compute the ids, and gold too. The ids keep a system
from reading what changed off the tables and questions it is given, not from rebuilding the
world.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.gold.tables import points_from_table
from memshift.probes.build import HELD, Probe, census_probes
from memshift.rng import stream
from memshift.world.generate import World

ID_DIGITS = 16  # hex digits of a probe id's hash: 64 bits, no collision among a world's probes


@dataclass(frozen=True)
class PublicProbe:
    """One question as a system under test gets it: `probe` gives its words, item-time and
    kind; `stands_for` the census probes it answers (ids of `probes.census_probes`), among them
    those the measures count."""

    public_id: str
    probe: Probe
    stands_for: tuple[str, ...]

    @property
    def checkpoint(self) -> int:
        return self.probe.point.checkpoint


@cache
def _key(seed: int) -> bytes:
    return stream(seed, "public-probes").bytes(32)


def _digest(seed: int, text: str) -> str:
    return hmac.new(_key(seed), text.encode(), hashlib.sha256).hexdigest()


def public_id(seed: int, branch: str, probe_id: str) -> str:
    """The id a system under test knows the probe `probe_id` of a branch by: the world and a
    keyed hash, nothing of the branch, the checkpoint, the item or the kind."""
    return f"w{seed}-{_digest(seed, f'probe|{branch}|{probe_id}')[:ID_DIGITS]}"


def branch_label(seed: int, branch: str) -> str:
    """The name a branch has in an exported dataset: a keyed hash, different in every world."""
    return f"b{_digest(seed, f'branch|{branch}')[:8]}"


def public_probes(gold: pa.Table, probes: pa.Table, world: World, branch: str) -> list[PublicProbe]:
    """What a system is asked on a branch of `world` (of a sampled study, a world of the drawn
    items), from the branch's gold and probes tables, by checkpoint and then id. Every probe of
    `probes` of the world's items must be among them (MemshiftError otherwise)."""
    items = pa.array(sorted(i.item_id for i in world.items), pa.string())
    points = points_from_table(
        gold.filter(pc.is_in(gold.column("item_id"), value_set=items)), world.items
    )
    ours = probes.filter(pc.is_in(probes.column("item_id"), value_set=items))
    rows = ours.select(["probe_id", "item_id", "kind"]).to_pylist()
    # the held items: the items the branch's shift touched, which only its probes table names
    held = sorted({r["item_id"] for r in rows if r["kind"] == HELD})
    same_words: dict[tuple[int, str, str], list[Probe]] = {}
    for probe in census_probes(points, seed=world.seed, branch=branch, held=held):
        key = (probe.point.checkpoint, probe.point.item.item_id, probe.question)
        same_words.setdefault(key, []).append(probe)
    shown = [
        PublicProbe(
            public_id(world.seed, branch, group[0].probe_id),
            group[0],
            tuple(p.probe_id for p in group),
        )
        for group in same_words.values()
    ]
    asked = {probe_id for s in shown for probe_id in s.stands_for}
    missing = [r["probe_id"] for r in rows if r["probe_id"] not in asked]
    if missing:
        raise MemshiftError(
            f"world {world.seed}, branch {branch}: {len(missing)} probe(s) not among those a "
            f"system is asked, first {missing[0]}; its probes and gold disagree (rebuild it)"
        )
    if len({s.public_id for s in shown}) < len(shown):
        raise MemshiftError(f"world {world.seed}, branch {branch}: two probes share a public id")
    return sorted(shown, key=lambda s: (s.checkpoint, s.public_id))


def public_of(shown: list[PublicProbe]) -> dict[str, str]:
    """The public id each census probe is asked under."""
    return {probe_id: s.public_id for s in shown for probe_id in s.stands_for}


def given_probes(
    world_dir: Path, world: World, branches: Sequence[str]
) -> dict[str, list[PublicProbe]]:
    """The public probes of each branch of a built world (`world`, read from `world_dir`), as
    its exported dataset gives them."""
    out = {}
    for branch in branches:
        probes = read_table(layout.probes(world_dir, branch), schemas.PROBES)
        gold = read_table(layout.gold(world_dir, branch), schemas.GOLD)
        out[branch] = public_probes(gold, probes, world, branch)
    return out


def unbuilt(worlds: Path, seeds: Sequence[int], branches: Sequence[str]) -> list[Path]:
    """The probes and gold files of these worlds and branches that are not there."""
    return [
        path
        for seed in seeds
        for branch in branches
        for path in (
            layout.probes(layout.world_in(worlds, seed), branch),
            layout.gold(layout.world_in(worlds, seed), branch),
        )
        if not path.exists()
    ]


def not_given(
    ids: Iterable[str], worlds: Path, seeds: Sequence[int], branches: Sequence[str]
) -> list[str] | None:
    """The probe ids among `ids` that the dataset of these worlds and branches does not give,
    sorted; None when the worlds are not all built, so that nothing can be said yet."""
    if unbuilt(worlds, seeds, branches):
        return None
    from memshift.world.stored import load

    given: set[str] = set()
    for seed in seeds:
        world_dir = layout.world_in(worlds, seed)
        shown = given_probes(world_dir, load(world_dir, with_events=False), branches)
        given.update(s.public_id for probes in shown.values() for s in probes)
    return sorted(set(ids) - given)
