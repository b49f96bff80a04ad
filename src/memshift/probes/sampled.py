"""The probes of a branch that a sampled study asks (`probes.sample`, `memshift.probes.sample`):
those of the drawn items, at most so many item-times per branch and item class, and the
unshifted census's own item-times when it is kept whole."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from memshift.probes.build import DIRECT, measured
from memshift.probes.sample import ProbeSample, draw
from memshift.world.generate import World

# The strata an item-time draw takes from in turn, so that a small draw keeps item-times of
# each measure: changed (Update, m, r, a), sampled unchanged (Stability), the fork (before the
# shift), and item-times only a non-direct probe asks (the held probes of the failure modes).
CHANGED, UNCHANGED, FORK, OTHER = "changed", "unchanged", "fork", "other"
STRATA = (CHANGED, UNCHANGED, FORK, OTHER)

ItemTime = tuple[str, int]  # (item, checkpoint)


def _strata(counted: pa.Table) -> dict[str, dict[str, list[ItemTime]]]:
    """The item-times of the counted probes by item class and stratum, each list sorted."""
    rows = counted.select(["item_id", "checkpoint", "item_class", "kind", "changed", "sampled"])
    stratum: dict[ItemTime, tuple[str, str]] = {}
    for r in rows.to_pylist():
        key = (r["item_id"], r["checkpoint"])
        if r["kind"] == DIRECT:
            which = FORK if r["checkpoint"] == 0 else CHANGED if r["changed"] else UNCHANGED
            stratum[key] = (r["item_class"], which)
        else:
            stratum.setdefault(key, (r["item_class"], OTHER))
    out: dict[str, dict[str, list[ItemTime]]] = {}
    for key in sorted(stratum):
        item_class, which = stratum[key]
        out.setdefault(item_class, {}).setdefault(which, []).append(key)
    return out


def drawn_item_times(
    counted: pa.Table, world_seed: int, branch: str, sample: ProbeSample
) -> set[ItemTime]:
    """At most `sample.item_times` item-times of each class among the probes the measures count,
    taken in turn from the changed, unchanged, fork and other strata, each in a seeded order."""
    limit = sample.item_times
    drawn: set[ItemTime] = set()
    for item_class, strata in _strata(counted).items():
        orders = []
        for which in STRATA:
            found = strata.get(which, [])
            name = f"probe-sample/{sample.seed}/item-times/{branch}/{item_class}/{which}"
            orders.append([found[i] for i in draw(world_seed, name, len(found))])
        turns = [order[n] for n in range(max(map(len, orders), default=0)) for order in orders
                 if n < len(order)]  # fmt: skip
        drawn.update(turns if limit is None else turns[:limit])
    return drawn


def sample_probes(
    probes: pa.Table, world: World, branch: str, sample: ProbeSample | None
) -> pa.Table:
    """The probes of a branch a sampled study asks: those of the items of `world` (a sampled
    world, `sample_world`) at the drawn item-times, and the unshifted census's own item-times
    (those no measure counts) when the census is kept whole."""
    if sample is None:
        return probes
    ids = pa.array(sorted(i.item_id for i in world.items), pa.string())
    ours = probes.filter(pc.is_in(probes.column("item_id"), value_set=ids))
    if sample.item_times is None:
        return ours
    counted_ids = set(measured(ours).column("probe_id").to_pylist())
    drawn = drawn_item_times(measured(ours), world.seed, branch, sample)
    keep = [
        (item, k) in drawn if probe in counted_ids else sample.census
        for probe, item, k in zip(
            ours.column("probe_id").to_pylist(),
            ours.column("item_id").to_pylist(),
            ours.column("checkpoint").to_pylist(),
            strict=True,
        )
    ]
    return ours.filter(pa.array(keep, pa.bool_()))
