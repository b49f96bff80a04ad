"""A slice of a study (`probes.sample`): per world a seeded draw of so many items of each item
class, and per branch and class at most so many of their item-times. Every memory system of the
study maintains and is asked the drawn items only, so a model's calls fall with the sample.

The worlds keep every item and probe (studies share them): a stage applies the sample where it
reads a world (`sample_world`, here) or a branch's probes (`probes.sampled.sample_probes`, a
module of its own so that the stages that read no probes do not hold the probes' code). Both
are pure functions of the world's seed, the sample's settings and what the world holds, so
every job of a study draws the same slice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memshift.errors import ConfigError

if TYPE_CHECKING:
    from memshift.world.generate import World
    from memshift.world.items import Item


@dataclass(frozen=True)
class ProbeSample:
    """`items` per item class and world; at most `item_times` item-times per branch and class
    (None: all of the drawn items'); `census`: the unshifted branch's item-times no measure
    counts (systems.unshifted_all_items) stay whole, or go as the rest of the undrawn ones."""

    items: int
    item_times: int | None = None
    seed: int = 0
    census: bool = True

    def __post_init__(self) -> None:
        for name, value, least in (("items", self.items, 1), ("seed", self.seed, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ConfigError(f"probes.sample.{name}: {value!r} is not an integer >= {least}")
        if self.item_times is not None and (
            not isinstance(self.item_times, int)
            or isinstance(self.item_times, bool)
            or self.item_times < 1
        ):
            raise ConfigError(
                f"probes.sample.item_times: {self.item_times!r} is not an integer >= 1"
            )
        if not isinstance(self.census, bool):
            raise ConfigError(f"probes.sample.census: {self.census!r} is not true or false")

    @classmethod
    def from_config(cls, spec: Mapping[str, Any] | None) -> ProbeSample | None:
        """The sample of a checked study's `probes.sample`, None without one."""
        if spec is None:
            return None
        return cls(
            spec["items"], spec.get("item_times"), spec.get("seed", 0), spec.get("census", True)
        )

    def to_json(self) -> str:
        return json.dumps(
            {"items": self.items, "item_times": self.item_times, "seed": self.seed,
             "census": self.census},
            sort_keys=True,
        )  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> ProbeSample:
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigError(f"probe sample {text!r} is not JSON") from None
        if not isinstance(data, dict) or set(data) - {"items", "item_times", "seed", "census"}:
            raise ConfigError(
                f"probe sample {text!r} is not an object of items, item_times, seed and census"
            )
        if "items" not in data:
            raise ConfigError(f"probe sample {text!r} names no items")
        return cls.from_config(data)  # type: ignore[return-value]

    def describe(self) -> str:
        """The sample in words, for the report's header."""
        times = (
            "every item-time of those items"
            if self.item_times is None
            else f"at most {self.item_times} item-times per branch and item class"
        )
        census = (
            "the unshifted census kept whole"
            if self.census
            else "the unshifted census sampled like the rest"
        )
        return f"{self.items} items per item class and world, {times} (seed {self.seed}; {census})"


def draw(world_seed: int, name: str, count: int) -> list[int]:
    """A seeded order of `count` positions; a larger draw of the same stream extends a smaller
    one, so a bigger sample holds the smaller."""
    # here, not atop the module: the Snakefile reads the settings and never draws
    from memshift.rng import stream

    return [int(i) for i in stream(world_seed, name).permutation(count)]


def _classes(items: Sequence[Item]) -> list[str]:
    from memshift.world.items import ITEM_CLASSES

    found = dict.fromkeys(i.item_class for i in items)
    return [c for c in ITEM_CLASSES if c in found] + [c for c in found if c not in ITEM_CLASSES]


def sampled_items(items: Sequence[Item], world_seed: int, sample: ProbeSample) -> tuple[Item, ...]:
    """min(`sample.items`, class size) items of each class, drawn per world, in the world's order.
    Drawing again from the drawn items gives them back."""
    chosen: set[str] = set()
    for item_class in _classes(items):
        members = [i for i in items if i.item_class == item_class]
        order = draw(world_seed, f"probe-sample/{sample.seed}/items/{item_class}", len(members))
        chosen.update(members[i].item_id for i in order[: sample.items])
    return tuple(i for i in items if i.item_id in chosen)


def sample_world(world: World, sample: ProbeSample | None) -> World:
    """The world as a sampled study's systems see it: the drawn items only."""
    if sample is None:
        return world
    return replace(world, items=sampled_items(world.items, world.seed, sample))
