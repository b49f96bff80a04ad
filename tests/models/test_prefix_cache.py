"""The simulated prefix cache: hand-counted hits of short sequences, the chain of block hashes,
least-recently-used eviction tail first, and properties of the share over any prompts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.models.calllog import CallLog
from memshift.models.prefix_cache import (
    PrefixCache,
    cached_tokens,
    prompt_tokens,
    share,
    side_by_side,
    split,
)
from memshift.models.replies import Reply
from memshift.models.requests import CallContext
from memshift.tokens import count_tokens


def seq(start: int, n: int) -> list[int]:
    return list(range(start, start + n))


def test_a_repeated_prompt_is_served_its_full_blocks_but_the_last_token():
    # 40 tokens: blocks 0-15 and 16-31 are full, 32-39 is not and is never cached
    assert cached_tokens([seq(0, 40), seq(0, 40)]) == [0, 32]
    # 32 tokens, two full blocks: the last token is computed, so only the first block is served
    assert cached_tokens([seq(0, 32), seq(0, 32)]) == [0, 16]
    # 33 tokens: both blocks lie wholly before the last token
    assert cached_tokens([seq(0, 33), seq(0, 33)]) == [0, 32]


def test_a_shared_prefix_is_served_up_to_the_block_where_the_prompts_part():
    a = seq(0, 40)
    b = seq(0, 20) + seq(100, 20)  # the same for 20 tokens: one whole block
    c = seq(0, 15) + seq(200, 25)  # the same for 15 tokens: no whole block
    assert cached_tokens([a, b, c]) == [0, 16, 0]


def test_a_block_hits_only_behind_the_same_blocks():
    a = seq(0, 48)
    b = seq(500, 16) + seq(16, 32)  # a's second and third blocks behind another first block
    assert cached_tokens([a, b]) == [0, 0]
    # and a later prompt behind b's first block finds b's chain, not a's
    assert cached_tokens([a, b, seq(500, 16) + seq(16, 17)]) == [0, 0, 32]


def test_short_and_empty_prompts_are_never_served():
    assert cached_tokens([[], seq(0, 15), seq(0, 15), []]) == [0, 0, 0, 0]
    assert cached_tokens([seq(0, 16), seq(0, 16)]) == [0, 0]  # one block: the last token's


def test_the_least_recently_used_blocks_go_first_and_a_prompt_loses_its_tail_first():
    # blocks of 4 tokens, room for 2 blocks
    cache = PrefixCache(capacity_tokens=8, block_tokens=4)
    assert cache.serve(seq(0, 12)) == 0  # three blocks; the third (its tail) is evicted
    assert len(cache) == 2
    assert cache.serve(seq(0, 12)) == 8  # its head is still there: 2 blocks of the 2 it may hit
    assert cache.serve(seq(100, 9)) == 0  # two new blocks push both out
    assert cache.serve(seq(0, 12)) == 0
    # touching a prompt makes it the most recent: the other one goes
    cache = PrefixCache(capacity_tokens=16, block_tokens=4)
    x, y, z = seq(0, 9), seq(100, 9), seq(200, 9)  # two blocks each
    for prompt in (x, y, x, z):
        cache.serve(prompt)
    assert (cache.serve(x), cache.serve(y)) == (8, 0)


def test_share_is_none_without_tokens():
    assert share(0, 0) is None
    assert share(3, 4) == 0.75


def test_the_call_log_replays_each_models_prompts_in_order():
    context = CallContext(run="r", world=0, branch="src", system="s")
    reply = Reply("reader", {"status": "abstain", "value": None}, None)
    long = " ".join(f"w{n}" for n in range(40))  # 40 tokens
    messages = [{"role": "system", "content": long}, {"role": "user", "content": "a b"}]
    log = CallLog()
    log.add(context, reply, backend="openai", model="m1", messages=messages)
    log.add(context, reply, backend="openai", model="m1", messages=messages)
    log.add(context, reply, backend="openai", model="m2", messages=messages)  # another server
    log.add(context, reply, backend="openai", model="m1")  # never sent (a context overflow)
    rows = log.to_table().to_pylist()
    assert [(r["prompt_tokens"], r["prefix_hit_tokens"]) for r in rows] == [
        (42, 0),
        (42, 32),
        (42, 0),
        (None, None),
    ]


# ---- properties ------------------------------------------------------------------------------

TOKENS = st.lists(st.integers(0, 5), max_size=80)


@settings(max_examples=200, deadline=None)
@given(st.lists(TOKENS, max_size=12), st.integers(0, 64), st.integers(1, 8))
def test_each_prompt_is_served_whole_blocks_of_at_most_its_length(prompts, capacity, block):
    served = cached_tokens(prompts, capacity, block)
    for prompt, hits in zip(prompts, served, strict=True):
        assert 0 <= hits <= max(0, len(prompt) - 1) and hits % block == 0
    total = sum(map(len, prompts))
    assert total == 0 or 0 <= share(sum(served), total) <= 1  # type: ignore[operator]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(), min_size=1, max_size=200), st.integers(1, 30))
def test_a_prompt_repeated_is_served_all_its_whole_blocks_before_its_last_token(prompt, times):
    served = cached_tokens([prompt] * times)
    blocks = (len(prompt) - 1) // 16 * 16
    assert served == [0] + [blocks] * (times - 1)
    # the share tends to blocks / len(prompt) as the prompt is repeated
    assert share(sum(served), times * len(prompt)) == (times - 1) * blocks / (times * len(prompt))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 100), max_size=20))
def test_prompts_with_no_token_in_common_share_nothing(lengths):
    prompts = [[(n, k) for k in range(length)] for n, length in enumerate(lengths)]
    assert sum(cached_tokens(prompts)) == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 100), min_size=1, max_size=10))
def test_a_cache_smaller_than_a_block_serves_nothing(lengths):
    prompts = [list(range(length)) for length in lengths]
    assert sum(cached_tokens(prompts, capacity_tokens=15)) == 0


TEXT = st.text(st.characters(codec="utf-8"), max_size=400) | st.text(
    st.sampled_from("ab1_ ,.\n\t'{}"), min_size=250, max_size=800
)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_prompts_are_split_into_the_tokens_memshift_counts(text):
    assert len(split(text)) == count_tokens(text)
    assert len(prompt_tokens([{"role": "user", "content": text}] * 2)) == 2 * count_tokens(text)


WORDS = st.lists(st.sampled_from(["alpha", "b", "c1", ",", ".", "\n", "dd ee"]), max_size=60)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=10), st.lists(st.integers(0, 9)))
def test_the_call_log_serves_repeated_prompts_as_a_fresh_replay_does(pairs, order):
    """The log cuts a prompt it has seen once (and splits each line once): its hits are those
    of a plain replay of the same prompts, tokenized by the plain expression."""
    prompts = [pairs[i % len(pairs)] for i in order] or [pairs[0]]
    messages = [
        [{"role": "system", "content": " ".join(s)}, {"role": "user", "content": " ".join(u)}]
        for s, u in prompts
    ]
    context = CallContext(run="r", world=0, branch="src", system="s")
    reply = Reply("reader", {"status": "abstain", "value": None}, None)
    log = CallLog()
    for m in messages:
        log.add(context, reply, backend="openai", model="m", messages=m)
    plain = [
        [t for part in m for t in re.findall(r"\w+|[^\w\s]", part["content"])] for m in messages
    ]
    expected = list(zip(map(len, plain), cached_tokens(plain), strict=True))
    assert [
        (r["prompt_tokens"], r["prefix_hit_tokens"]) for r in log.to_table().to_pylist()
    ] == expected


@given(st.lists(st.integers(0, 6), max_size=40))
def test_side_by_side_puts_equal_keys_together_in_their_order(keys):
    order = side_by_side(keys)
    assert sorted(order) == list(range(len(keys)))
    placed = [keys[k] for k in order]
    # each key's places are one run, keys in the order they first come, places in theirs
    runs = [key for n, key in enumerate(placed) if n == 0 or placed[n - 1] != key]
    assert runs == list(dict.fromkeys(keys))
    for key in runs:
        mine = [k for k in order if keys[k] == key]
        assert mine == sorted(mine)


def test_requests_sharing_a_prefix_side_by_side_are_served_by_a_small_cache():
    """Two items' prompts alternating: a cache with room for one prompt serves nothing; the
    same prompts with each item's side by side are served their shared head."""
    heads = {"a": seq(0, 64), "b": seq(1000, 64)}
    keys = ["a", "b"] * 4
    prompts = [heads[key] + seq(5000 + 100 * n, 16) for n, key in enumerate(keys)]
    small = 80  # one prompt
    assert sum(cached_tokens(prompts, small)) == 0
    assert sum(cached_tokens([prompts[k] for k in side_by_side(keys)], small)) == 6 * 64
