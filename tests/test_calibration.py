"""The generator against the paper's calibration targets on the test seeds 1000-1019.

Each count of DESIGN section 5 must lie between half and double the paper's; worlds must have the
paper's size; every source must see events between consecutive checkpoints almost always.
"""

from __future__ import annotations

import pytest

from memshift.config import SPLITS
from memshift.stats import MEASURES, PAPER, collect, render, totals


@pytest.fixture(scope="module")
def test_split():
    return collect(list(SPLITS["test"]))


@pytest.mark.slow
def test_test_split_matches_the_paper(test_split):
    for shift, paper in PAPER.items():
        ours = totals(test_split, shift)
        for measure in MEASURES:
            assert paper[measure] / 2 <= ours[measure] <= paper[measure] * 2, (shift, measure)
    for s in test_split:
        assert len(s.touched["src"]) == 10
        assert 1400 <= s.events <= 1800
        assert 1_800_000 <= s.tokens <= 2_600_000
    covered = sum(s.coverage["covered"] for s in test_split)
    cells = sum(s.coverage["cells"] for s in test_split)
    assert covered / cells >= 0.99
    report = render(test_split)
    assert "src" in report and "(1168)" in report
