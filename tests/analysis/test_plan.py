"""The plan's arithmetic: a profile's token_ratio per call, hours at a throughput, dollars at a
price, the totals, and numbers refused in one line."""

from __future__ import annotations

import math

import pytest

from memshift.analysis.plan import ALL, Call, Rates, estimate, totals
from memshift.errors import ConfigError
from memshift.models.profiles import Profile

CALLS = [
    Call("prefork", "writer", 1201, 37),
    Call("prefork", "writer", 999, 41),
    Call("cells", "reader", 333, 5),
    Call("cells", "program", 77, 120),
    Call("audit", "auditor", 2048, 15),
]
RULES = Profile("rules", "rules")


def model(ratio: float, limit: int = 256) -> Profile:
    return Profile("m", "openai", token_ratio=ratio, decoding={"max_tokens": limit})


def by(lines, stage, role):
    return next(line for line in lines if (line.stage, line.role) == (stage, role))


def test_on_the_rules_profile_the_plan_is_the_logged_calls_exactly():
    lines = estimate(CALLS, {}, RULES, Rates())
    every = by(totals(lines, Rates()), ALL, ALL)
    assert every.calls == len(CALLS)
    assert every.tokens_in == sum(c.tokens_in for c in CALLS)
    assert every.tokens_out == sum(c.tokens_out for c in CALLS)
    writer = by(lines, "prefork", "writer")
    assert writer.calls == 2 and writer.tokens_in == 1201 + 999


def test_a_token_ratio_scales_each_call_rounded_up_and_the_limit_bounds_the_replies():
    target = model(1.3, limit=300)
    lines = estimate(CALLS, {}, target, Rates())
    every = by(totals(lines, Rates()), ALL, ALL)
    assert every.calls == len(CALLS)
    assert every.tokens_in == sum(math.ceil(c.tokens_in * 1.3) for c in CALLS)
    assert every.tokens_out == sum(math.ceil(c.tokens_out * 1.3) for c in CALLS)
    assert every.tokens_out_limit == 300 * len(CALLS)


def test_a_prompt_longer_than_the_window_leaves_room_for_is_planned_at_that_room():
    # a 2,048-token window with 256 for the reply leaves (2048 - 256) / 1.5 = 1,194 of
    # memshift's tokens for a prompt: the evidence budgets cut the longer prompts to that
    windowed = Profile(
        "small", "openai", token_ratio=1.5, context_length=2048, decoding={"max_tokens": 256}
    )
    lines = estimate(CALLS, {}, windowed, Rates())
    room = windowed.prompt_room("writer")
    assert room == 1194
    writer = by(lines, "prefork", "writer")
    assert writer.tokens_in == math.ceil(1194 * 1.5) + math.ceil(999 * 1.5)
    assert by(lines, "audit", "auditor").tokens_in == math.ceil(1194 * 1.5)
    assert by(lines, "cells", "reader").tokens_in == math.ceil(333 * 1.5)


def test_each_role_is_priced_on_its_own_profile():
    reader = model(2.0)
    lines = estimate(CALLS, {"reader": reader}, RULES, Rates())
    assert by(lines, "cells", "reader").tokens_in == 2 * 333
    assert by(lines, "cells", "reader").profile == "m"
    assert by(lines, "audit", "auditor").tokens_in == 2048


def test_hours_follow_the_throughput_and_dollars_the_prices():
    slow, fast = Rates(1000, 100), Rates(2000, 200, price_in=1.0, price_out=4.0)
    a = by(totals(estimate(CALLS, {}, RULES, slow), slow), ALL, ALL)
    b = by(totals(estimate(CALLS, {}, RULES, fast), fast), ALL, ALL)
    assert b.hours == pytest.approx(a.hours / 2)
    assert a.usd is None and a.usd_limit is None
    assert b.usd == pytest.approx((a.tokens_in * 1.0 + a.tokens_out * 4.0) / 1e6)


def test_totals_by_role_and_by_stage_add_up_to_everything():
    lines = estimate(CALLS, {}, model(1.5), Rates())
    summed = totals(lines, Rates())
    every = by(summed, ALL, ALL)
    by_role = [t for t in summed if t.stage == ALL and t.role != ALL]
    by_stage = [t for t in summed if t.role == ALL and t.stage != ALL]
    assert {t.role for t in by_role} == {c.role for c in CALLS}
    assert {t.stage for t in by_stage} == {c.stage for c in CALLS}
    for group in (by_role, by_stage):
        assert sum(t.calls for t in group) == every.calls
        assert sum(t.tokens_in for t in group) == every.tokens_in


@pytest.mark.parametrize(
    "changes",
    [
        {"throughput_in": -5.0},
        {"throughput_out": 0.0},
        {"throughput_in": float("nan")},
        {"throughput_out": float("inf")},
        {"price_in": -1.0, "price_out": 1.0},
        {"price_in": float("nan"), "price_out": 1.0},
        {"price_in": 1.0},
    ],
)
def test_bad_numbers_are_refused_in_one_line(changes):
    with pytest.raises(ConfigError) as caught:
        Rates(**changes)
    message = str(caught.value)
    assert "\n" not in message and "--" in message


def test_the_cacheable_share_is_the_prefix_hits_over_the_prompt_tokens_whatever_the_ratio():
    calls = [
        Call("cells", "reader", 100, 5, prompt_tokens=100, prefix_hit_tokens=64),
        Call("cells", "reader", 60, 5, prompt_tokens=60, prefix_hit_tokens=16),
        Call("audit", "auditor", 40, 5, prompt_tokens=40, prefix_hit_tokens=0),
        Call("audit", "library", 0, 0),  # a native library's call: no prompt counted
    ]
    lines = estimate(calls, {}, model(1.5), Rates())
    assert by(lines, "cells", "reader").cacheable == 80 / 160
    assert by(lines, "audit", "auditor").cacheable == 0
    assert by(lines, "audit", "library").cacheable is None
    every = by(totals(lines, Rates()), ALL, ALL)
    assert (every.prompt_tokens, every.prefix_hit_tokens) == (200, 80)
    assert every.cacheable == 80 / 200
    assert by(totals(lines, Rates()), "audit", ALL).cacheable == 0


def test_a_repeat_is_made_but_not_sent_and_hours_and_dollars_are_of_what_is_sent():
    repeat = Call("audit", "auditor", 2048, 15, repeat=True)
    rates = Rates(price_in=1.0, price_out=2.0)
    lines = estimate([*CALLS, repeat], {}, model(1.0, limit=100), rates)
    every = by(totals(lines, rates), ALL, ALL)
    auditor = by(lines, "audit", "auditor")
    assert (auditor.calls, auditor.calls_sent) == (2, 1)
    assert (auditor.tokens_in, auditor.tokens_in_sent) == (4096, 2048)
    assert every.calls_sent == len(CALLS)
    assert every.tokens_in_sent == sum(c.tokens_in for c in CALLS)
    sent_in, sent_out = every.tokens_in_sent, every.tokens_out_sent
    assert every.usd == pytest.approx((sent_in * 1.0 + sent_out * 2.0) / 1e6)
    assert every.usd_limit == pytest.approx((sent_in * 1.0 + 100 * len(CALLS) * 2.0) / 1e6)
    assert every.hours == pytest.approx(rates.hours(sent_in, sent_out))
