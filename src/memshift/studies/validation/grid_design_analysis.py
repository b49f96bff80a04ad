"""The validation grid's writers: error and overlook rates drawn at random, not chosen.

A grid writer is the rule-based writer with one error rate (the share of its writes that are
wrong) and one overlook rate (the share of its delta writes that say "nothing new" although the
delta bears on the item), each the same for every item class. The drawn writers form a Latin
hypercube over [0, 1]²: each rate's range is cut into as many equal strata as there are writers
and every stratum holds exactly one writer, at a uniform point inside it, the two rates paired by
a random permutation. Four anchor writers sit at the corners (error and overlook each 0 or 1):
with them the measures' outcome of every item-time is known when a write is right or wrong and
when a delta is read or overlooked (`grid_prediction`). Every draw comes from one named stream of
the grid's seed, and each writer's error model gets its own seed, so the same seed gives the same
writers and the same errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from memshift.rng import stream
from memshift.world.items import ITEM_GROUPS

Kind = Literal["drawn", "anchor", "labelled", "reference"]
STREAM = "validation-grid"
# anchor name -> (error, overlook); the exact corner is the reference writer itself
ANCHORS: dict[str, tuple[float, float]] = {
    "grid-anchor-wrong": (1.0, 0.0),
    "grid-anchor-blind": (0.0, 1.0),
    "grid-anchor-both": (1.0, 1.0),
}
# each drawn writer's error-model seed: the grid's seed plus this offset plus its index
ERROR_SEED_OFFSET = 1000


@dataclass(frozen=True)
class GridWriter:
    """One writer of the grid: its profile name, what it is, and its rates per item group."""

    name: str
    kind: Kind
    errors: Mapping[str, float]
    overlooks: Mapping[str, float]
    seed: int = 0

    def __post_init__(self) -> None:
        for table in (self.errors, self.overlooks):
            for group, rate in table.items():
                if group not in ITEM_GROUPS:
                    raise ValueError(f"grid writer {self.name}: unknown item group {group!r}")
                if not 0.0 <= rate <= 1.0:
                    raise ValueError(f"grid writer {self.name}: rate {rate} is not in [0, 1]")

    def error(self, group: str) -> float:
        return float(self.errors.get(group, 0.0))

    def overlook(self, group: str) -> float:
        return float(self.overlooks.get(group, 0.0))


def uniform(rate: float) -> dict[str, float]:
    return dict.fromkeys(ITEM_GROUPS, rate)


def latin_hypercube(count: int, seed: int) -> list[tuple[float, float]]:
    """`count` points in [0, 1)², one in each of the `count` strata of either coordinate."""
    if count < 1:
        raise ValueError(f"a grid needs at least one writer, got {count}")
    rng = stream(seed, STREAM)
    columns = [(rng.permutation(count) + rng.random(count)) / count for _ in range(2)]
    return [(float(e), float(o)) for e, o in zip(*columns, strict=True)]


def drawn_writers(count: int, seed: int) -> list[GridWriter]:
    """The grid's drawn writers, named grid-01, grid-02, ... in the order drawn."""
    width = max(2, len(str(count)))
    return [
        GridWriter(
            f"grid-{index:0{width}d}",
            "drawn",
            uniform(error),
            uniform(overlook),
            seed + ERROR_SEED_OFFSET + index,
        )
        for index, (error, overlook) in enumerate(latin_hypercube(count, seed), start=1)
    ]


def anchor_writers(seed: int) -> list[GridWriter]:
    return [
        GridWriter(name, "anchor", uniform(error), uniform(overlook), seed + index)
        for index, (name, (error, overlook)) in enumerate(ANCHORS.items())
    ]


def profile_writer(name: str, kind: Kind, error_model: Mapping[str, Any]) -> GridWriter:
    """A writer of the models file (the reference, a labelled one) as a grid writer."""
    return GridWriter(
        name,
        kind,
        dict(error_model.get("rates", {})),
        dict(error_model.get("overlooks", {})),
        int(error_model.get("seed", 0)),
    )


def profile_entry(writer: GridWriter) -> dict[str, Any]:
    """The writer as a `rules` profile of a models file."""
    model: dict[str, Any] = {"seed": writer.seed}
    if any(writer.errors.values()):
        model["rates"] = dict(writer.errors)
    if any(writer.overlooks.values()):
        model["overlooks"] = dict(writer.overlooks)
    return {
        "backend": "rules",
        "description": (
            f"SIMULATED validation-grid writer ({writer.kind}): the rule-based writer wrong on a "
            "share of its writes, overlooking a share of what its deltas hold (not a model)."
        ),
        "error_model": model,
    }


@dataclass(frozen=True)
class GridPlan:
    """The grid's writers: the reference, the anchors, the drawn ones and the labelled ones."""

    reference: GridWriter
    anchors: Sequence[GridWriter]
    drawn: Sequence[GridWriter]
    labelled: Sequence[GridWriter]
    seed: int

    @property
    def writers(self) -> list[GridWriter]:
        """Every writer, in the order they run."""
        return [self.reference, *self.anchors, *self.drawn, *self.labelled]
