"""The generator against the paper's calibration targets on the test seeds 1000-1019.

Each of the twelve counts of the paper's Table 2 must lie within 20% of the paper's; redefinitions
must change the value on most redefined item-times; worlds must have the paper's size; every
source must see events between consecutive checkpoints almost always.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import data, world
from memshift.calibration import MEASURES, PAPER, render, stats_of, sum_spread, totals
from memshift.config import SPLITS
from memshift_tools.bench.simulated import CHANGED_PER_WORLD


@pytest.fixture(scope="module")
def test_split():
    # the session's worlds (conftest), which other tests of this worker then reuse; `memshift
    # stats` (calibration.collect) builds the same from the seeds
    return [stats_of(world(seed), data(seed)) for seed in SPLITS["test"]]


def world_interval(per_world: list[int], draws: int = 4000) -> tuple[float, float]:
    """The 95% world-bootstrap interval of a count summed over worlds."""
    rng = np.random.default_rng(0)
    sums = np.array(per_world)[rng.integers(0, len(per_world), (draws, len(per_world)))].sum(1)
    return float(np.percentile(sums, 2.5)), float(np.percentile(sums, 97.5))


def near_the_paper(test_split, shift: str, measure: str) -> bool:
    """Within 20% of the paper's count, or (a small count: a clock-alone count is three or four
    a world) the paper's count inside our 95% world-bootstrap interval, so that 20 worlds'
    sampling noise alone explains the gap (docs/data.md, Calibration)."""
    paper = PAPER[shift][measure]
    ours = totals(test_split, shift)[measure]
    if 0.8 * paper <= ours <= 1.2 * paper:
        return True
    low, high = world_interval([s.counts[shift][measure] for s in test_split])
    return low <= paper <= high


@pytest.mark.slow(minutes=0.7)
def test_test_split_matches_the_paper(test_split):
    for shift in PAPER:
        for measure in MEASURES:
            assert near_the_paper(test_split, shift, measure), (shift, measure)
    # the counts of a shift's changes (not the clock's) keep to 20%
    for shift, paper in PAPER.items():
        ours = totals(test_split, shift)
        for measure in ("changed", "caused", "also_without"):
            assert 0.8 * paper[measure] <= ours[measure] <= 1.2 * paper[measure], (shift, measure)
    for s in test_split:
        assert len(s.touched["src"]) == 10
        assert 1400 <= s.events <= 1800
        assert 1_800_000 <= s.tokens <= 2_600_000
    # the paper: v2 gives v1's value or the fork's on 18 of 240; ours is documented in docs/data.md
    redefined = sum(s.redefined for s in test_split)
    assert redefined == 240 and sum(s.v2_same for s in test_split) <= 0.25 * redefined
    # the interval-coverage simulator draws its studies from these worlds' sizes
    for shift, sizes in CHANGED_PER_WORLD.items():
        assert tuple(s.counts[shift]["changed"] for s in test_split) == sizes, shift
    covered = sum(s.coverage["covered"] for s in test_split)
    cells = sum(s.coverage["cells"] for s in test_split)
    assert covered / cells >= 0.99
    report = render(test_split)
    assert "src" in report and "(1168)" in report


@pytest.mark.parametrize("seed", range(5))
def test_the_spread_of_a_twenty_world_sum_follows_the_per_world_counts(seed):
    assert sum_spread([3] * 40) == (60.0, 0.0)
    mean, sd = sum_spread([0, 2] * 20)
    assert mean == 20.0 and abs(sd - (20 * 40 / 39) ** 0.5) < 1e-12
    # lumpy per-world counts, as clock-alone ones are (an item-time counted at every later
    # checkpoint): three times a Poisson(1) draw, whose 20-world sum has mean 60, sd 3·√20
    counts = (np.random.default_rng(seed).poisson(1.0, 20_000) * 3).tolist()
    mean, sd = sum_spread(counts)
    assert abs(mean - 60) < 0.03 * 60 and abs(sd - 3 * 20**0.5) < 0.03 * 3 * 20**0.5
