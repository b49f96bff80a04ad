"""The grid's checks on item-times built by hand: a writer whose outcomes follow its rates is
recovered within its intervals about as often as their level says, B×D is the identity's
contrast of the cells, and runs that do not line up are refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from memshift.analysis.bootstrap import Resampling
from memshift.errors import MemshiftError
from memshift.studies.validation.analysis import SHIFTS
from memshift.studies.validation.grid_analysis import (
    INTERACTION,
    INTERACTION_TERMS,
    TERMS,
    GridRun,
    grid_checks,
)
from memshift.studies.validation.grid_design_analysis import GridWriter, anchor_writers, uniform
from memshift.studies.validation.grid_identity_analysis import (
    identity_terms,
    interaction_from_terms,
    interaction_surface,
)
from memshift.studies.validation.grid_outcomes_analysis import ItemTimes
from memshift.vocabulary import LEAKY_BLIND_SHARE, cell_system

WORLDS = 20
PER_CELL = 40  # changed item-times per world, shift and cell
CELLS = [cell_system(d, r) for d in ("source", "append", "leaky") for r in ("0", "1")]
GROUPS = ("definition", "other", "free_text")


def reference_times(rng: np.random.Generator) -> tuple[ItemTimes, dict[str, np.ndarray]]:
    """A reference run's item-times and the four anchors' outcomes on them."""
    world, shift, system, group, detected, chances = [], [], [], [], [], []
    for w in range(1000, 1000 + WORLDS):
        for s in SHIFTS:
            blind = rng.random(PER_CELL) < LEAKY_BLIND_SHARE
            for cell in CELLS:
                world += [w] * PER_CELL
                shift += [s] * PER_CELL
                system += [cell] * PER_CELL
                group += list(rng.choice(GROUPS, PER_CELL))
                detected += list(
                    np.full(PER_CELL, "source" in cell) if "leaky" not in cell else ~blind
                )
                chances += list(
                    rng.integers(0, 5, PER_CELL) if "append" in cell else [0] * PER_CELL
                )
    n = len(world)
    from_delta = np.array(["append" in c for c in system])
    times = ItemTimes(
        world=np.array(world),
        shift=np.array(shift),
        system=np.array(system),
        probe=np.array([f"p{i:06d}" for i in range(n)]),
        group=np.array(group),
        from_delta=from_delta,
        detected=np.array(detected, dtype=bool),
        right=np.zeros(n, dtype=bool),
        yielded=chances_yielded(np.array(chances)),
        chances=np.array(chances),
    )
    exact, wrong = (rng.random(n) < p for p in (0.8, 0.1))
    # a cell that never reads a delta is the same whether or not its deltas were overlooked
    blind = np.where(from_delta, rng.random(n) < 0.05, exact)
    both = np.where(from_delta, rng.random(n) < 0.02, wrong)
    corners = {"exact": exact, "wrong": wrong, "blind": blind, "both": both}
    return replace(times, right=exact), corners


def chances_yielded(chances: np.ndarray) -> np.ndarray:
    return chances > 0


def flipped(
    times: ItemTimes, corners: dict[str, np.ndarray], writer: GridWriter, rng: np.random.Generator
) -> ItemTimes:
    """A run of `writer`: each item-time's coins flipped, its outcome the anchor's of what came
    out (every chance overlooked or not, the write wrong or not)."""
    n = len(times)
    error = np.array([writer.error(g) for g in times.group])
    overlook = np.array([writer.overlook(g) for g in times.group])
    draws = rng.random((n, 4)) < overlook[:, None]
    reads_delta = times.from_delta & (times.chances > 0)
    counted = np.arange(4)[None, :] < times.chances[:, None]
    missed = np.where(reads_delta, np.all(draws | ~counted, axis=1), draws[:, 0])
    struck = rng.random(n) < error
    right = np.select(
        [~missed & ~struck, ~missed & struck, missed & ~struck],
        [corners["exact"], corners["wrong"], corners["blind"]],
        corners["both"],
    )
    return replace(times, right=right.astype(bool), yielded=reads_delta & ~missed)


def runs(seed: int, writers: list[GridWriter]) -> tuple[GridRun, list[GridRun], list[GridRun]]:
    rng = np.random.default_rng(seed)
    times, corners = reference_times(rng)
    reference = GridRun(GridWriter("rules", "reference", {}, {}), times)
    anchors = [
        GridRun(w, replace(times, right=corners[key].astype(bool)))
        for w, key in zip(anchor_writers(0), ("wrong", "blind", "both"), strict=True)
    ]
    return reference, anchors, [GridRun(w, flipped(times, corners, w, rng)) for w in writers]


WRITERS = [
    GridWriter("grid-01", "drawn", uniform(0.3), uniform(0.7), 11),
    GridWriter("grid-02", "drawn", uniform(0.8), uniform(0.2), 12),
    GridWriter(
        "labelled", "labelled", {"definition": 0.84, "other": 0.03}, {"definition": 0.3}, 13
    ),
]


def test_every_writer_gets_every_term_and_b_x_d_after_every_shift() -> None:
    reference, anchors, writers = runs(1, WRITERS)
    found = grid_checks(reference, anchors, writers, Resampling(draws=300))
    for writer in WRITERS:
        mine = [c for c in found if c.writer == writer.name]
        assert len(mine) == len(SHIFTS) * (len(TERMS) + 1)
        assert all(c.injected is not None and c.found.low is not None for c in mine)
    missed = {(c.shift, c.cell): c for c in found if c.measure == "m"}
    assert {c.injected for c in missed.values()} == {0.0, 1.0, LEAKY_BLIND_SHARE}
    for shift in SHIFTS:
        assert missed[shift, cell_system("source", "0")].found.estimate == 0.0
        assert missed[shift, cell_system("append", "0")].found.estimate == 1.0


def test_b_x_d_is_the_contrast_of_the_cells_updates_measured_and_predicted() -> None:
    reference, anchors, writers = runs(2, WRITERS[:1])
    found = grid_checks(reference, anchors, writers, Resampling(draws=200))
    times, seen = reference.times, writers[0].times
    for shift in SHIFTS:
        check = next(c for c in found if c.measure == INTERACTION and c.shift == shift)

        def update(right: np.ndarray, cell: str, shift: str = shift) -> float:
            return float(np.mean(right[(times.shift == shift) & (times.system == cell)]))

        measured = sum(sign * update(seen.right, cell) for cell, sign in INTERACTION_TERMS)
        assert check.found.estimate == pytest.approx(measured)
        assert check.alone is not None and check.alone.estimate == pytest.approx(measured)
        # the identity: each cell's predicted Update is (1 - m)·r + m·a of its predicted terms
        terms = {(c.cell, c.measure): c.injected for c in found if c.shift == shift}
        source = terms[cell_system("source", "1"), "r"] - terms[cell_system("source", "0"), "r"]
        append = terms[cell_system("append", "1"), "a"] - terms[cell_system("append", "0"), "a"]
        assert check.injected == pytest.approx(source - append)


@pytest.mark.parametrize("seed", [5, 6, 7, 8])
def test_writers_that_follow_their_rates_are_recovered_at_about_the_intervals_level(seed: int):
    reference, anchors, writers = runs(seed, WRITERS)
    found = grid_checks(reference, anchors, writers, Resampling(draws=1000, seed=seed))
    tested = [c.within for c in found if c.kind != "reference" and c.within is not None]
    assert len(tested) >= 60
    # 95% intervals; with about 80 values, fewer than 85% inside is below 1 in 200 by chance
    assert np.mean(tested) >= 0.85


def test_a_writer_whose_rates_are_not_what_it_did_is_found_out() -> None:
    reference, anchors, writers = runs(9, [WRITERS[0]])
    claimed = GridRun(replace(WRITERS[0], errors=uniform(0.6)), writers[0].times)
    found = grid_checks(reference, anchors, [claimed], Resampling(draws=500))
    r0 = [c for c in found if c.measure == "r" and c.cell == cell_system("source", "0")]
    assert all(c.within is False for c in r0)


def test_a_run_detecting_other_item_times_is_refused() -> None:
    reference, anchors, writers = runs(3, WRITERS[:1])
    moved = writers[0].times
    moved = replace(moved, detected=~moved.detected)
    with pytest.raises(MemshiftError, match="detected differently from the reference run"):
        grid_checks(reference, anchors, [GridRun(WRITERS[0], moved)], Resampling(draws=10))
    shorter = replace(moved, probe=moved.probe[::-1])
    with pytest.raises(MemshiftError, match="not the reference run's"):
        grid_checks(reference, anchors, [GridRun(WRITERS[0], shorter)], Resampling(draws=10))


def test_the_surface_is_the_drawn_writers_predicted_b_x_d_at_their_rates() -> None:
    reference, anchors, writers = runs(4, WRITERS[:2])
    found = grid_checks(reference, anchors, writers, Resampling(draws=100))
    surface = interaction_surface(reference, anchors, steps=11)
    for writer in WRITERS[:2]:
        column = round(writer.error("other") * 10)
        row = round(writer.overlook("other") * 10)
        for shift in SHIFTS:
            check = next(
                c
                for c in found
                if (c.writer, c.shift, c.measure) == (writer.name, shift, INTERACTION)
            )
            assert surface[shift][row, column] == pytest.approx(check.injected)


def test_the_identitys_terms_give_every_writers_predicted_b_x_d() -> None:
    """B×D(e, o) written out from the terms the report lists: each cell's Update is the mean
    over its chance groups of (1 - q)((1 - e) reference + e wrong) + q((1 - e) blind + e both)."""
    reference, anchors, writers = runs(10, WRITERS[:2])
    found = grid_checks(reference, anchors, writers, Resampling(draws=100))
    terms = identity_terms(reference, anchors)
    for writer in WRITERS[:2]:
        e, o = writer.error("other"), writer.overlook("other")
        for shift in SHIFTS:
            updates = {}
            for cell, _ in INTERACTION_TERMS:
                mine = [t for t in terms if (t.shift, t.cell) == (shift, cell)]
                assert sum(t.share for t in mine) == pytest.approx(1.0)
                updates[cell] = sum(
                    t.share
                    * (
                        (1 - q) * ((1 - e) * t.exact + e * t.wrong)
                        + q * ((1 - e) * t.blind + e * t.both)
                    )
                    for t in mine
                    for q in [o if not t.chances else o**t.chances]
                )
            closed = sum(sign * updates[cell] for cell, sign in INTERACTION_TERMS)
            check = next(
                c
                for c in found
                if (c.writer, c.shift, c.measure) == (writer.name, shift, INTERACTION)
            )
            assert check.injected == pytest.approx(closed)
            assert interaction_from_terms(terms, shift, e, o) == pytest.approx(closed)


def test_a_grid_without_an_anchor_at_every_corner_is_refused() -> None:
    reference, anchors, writers = runs(11, WRITERS[:1])
    with pytest.raises(MemshiftError, match=r"an anchor at \(error, overlook\) = \(0.0, 1.0\)"):
        grid_checks(reference, [anchors[0], anchors[2]], writers, Resampling(draws=10))
