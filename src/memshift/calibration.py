"""`memshift stats`: the generator's calibration figures beside the paper's."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing import get_context

from memshift.dataset import BranchData, world_data
from memshift.gold.compute import GoldPoint
from memshift.vocabulary import BRANCHES, UNSHIFTED
from memshift.world import realism
from memshift.world.generate import World, generate_world
from memshift.world.realism import Realism
from memshift.world.records import SOURCES
from memshift.world.timeline import Timeline

# The paper's counts over 20 test worlds (48 items x 4 checkpoints x 20 worlds per shift).
PAPER_WORLDS = 20
PAPER = {
    "src": {"changed": 1168, "caused": 787, "also_without": 381, "clock_alone": 72},
    "def": {"changed": 558, "caused": 222, "also_without": 336, "clock_alone": 69},
    "del": {"changed": 1767, "caused": 1370, "also_without": 397, "clock_alone": 75},
}
MEASURES = ("changed", "caused", "also_without", "clock_alone")
# Of the redefined item-times (3 definitions x 4 checkpoints x 20 worlds), those on which v2 gives
# the value of v1 at the same time or of the fork: a redefinition that changes nothing.
PAPER_V2_SAME = 18


@dataclass
class WorldStats:
    seed: int
    events: int
    tokens: int
    counts: dict[str, Counter[str]]
    touched: dict[str, tuple[str, ...]]
    coverage: Counter[str] = field(default_factory=Counter)
    facts: int = 0
    redefined: int = 0
    v2_same: int = 0
    realism: Realism | None = None


def world_stats(seed: int, history_months: int = 9) -> WorldStats:
    """A world's calibration figures, and how it reads (`memshift stats`)."""
    world = generate_world(seed, Timeline(history_months))
    stats = stats_of(world, world_data(world, BRANCHES))
    stats.realism = realism.measure(world.events)
    return stats


def stats_of(world: World, results: Mapping[str, BranchData]) -> WorldStats:
    """The calibration figures of a world from its branches (every branch of BRANCHES)."""
    seed = world.seed
    checkpoints = world.timeline.checkpoints
    none_events = results[UNSHIFTED].branch.events
    stats = WorldStats(seed, len(none_events), sum(e.tokens for e in none_events), {}, {})
    for name, result in results.items():
        counts: Counter[str] = Counter()
        for p in result.gold.points:
            if p.checkpoint == 0 or not p.changed:
                continue
            counts["changed"] += 1
            counts["caused" if p.caused_by_shift else "also_without"] += 1
            counts["clock_alone"] += p.clock_alone
        stats.counts[name] = counts
        stats.touched[name] = result.branch.touched_items
        if name == "def":
            stats.redefined, stats.v2_same = _v2_same(result.gold.points, results[UNSHIFTED])
        stats.facts += result.gold.fidelity.facts_checked
        for k in range(1, len(checkpoints)):
            seen = {
                e.source
                for e in result.branch.events
                if checkpoints[k - 1] < e.time <= checkpoints[k]
            }
            for source in SOURCES:
                stats.coverage["cells"] += 1
                stats.coverage["covered"] += source in seen
    return stats


def _v2_same(points: list[GoldPoint], none: BranchData) -> tuple[int, int]:
    """(redefined item-times after the fork, those whose v2 outcome equals v1's or the fork's)."""
    unshifted = {(p.item.item_id, p.checkpoint): p.gold.outcome for p in none.gold.points}
    redefined = [p for p in points if p.checkpoint > 0 and p.gold.version == 2]
    same = sum(
        p.gold.outcome in (unshifted[p.item.item_id, p.checkpoint], unshifted[p.item.item_id, 0])
        for p in redefined
    )
    return len(redefined), same


def _one(args: tuple[int, int]) -> WorldStats:
    return world_stats(*args)


def collect(
    seeds: list[int], history_months: int = 9, *, jobs: int = 1, progress: bool = False
) -> list[WorldStats]:
    tasks = [(s, history_months) for s in seeds]
    out: list[WorldStats] = []
    if jobs == 1:
        iterator = map(_one, tasks)
        pool = None
    else:
        pool = get_context("spawn").Pool(jobs)
        iterator = pool.imap(_one, tasks)
    try:
        for index, stats in enumerate(iterator, start=1):
            out.append(stats)
            if progress:
                print(
                    f"[{index}/{len(tasks)}] world {stats.seed}: {stats.events} events",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return out


def totals(all_stats: list[WorldStats], branch: str) -> Counter[str]:
    total: Counter[str] = Counter()
    for s in all_stats:
        total.update(s.counts[branch])
    return total


def render(all_stats: list[WorldStats]) -> str:
    n = len(all_stats)
    scale = n / PAPER_WORLDS
    lines = [f"memshift stats over {n} worlds (paper: 20 test worlds, scaled to {n})", ""]
    header = f"{'shift':<9}" + "".join(f"{m:>22}" for m in MEASURES)
    lines += [header, "-" * len(header)]
    for branch in BRANCHES[1:]:
        total = totals(all_stats, branch)
        cells = []
        for m in MEASURES:
            paper = PAPER.get(branch, {}).get(m)
            ref = f" ({paper * scale:.0f})" if paper is not None else ""
            cells.append(f"{total[m]:>14}{ref:>8}")
        lines.append(f"{branch:<9}" + "".join(cells))
    lines.append("")
    redefined = sum(s.redefined for s in all_stats)
    same = sum(s.v2_same for s in all_stats)
    lines.append(
        f"redefined item-times where v2 gives v1's value or the fork's: {same} of {redefined} "
        f"(paper: {PAPER_V2_SAME} of 240)"
    )
    touched = [len(s.touched["src"]) for s in all_stats]
    lines.append(
        f"items touched by src per world: min {min(touched)}, mean "
        f"{sum(touched) / n:.1f}, max {max(touched)} (paper: about 10 of 48)"
    )
    events = [s.events for s in all_stats]
    tokens = [s.tokens for s in all_stats]
    lines.append(f"events per world: min {min(events)}, max {max(events)} (paper: 1,505-1,654)")
    lines.append(f"tokens per world: min {min(tokens):,}, max {max(tokens):,} (paper: about 2.2M)")
    covered = sum(s.coverage["covered"] for s in all_stats)
    cells = sum(s.coverage["cells"] for s in all_stats)
    lines.append(
        f"(world, branch, source, interval) with at least one event: {covered}/{cells} "
        f"({100 * covered / cells:.2f}%)"
    )
    lines.append(f"gold facts checked for fidelity: {sum(s.facts for s in all_stats):,}, all found")
    lines.append(
        f"clock alone in {PAPER_WORLDS} worlds, mean ± sd of a sum over that many (from the "
        "per-world counts): "
        + ", ".join(
            f"{branch} {mean:.1f} ± {sd:.1f}"
            for branch in PAPER
            for mean, sd in [sum_spread([s.counts[branch]["clock_alone"] for s in all_stats])]
        )
    )
    per_world = "  ".join(
        f"w{s.seed}:{'/'.join(str(s.counts[b]['changed']) for b in ('src', 'def', 'del'))}"
        for s in all_stats
    )
    lines += ["", "changed item-times per world (src/def/del):", per_world]
    return "\n".join([*lines, "", *render_realism(all_stats)])


def sum_spread(per_world: list[int], worlds: int = PAPER_WORLDS) -> tuple[float, float]:
    """The mean and standard deviation of a count summed over `worlds` worlds drawn like these:
    how far a set of that many worlds may fall from another by chance alone."""
    n = len(per_world)
    mean = sum(per_world) / n
    variance = sum((c - mean) ** 2 for c in per_world) / max(n - 1, 1)
    return worlds * mean, (worlds * variance) ** 0.5


def _worst(values: list[float], share: bool) -> str:
    worst = max(values)
    return f"{100 * worst:.2f}%" if share else f"{worst:g}"


def render_realism(all_stats: list[WorldStats]) -> list[str]:
    """Each realism measure at its worst world, beside its target (world/realism.py)."""
    measured = [s.realism for s in all_stats if s.realism is not None]
    if not measured:
        return []
    rows = {
        "top_pattern_share": [r.top_pattern_share for r in measured],
        "top20_share": [r.top20_share for r in measured],
        "top_clause_share": [r.top_clause_share for r in measured],
        "top_line_count": [float(r.top_line_count) for r in measured],
        "night_share": [r.night_share for r in measured],
        "meetings_out_of_hours_share": [
            r.meetings_out_of_hours / max(r.meetings, 1) for r in measured
        ],
    }
    lines = [f"how the worlds read (world/realism.py), the worst of {len(measured)} worlds:"]
    for name, values in rows.items():
        share = name != "top_line_count"
        target = realism.TARGETS[name]
        bound = f"{100 * target:.0f}%" if share else f"{target:g}"
        held = sum(v <= target for v in values)
        lines.append(
            f"  {name:<29} {_worst(values, share):>8}  (target <= {bound}; "
            f"{held} of {len(values)} worlds meet it)"
        )
    return lines
