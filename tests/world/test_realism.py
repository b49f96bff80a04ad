"""The worlds of the test seeds read like a person's records (world/realism.py's targets): varied
background text, no message line said four times, records written at the hours people keep."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import data, world
from memshift.config import SPLITS
from memshift.world import realism
from memshift.world.records import Event


@pytest.mark.slow(minutes=0.3)
@pytest.mark.parametrize("seed", list(SPLITS["test"]))
def test_every_test_world_meets_the_realism_targets(seed: int) -> None:
    measured = realism.measure(world(seed).events)
    assert realism.misses(measured) == {}, (seed, measured)


def _added(seed: int) -> dict[str, list[Event]]:
    """The events each branch writes that the base world does not."""
    base = {e.event_id for e in world(seed).events}
    return {
        name: [e for e in branch.branch.events if e.event_id not in base]
        for name, branch in data(seed).items()
    }


@pytest.mark.slow(minutes=0.3)
def test_branch_events_are_written_at_waking_hours() -> None:
    added = [
        e
        for seed in SPLITS["test"][:5]
        for events in _added(seed).values()
        for e in events
        if e.op in realism.RECORD_OPS
    ]
    assert added
    night = [e for e in added if e.time.hour in realism.NIGHT_HOURS]
    assert len(night) <= realism.TARGETS["night_share"] * len(added), night[:5]


def test_the_measures_catch_a_template_pool_and_a_repeated_line() -> None:
    """A world of one repeated sentence fails the variety and the line targets."""
    base = next(e for e in world(1000).events if e.component == "dm")
    text = base.text.split(": ", 1)[0] + ": we should really get the band back together soon."
    copies = [
        dataclasses.replace(base, event_id=f"dm:{k}", object_id=f"ch-{k:012x}", text=text)
        for k in range(10)
    ]
    missed = realism.misses(realism.measure(copies))
    assert {"top_pattern_share", "top20_share", "top_line_count"} <= set(missed)


def test_skeletons_mask_names_and_figures_only() -> None:
    one = realism.skeleton("Shares in Acme Corp rose 4.5% after talks with Lumen Labs in Oslo.")
    two = realism.skeleton("Shares in Borealis rose 12% after talks with Kite in New Haven.")
    assert one == two
    assert one != realism.skeleton("Shares in Borealis fell 12% after talks with Kite in Oslo.")


def test_memshift_stats_reports_every_measure_beside_its_target() -> None:
    """`memshift stats` prints each measure at its worst world, its target and how many worlds
    meet it; a world that misses one is counted as missing it."""
    from memshift.calibration import WorldStats, render_realism

    good = realism.measure(world(1000).events)
    bad = dataclasses.replace(good, top_line_count=9)
    stats = [WorldStats(s, 0, 0, {}, {}, realism=r) for s, r in ((1000, good), (1, bad))]
    lines = render_realism(stats)
    assert len(lines) == 1 + len(realism.TARGETS)
    line = next(text for text in lines if "top_line_count" in text)
    assert " 9 " in line and "target <= 3" in line and "1 of 2 worlds meet it" in line


# The measures as first written, one regular expression each: the faster forms in realism.py
# must mask and split every text as these do.
NAME_RUN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*")
CLAUSE_BREAK = re.compile(r"[,;:]\s+|\s+(?:and|but|while|although|because|as|after|which)\s+")
PIECES = st.sampled_from(
    [" ", "  ", "\t", ".", "!", "?", ",", ";", ":", "'", "&", "-", "7", "3.5%", "Ana", "B", "x",
     "ok", "é", "É", " and ", "and", " but ", " as ", "which", "Meanwhile", "The", "of", "\u00a0"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@given(TEXTS)
def test_the_skeleton_masks_names_as_the_plain_expression_does(text: str) -> None:
    assert realism.skeleton(text) == NAME_RUN.sub("N", realism._NUMBER.sub("#", text))


@given(TEXTS)
def test_clauses_split_as_the_plain_expression_splits(text: str) -> None:
    expected = [
        c.strip() for c in CLAUSE_BREAK.split(text) if len(c.split()) >= realism.CLAUSE_MIN_WORDS
    ]
    assert realism.clauses(text) == expected
