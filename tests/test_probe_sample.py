"""A study's slice (probes.sample): a seeded draw of items per class and of item-times per
branch and class, the same for the same settings."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import world
from memshift.config import check_config
from memshift.errors import ConfigError
from memshift.probes.build import DIRECT, measured, probes_to_table
from memshift.probes.sample import ProbeSample, sample_world, sampled_items
from memshift.probes.sampled import sample_probes

ITEMS = world(1000).items
SIZES = Counter(i.item_class for i in ITEMS)
SMALLEST = min(SIZES.values())

seeds = st.integers(0, 2**31 - 1)


def ids(items) -> list[str]:
    return [i.item_id for i in items]


@settings(max_examples=60, deadline=None)
@given(world_seed=seeds, seed=seeds, n=st.integers(1, 30))
def test_the_same_settings_draw_the_same_items_min_n_of_each_class_in_the_worlds_order(
    world_seed, seed, n
):
    sample = ProbeSample(n, seed=seed)
    drawn = sampled_items(ITEMS, world_seed, sample)
    assert ids(drawn) == ids(sampled_items(ITEMS, world_seed, ProbeSample(n, seed=seed)))
    counts = Counter(i.item_class for i in drawn)
    assert counts == {c: min(n, size) for c, size in SIZES.items()}
    # a stable order: the world's
    assert ids(drawn) == [i for i in ids(ITEMS) if i in set(ids(drawn))]
    # drawing from the drawn gives them back, so a stage never draws twice by mistake
    assert ids(sampled_items(drawn, world_seed, sample)) == ids(drawn)


@settings(max_examples=40, deadline=None)
@given(world_seed=seeds, seed=seeds, n=st.integers(1, 30), more=st.integers(0, 10))
def test_a_larger_sample_holds_the_smaller(world_seed, seed, n, more):
    small = set(ids(sampled_items(ITEMS, world_seed, ProbeSample(n, seed=seed))))
    large = set(ids(sampled_items(ITEMS, world_seed, ProbeSample(n + more, seed=seed))))
    assert small <= large


@settings(max_examples=30, deadline=None)
@given(world_seed=seeds, seed=seeds, n=st.integers(1, SMALLEST - 1))
def test_different_seeds_draw_different_items(world_seed, seed, n):
    # among a few other seeds at least one draws another slice (two may agree by chance)
    drawn = ids(sampled_items(ITEMS, world_seed, ProbeSample(n, seed=seed)))
    others = [
        ids(sampled_items(ITEMS, world_seed, ProbeSample(n, seed=seed + k))) for k in range(1, 6)
    ]
    assert any(o != drawn for o in others)


def test_worlds_draw_their_own_items():
    sample = ProbeSample(2)
    assert len({tuple(ids(sampled_items(ITEMS, w, sample))) for w in range(1000, 1010)}) > 1


@pytest.fixture(scope="module")
def branches(data_1000):
    return {
        name: probes_to_table(data_1000[name].probes, world=1000, branch=name)
        for name in ("none", "src", "del")
    }


def item_times(table) -> set[tuple[str, int]]:
    rows = zip(
        table.column("item_id").to_pylist(), table.column("checkpoint").to_pylist(), strict=True
    )
    return set(rows)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(1, 4), k=st.integers(1, 12))
def test_probes_of_the_drawn_items_at_most_k_item_times_per_branch_and_class(branches, seed, n, k):
    sample = ProbeSample(n, k, seed)
    sampled = sample_world(world(1000), sample)
    kept = set(ids(sampled.items))
    for name, table in branches.items():
        asked = sample_probes(table, sampled, name, sample)
        assert asked.equals(sample_probes(table, sampled, name, ProbeSample(n, k, seed)))
        assert set(asked.column("item_id").to_pylist()) <= kept
        counted = measured(asked)
        per_class = Counter(
            c for c, _ in {(r["item_class"], (r["item_id"], r["checkpoint"]))
                           for r in counted.to_pylist()}
        )  # fmt: skip
        assert all(count <= k for count in per_class.values())
        # each drawn item-time keeps every probe the world asks at it
        drawn = item_times(counted)
        whole = measured(table)
        at_drawn = [
            p for p in whole.to_pylist() if (p["item_id"], p["checkpoint"]) in drawn
        ]  # fmt: skip
        assert counted.num_rows == len(at_drawn)


def test_the_draw_takes_changed_unchanged_and_fork_item_times_in_turn(branches):
    sample = ProbeSample(2, 3)
    sampled = sample_world(world(1000), sample)
    asked = measured(sample_probes(branches["src"], sampled, "src", sample))
    direct = asked.filter(pc.equal(asked.column("kind"), DIRECT)).to_pylist()
    for item_class in {p["item_class"] for p in direct}:
        mine = [p for p in direct if p["item_class"] == item_class]
        whole = [
            p
            for p in measured(branches["src"]).to_pylist()
            if p["kind"] == DIRECT and p["item_id"] in set(ids(sampled.items))
            and p["item_class"] == item_class
        ]  # fmt: skip
        for stratum in (
            lambda p: p["changed"],
            lambda p: p["sampled"] and not p["changed"],
            lambda p: p["checkpoint"] == 0,
        ):
            if any(stratum(p) for p in whole):
                assert any(stratum(p) for p in mine), item_class


def test_the_census_is_kept_whole_or_sampled_with_the_rest(branches):
    table = branches["none"]
    census_rows = table.num_rows - measured(table).num_rows
    assert census_rows > 0
    for census in (True, False):
        sample = ProbeSample(2, 4, 0, census)
        sampled = sample_world(world(1000), sample)
        asked = sample_probes(table, sampled, "none", sample)
        uncounted = asked.num_rows - measured(asked).num_rows
        mine = table.filter(pc.is_in(table.column("item_id"), value_set=_array(sampled)))
        expected = mine.num_rows - measured(mine).num_rows if census else 0
        assert uncounted == expected


def _array(sampled):
    return pa.array(ids(sampled.items))


def test_without_a_sample_nothing_changes(branches):
    assert sample_world(world(1000), None) is world(1000)
    assert sample_probes(branches["src"], world(1000), "src", None) is branches["src"]


def test_the_settings_travel_as_json_and_bad_ones_are_refused():
    sample = ProbeSample(2, 6, 3, False)
    assert ProbeSample.from_json(sample.to_json()) == sample
    assert ProbeSample.from_json('{"items": 1}') == ProbeSample(1)
    for bad in ('{"items": 0}', '{"items": 2, "extra": 1}', "[1]", "{", '{"item_times": 3}'):
        with pytest.raises(ConfigError):
            ProbeSample.from_json(bad)


def test_the_study_key_is_checked_and_refused_beside_parts_it_cannot_reach():
    base = {"study": "s", "worlds": {"seeds": "1000"}, "branches": ["src"]}
    study = check_config({**base, "probes": {"sample": {"items": 2, "item_times": 6}}})
    assert study["probe_sample"] == ProbeSample(2, 6, 0, True)
    assert check_config(base)["probe_sample"] is None
    with pytest.raises(ConfigError, match=r"probes\.sample"):
        check_config({**base, "probes": {"sample": {"items": 0}}})
    with pytest.raises(ConfigError, match="sync"):
        check_config({**base, "probes": {"sample": {"items": 2}}, "sync": {}})
