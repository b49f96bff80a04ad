"""The grammar of held-out definitions: templates, the gold-only filter and the sampler.

The sampler's tests read the statistics stored in the pinned file, so they need no worlds;
`test_heldout_definitions.py` checks that file against a regeneration."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import world
from memshift.definitions.catalog import SIX, definition_to_json
from memshift.gold.evaluator import in_scope
from memshift.gold.heldout_definitions import (
    DRAWS,
    FIXED_PAIRS,
    PER_DRAW,
    TEMPLATES,
    WINDOWS,
    Candidate,
    FilterStats,
    Spec,
    Statistics,
    accepted_candidates,
    candidates,
    changed_flags,
    condition_pair,
    filter_stats,
    is_empty,
    passes,
    quantile_thresholds,
    read_pinned,
    sample_draws,
    statistics_from_payload,
)
from memshift.world.records import state_at

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


@cache
def pinned_stats() -> Statistics:
    return statistics_from_payload(read_pinned())


def flat(draws: tuple[tuple[object, ...], ...]) -> list:
    return [h for draw in draws for h in draw]


# --- templates -----------------------------------------------------------------------------


def test_no_template_shares_a_source_and_condition_with_the_six() -> None:
    fixed = {condition_pair(d.source, d.conditions) for d in SIX}
    assert fixed == FIXED_PAIRS
    assert len(fixed) == 9  # both versions of every fixed definition
    for t in TEMPLATES:
        assert t.pair not in fixed, t.name


def test_template_names_and_pairs_are_distinct() -> None:
    assert len({t.name for t in TEMPLATES}) == len(TEMPLATES)
    assert len({(t.pair, t.aggregate, t.key) for t in TEMPLATES}) == len(TEMPLATES)


def test_templates_read_fields_the_generator_writes() -> None:
    records = list(state_at(list(world(0).events), world(0).timeline.fork).records.values())
    for t in TEMPLATES:
        mine = [r for r in records if r.source == t.source and r.kind == t.kind]
        assert mine, t.name
        used = {t.key, t.window_field, *(c.field for c in t.conditions)}
        if t.aggregate == "span":
            used |= {"start", "end"}
        for name in used:
            assert any(r.get(name) is not None for r in mine), (t.name, name)


def test_templates_select_something_on_a_world() -> None:
    """Each template selects records at the fork of some world (a rare kind, such as a weekend
    meeting in the last ninety days, may be missing from one)."""
    forks = []
    for seed in (0, 1000, 1001):
        w = world(seed)
        forks.append((list(state_at(list(w.events), w.timeline.fork).records.values()), w))
    for t in TEMPLATES:
        d = t.definition("def.x", 1, max(WINDOWS), 1 if t.aggregate == "count" else None)
        assert any(in_scope(d, records, w.timeline.fork) for records, w in forks), t.name


# --- the filter on constructed gold sequences ------------------------------------------------

A = ("answer", ("Ann",))
B = ("answer", ("Ben",))
NONE = ("answer", ())
ABSTAIN = ("abstain", None)
OUTCOMES = st.sampled_from([A, B, NONE, ABSTAIN, ("answer", "09:00-17:00")])


def test_changed_is_against_the_previous_checkpoint_or_the_fork() -> None:
    assert changed_flags([A, A, A, A, A]) == [False] * 4
    assert changed_flags([A, B, B, B, B]) == [True] * 4
    assert changed_flags([A, B, A, A, A]) == [True, True, False, False]
    assert changed_flags([A, A, B, A, A]) == [False, True, True, False]


def test_empty() -> None:
    assert is_empty(NONE) and is_empty(ABSTAIN) and is_empty(("answer", None))
    assert is_empty(("answer", "")) and is_empty(("blocked", None))
    assert not is_empty(A) and not is_empty(("answer", "09:00-17:00"))


def test_a_value_that_never_changes_is_rejected() -> None:
    stats = filter_stats([[A] * 5] * 10)
    assert (stats.item_times, stats.changed, stats.empty) == (40, 0, 0)
    assert not passes(stats)


def test_a_mostly_empty_value_is_rejected_even_if_it_changes() -> None:
    stats = filter_stats([[A, NONE, A, NONE, NONE]] * 10)
    assert stats.changed_share == 1.0
    assert stats.empty_share == 0.75
    assert not passes(stats)


def test_a_value_that_moves_is_accepted() -> None:
    assert passes(filter_stats([[A, B, A, B, A]] * 10))


def test_the_thresholds_are_parameters_with_their_boundaries() -> None:
    # 8 of 40 item-times change: exactly 20% passes, and one fewer does not
    moving = [[A, B, B, B, B]] * 2
    still = [[A] * 5] * 8
    stats = filter_stats(moving + still)
    assert stats.changed == 8 and stats.changed_share == 0.2
    assert passes(stats)
    assert not passes(filter_stats([[A, A, B, B, B], *moving[1:], *still, [A] * 5]))
    assert not passes(stats, min_changed=0.25)
    half_empty = filter_stats([[A, B, NONE, B, NONE]] * 10)
    assert half_empty.empty_share == 0.5
    assert passes(half_empty)
    assert not passes(half_empty, max_empty=0.4)


def test_no_item_times_is_rejected() -> None:
    assert not passes(filter_stats([]))


@given(st.lists(st.lists(OUTCOMES, min_size=2, max_size=6), max_size=12))
def test_filter_counts_are_consistent(sequences: list[list[tuple[str, object]]]) -> None:
    stats = filter_stats(sequences)
    assert stats.item_times == sum(len(s) - 1 for s in sequences)
    assert max(stats.changed_vs_fork, stats.changed_vs_previous) <= stats.changed
    assert stats.changed <= min(stats.item_times, stats.changed_vs_fork + stats.changed_vs_previous)
    assert 0 <= stats.empty <= stats.item_times
    assert FilterStats.from_json(stats.to_json(0.2, 0.5)) == stats


@given(st.lists(OUTCOMES, min_size=2, max_size=8))
def test_a_flag_means_a_difference(outcomes: list[tuple[str, object]]) -> None:
    for k, flag in enumerate(changed_flags(outcomes), start=1):
        assert flag == (outcomes[k] != outcomes[k - 1] or outcomes[k] != outcomes[0])


def test_quantile_thresholds_are_observed_counts() -> None:
    assert quantile_thresholds([1, 1, 2, 3, 10]) == (2, 3, 10)
    assert quantile_thresholds([4, 4, 4]) == (4,)
    assert quantile_thresholds([]) == ()


# --- candidates and the sampler -------------------------------------------------------------


def test_a_candidate_changes_exactly_one_parameter() -> None:
    Candidate(Spec("t", 30, 2), Spec("t", 60, 2))
    Candidate(Spec("t", 30, 2), Spec("t", 30, 3))
    with pytest.raises(ValueError, match="exactly one"):
        Candidate(Spec("t", 30, 2), Spec("t", 60, 3))
    with pytest.raises(ValueError, match="exactly one"):
        Candidate(Spec("t", 30, 2), Spec("t", 30, 2))
    with pytest.raises(ValueError, match="one template"):
        Candidate(Spec("t", 30, 2), Spec("u", 60, 2))


def test_every_candidate_uses_the_grammars_windows() -> None:
    for c in candidates(pinned_stats()):
        assert c.v1.window in WINDOWS and c.v2.window in WINDOWS
        assert c.v1 in pinned_stats().specs and c.v2 in pinned_stats().specs


def test_the_pinned_draws_are_the_samplers() -> None:
    payload = read_pinned()
    draws = sample_draws(pinned_stats(), payload["sampler_seed"])
    for i, draw in enumerate(draws):
        pinned = payload["draws"][f"heldout-{i + 1}"]
        assert [(h.item_id, h.candidate.v1.key, h.candidate.v2.key) for h in draw] == [
            (p["item_id"], p["v1"], p["v2"]) for p in pinned
        ]


@settings(max_examples=25, deadline=None)
@given(SEEDS)
def test_sampler_is_deterministic(seed: int) -> None:
    assert sample_draws(pinned_stats(), seed) == sample_draws(pinned_stats(), seed)


def test_different_seeds_draw_differently() -> None:
    seen = {tuple(h.candidate for h in flat(sample_draws(pinned_stats(), s))) for s in range(20)}
    assert len(seen) == 20


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_draws_are_18_distinct_accepted_held_out_definitions(seed: int) -> None:
    stats = pinned_stats()
    draws = sample_draws(stats, seed)
    assert len(draws) == DRAWS and all(len(d) == PER_DRAW for d in draws)
    drawn = flat(draws)
    assert len({h.candidate for h in drawn}) == DRAWS * PER_DRAW
    assert len({h.candidate.template for h in drawn}) == DRAWS * PER_DRAW
    assert [h.item_id for h in drawn] == [
        f"def.h{d}_{k}" for d in range(1, DRAWS + 1) for k in range(1, PER_DRAW + 1)
    ]
    for h in drawn:
        assert stats.accepted(h.candidate.v1) and stats.accepted(h.candidate.v2)
        for d in (h.v1, h.v2):
            assert condition_pair(d.source, d.conditions) not in FIXED_PAIRS


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_v2_changes_only_the_window_or_the_threshold(seed: int) -> None:
    for h in flat(sample_draws(pinned_stats(), seed)):
        one, two = definition_to_json(h.v1), definition_to_json(h.v2)
        assert (one["version"], two["version"]) == (1, 2)
        assert one["conditions"] == two["conditions"]
        changed = {k for k in one if one[k] != two[k]} - {"version", "text"}
        assert changed in ({"window_days"}, {"threshold"}), changed


def test_the_sampler_needs_enough_templates() -> None:
    stats = pinned_stats()
    keep = sorted(accepted_candidates(stats))[: DRAWS * PER_DRAW - 1]
    specs = {
        s: (f if s.template in keep else dataclasses.replace(f, changed=0))
        for s, f in stats.specs.items()
    }
    with pytest.raises(ValueError, match="unused templates"):
        sample_draws(dataclasses.replace(stats, specs=specs), 0)


def test_pinned_statistics_cover_the_fixed_six() -> None:
    stats = pinned_stats()
    assert set(stats.fixed) == {d.label for d in SIX}
    assert all(f.item_times == 40 for f in stats.fixed.values())
