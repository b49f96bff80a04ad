"""Ratios per bootstrap draw: the same draws of worlds and of units as the measures."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_measures import maintenance_log, opened, score

from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.draws import draw_ratios


def test_a_unit_the_draw_did_not_pick_weighs_nothing(tmp_path: Path) -> None:
    """A D=m cell resamples items as well as worlds: each draw's Update is the weighted share
    with world weight times item weight, zero for an item the draw did not pick."""
    items = "abcdef"
    scores, logs = [], []
    for world in range(1, 7):
        scores += [
            score(i, 1, (world + n) % 3 != 0, system="holdmem-dm-source", world=world)
            for n, i in enumerate(items)
        ]
        logs.append(maintenance_log(tmp_path, world, "source", []))
    con = opened(tmp_path, scores, logs)
    measures.compute(con, Resampling(draws=30, seed=4))
    draw_ratios(con, ["holdmem-dm-source"], ["update"])
    drawn = dict(
        con.execute(
            "SELECT draw, value FROM draw_ratios WHERE item_class = 'all' AND branch = 'src'"
        ).fetchall()
    )
    worlds = con.execute("SELECT draw, world, weight FROM world_weights").fetchall()
    units = con.execute("SELECT draw, unit, weight FROM unit_weights").fetchall()
    right = {(s["world"], s["item_id"]): s["correct"] for s in scores}
    assert len(drawn) == 30
    for draw in range(30):
        w = {world: weight for d, world, weight in worlds if d == draw}
        u = {unit: weight for d, unit, weight in units if d == draw}
        num = sum(w.get(wd, 0) * u.get(i, 0) * ok for (wd, i), ok in right.items())
        den = sum(w.get(wd, 0) * u.get(i, 0) for (wd, i) in right)
        expected = num / den if den else None
        if expected is None:
            assert drawn.get(draw) is None
        else:
            assert drawn[draw] == pytest.approx(expected)
