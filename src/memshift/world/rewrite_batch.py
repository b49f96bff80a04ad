"""Rewriting many bodies at once: every distinct content's first attempt in one batch, then the
retries of those that failed in a second.

`rewrite.rewrite_record` asks a `Rewriter` one body at a time, which keeps a model server waiting
between calls. Here the asks go out as batches (`AskBatch`: a list of asks in, one reply text per
ask out, in order), ordered by content key, so the requests and therefore every reply and every
rewritten world are the same on every run and in every process. The checks, the retry and the
template fallback are those of `rewrite._rewrite`, so a batch rewrite of a world reads exactly as
`rewrite_events` would with the same rewriter.

A call that fails outright (the server gave no usable reply) comes back as a `FailedReply`: an
attempt that failed, its violation naming the failure, never an exception. Nothing of a run is
kept beyond its own cache (`cache` here is in memory), so a later run asks again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass

from memshift.world.rewrite import (
    ACCEPTED,
    POOL_NAMES,
    RETRIED,
    TEMPLATE,
    CachedRewrite,
    Rewriter,
    check_rewrite,
)
from memshift.world.rewrite import _joined as joined  # the log cell `rewrite_record` writes

# The violation `rewrite_record` records for a body with nothing in it (asked for nothing).
EMPTY_TEMPLATE = "empty template body"


@dataclass(frozen=True)
class Ask:
    """One request for a rewrite: the arguments of a `Rewriter` call."""

    body: str
    protected: tuple[str, ...]
    feedback: tuple[str, ...] = ()


AskBatch = Callable[[Sequence[Ask]], list[str]]


class FailedReply(str):
    """The reply text of a call that failed outright: its value is the violation that names the
    failure. It is no JSON, so a caller that checks it as a reply (`check_rewrite`) rejects it
    too; `checked` gives its own violation instead of "not JSON"."""

    __slots__ = ()


def one_by_one(rewriter: Rewriter) -> AskBatch:
    """A batch made of single calls, for a plain `Rewriter` (the offline one, a test's)."""
    return lambda asks: [rewriter(a.body, a.protected, a.feedback) for a in asks]


def checked(
    reply: str, ask: Ask, pool_names: Sequence[str] = POOL_NAMES
) -> tuple[str | None, list[str]]:
    """`check_rewrite` of a reply, with a failed call's own violation."""
    if isinstance(reply, FailedReply):
        return None, [str(reply)]
    return check_rewrite(reply, ask.body, ask.protected, pool_names)


def _answers(ask_batch: AskBatch, asks: Sequence[Ask]) -> list[str]:
    if not asks:
        return []
    replies = ask_batch(asks)
    if len(replies) != len(asks):
        raise ValueError(f"a rewrite batch of {len(asks)} asks came back with {len(replies)}")
    return replies


def rewrite_contents(
    asks: Mapping[str, Ask],
    ask_batch: AskBatch,
    cache: MutableMapping[str, CachedRewrite],
    *,
    pool_names: Sequence[str] = POOL_NAMES,
) -> int:
    """Fill `cache` for every content key of `asks` it lacks; return the calls made. Keys go out
    in sorted order; an empty body is kept as template and asked for nothing."""
    todo = sorted(key for key in asks if key not in cache)
    for key in todo:
        if not asks[key].body.strip():
            cache[key] = CachedRewrite(TEMPLATE, asks[key].body, EMPTY_TEMPLATE, 0)
    todo = [key for key in todo if key not in cache]
    first = _answers(ask_batch, [asks[key] for key in todo])
    retry: dict[str, list[str]] = {}
    for key, reply in zip(todo, first, strict=True):
        new, found = checked(reply, asks[key], pool_names)
        if new is not None:
            cache[key] = CachedRewrite(ACCEPTED, new, "", 1)
        else:
            retry[key] = found
    again = [Ask(asks[k].body, asks[k].protected, tuple(retry[k])) for k in retry]
    for (key, found), reply in zip(retry.items(), _answers(ask_batch, again), strict=True):
        new, second = checked(reply, asks[key], pool_names)
        if new is not None:
            cache[key] = CachedRewrite(RETRIED, new, joined([found]), 2)
        else:
            cache[key] = CachedRewrite(TEMPLATE, asks[key].body, joined([found, second]), 2)
    return len(todo) + len(retry)
