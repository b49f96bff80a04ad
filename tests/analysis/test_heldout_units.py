"""Held-out definitions resample as units: their item-times carry the item, so an interval over
them resamples worlds and definitions both, and is wider than the worlds alone would make it
when the definitions differ."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_bootstrap import _ratios, _summary
from test_measures import maintenance_log, opened, score

from memshift.analysis.bootstrap import Resampling


def test_a_held_out_definitions_item_times_carry_the_item_as_their_unit(tmp_path: Path) -> None:
    scores = [
        score("def.h2_3", 1, True, item_class="definition"),
        score("def.important_contacts", 1, True, item_class="definition"),
        score("contact01.city", 1, False),
    ]
    log = maintenance_log(tmp_path, 1, "source", [(s["item_id"], 1, True) for s in scores])
    con = opened(tmp_path, scores, [log])
    units = dict(con.execute("SELECT item_id, unit FROM item_times").fetchall())
    assert units == {"def.h2_3": "def.h2_3", "def.important_contacts": "", "contact01.city": ""}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_resampling_definitions_widens_the_interval_when_they_differ(seed: int) -> None:
    """Six definitions on 20 worlds: three almost always right, three almost never. The world
    bootstrap sees only the small spread across worlds; the product bootstrap also the large
    one across definitions."""
    rng = np.random.default_rng(seed)
    worlds = [w for w in range(100, 120) for _ in range(6)]
    units = [f"def.h1_{k}" for _ in range(20) for k in range(1, 7)]
    rate = {f"def.h1_{k}": 0.9 if k <= 3 else 0.1 for k in range(1, 7)}
    num = [int(rng.binomial(10, rate[u])) for u in units]
    den = [10] * len(units)
    resampling = Resampling(draws=400, seed=seed)
    plain = _summary(_ratios(num, den, worlds=worlds), resampling, [])
    product = _summary(_ratios(num, den, units, worlds), resampling, sorted(set(units)))
    assert plain["estimate"] == product["estimate"]
    assert product["high"] - product["low"] > 2 * (plain["high"] - plain["low"])
