"""What a study will cost on a model profile, from the requests the rule-based run of the same
study made: calls, tokens in and out by role and stage, hours at a stated server throughput and
dollars at stated prices per million tokens.

The rule-based backend answers every request of the study offline and logs each call with
memshift's token count of its prompt and reply. A call's tokens on the target profile are that
count, each prompt first capped at the room the profile's context window leaves it
(`Profile.prompt_room`, to which the evidence budgets cut a prompt), times the profile's
`token_ratio`, rounded up per call as the context-window check rounds a prompt
(`client.prompt_estimate`); with the rules profile itself they are the logged counts exactly.
What the budgets cut comes out of the evidence, so with a window the prompts are an upper bound.
Replies are the rule-based backend's replies, counted the same way: a language model's replies
differ in length, so the plan also gives the ceiling, every call at its role's reply limit
(`decoding.max_tokens`). The same prompts, replayed per job through a simulated prefix cache
(`models/prefix_cache.py`), give the share of the tokens in a server's prefix cache could serve
(`cacheable`). A request a job makes again is served by the job's first reply to it
(`CallLog.earlier`), so it is made but not sent: hours and dollars are those of the requests
sent (`calls_sent`, `tokens_in_sent`, `tokens_out_sent`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa

from memshift.errors import ConfigError
from memshift.models.prefix_cache import share
from memshift.models.profiles import Profile

# Assumptions, not measurements (no GPU where memshift is built): a 9B model in bf16 with vLLM on
# one 80 GB GPU at concurrency 64 and prefix caching on, tokens per second over all requests in
# flight: prompt processing (prefill) and generation (decode).
THROUGHPUT_IN = 10_000.0
THROUGHPUT_OUT = 1_500.0
MILLION = 1_000_000
ALL = "all"

PLAN = pa.schema(
    [
        ("stage", pa.string()),
        ("role", pa.string()),
        ("profile", pa.string()),
        ("calls", pa.int64()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("tokens_out_limit", pa.int64()),
        ("hours", pa.float64()),
        ("usd", pa.float64()),
        ("usd_limit", pa.float64()),
        # memshift's count of the prompts, what a prefix cache serves of them, and the share
        ("prompt_tokens", pa.int64()),
        ("prefix_hit_tokens", pa.int64()),
        ("cacheable", pa.float64()),
        # the requests a first run sends: every one made but the job's repeats
        ("calls_sent", pa.int64()),
        ("tokens_in_sent", pa.int64()),
        ("tokens_out_sent", pa.int64()),
        ("tokens_out_limit_sent", pa.int64()),
    ]
)


def _number(name: str, value: float | None, *, positive: bool) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        need = "a finite number above 0" if positive else "a finite number, 0 or more"
        raise ConfigError(f"{name} must be {need}, got {value:g}")


@dataclass(frozen=True)
class Rates:
    """Tokens per second the server processes (prompt) and generates (reply), over all requests
    in flight, and US dollars per million tokens in and out (None: no price stated)."""

    throughput_in: float = THROUGHPUT_IN
    throughput_out: float = THROUGHPUT_OUT
    price_in: float | None = None
    price_out: float | None = None

    def __post_init__(self) -> None:
        _number("--throughput-in", self.throughput_in, positive=True)
        _number("--throughput-out", self.throughput_out, positive=True)
        _number("--price-in", self.price_in, positive=False)
        _number("--price-out", self.price_out, positive=False)
        if (self.price_in is None) != (self.price_out is None):
            raise ConfigError("give both --price-in and --price-out, or neither")

    def hours(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in / self.throughput_in + tokens_out / self.throughput_out) / 3600

    def usd(self, tokens_in: int, tokens_out: int) -> float | None:
        if self.price_in is None or self.price_out is None:
            return None
        return (tokens_in * self.price_in + tokens_out * self.price_out) / MILLION


@dataclass(frozen=True)
class Call:
    """One call of the rule-based run, as its call log recorded it."""

    stage: str
    role: str
    tokens_in: int
    tokens_out: int
    # memshift's count of the prompt and what a prefix cache served of it (0: not logged)
    prompt_tokens: int = 0
    prefix_hit_tokens: int = 0
    # the same request as one its job had made before, served from that reply (a cache hit)
    repeat: bool = False


class Amounts(NamedTuple):
    """Calls, tokens in and out, and tokens out with every reply at its limit."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_out_limit: int = 0

    def plus(self, other: Amounts) -> Amounts:
        return Amounts(*(a + b for a, b in zip(self, other, strict=True)))


@dataclass(frozen=True)
class Line:
    """The plan of one stage and role (or `all` of either) on its profile."""

    stage: str
    role: str
    profile: str
    calls: int
    tokens_in: int
    tokens_out: int
    tokens_out_limit: int
    hours: float
    usd: float | None
    usd_limit: float | None
    prompt_tokens: int = 0
    prefix_hit_tokens: int = 0
    cacheable: float | None = None  # prefix_hit_tokens / prompt_tokens
    calls_sent: int = 0
    tokens_in_sent: int = 0
    tokens_out_sent: int = 0
    tokens_out_limit_sent: int = 0

    @property
    def made(self) -> Amounts:
        return Amounts(self.calls, self.tokens_in, self.tokens_out, self.tokens_out_limit)

    @property
    def sent(self) -> Amounts:
        return Amounts(
            self.calls_sent, self.tokens_in_sent, self.tokens_out_sent, self.tokens_out_limit_sent
        )


def stage_of(log: Path) -> str:
    """The job a call log belongs to: `calls-ingest.parquet` -> ingest; a system's own
    `calls.parquet` -> its system folder."""
    return log.stem.removeprefix("calls-") if log.stem.startswith("calls-") else log.parent.name


def on_profile(tokens: int, profile: Profile) -> int:
    return math.ceil(tokens * profile.token_ratio)


def prompt_on(call: Call, profile: Profile) -> int:
    """The call's prompt in memshift's tokens as the profile would be sent it: no longer than
    the room its context window leaves the prompt, to which the evidence budgets cut it."""
    room = profile.prompt_room(call.role)
    return call.tokens_in if room is None else min(call.tokens_in, room)


ZERO = Amounts()


@dataclass
class _Tally:
    """What a line sums: the requests made, those sent, and their prompts' prefix-cache hits."""

    made: Amounts = field(default_factory=Amounts)
    sent: Amounts = field(default_factory=Amounts)
    prompt_tokens: int = 0
    prefix_hit_tokens: int = 0

    def add(self, made: Amounts, sent: Amounts, prompt_tokens: int, hits: int) -> None:
        self.made, self.sent = self.made.plus(made), self.sent.plus(sent)
        self.prompt_tokens += prompt_tokens
        self.prefix_hit_tokens += hits


def _line(stage: str, role: str, profile: str, tally: _Tally, rates: Rates) -> Line:
    """A plan line: the requests made, and hours and dollars of those sent."""
    sent = tally.sent
    return Line(
        stage,
        role,
        profile,
        *tally.made,
        rates.hours(sent.tokens_in, sent.tokens_out),
        rates.usd(sent.tokens_in, sent.tokens_out),
        rates.usd(sent.tokens_in, sent.tokens_out_limit),
        tally.prompt_tokens,
        tally.prefix_hit_tokens,
        share(tally.prefix_hit_tokens, tally.prompt_tokens),
        *sent,
    )


def estimate(
    calls: Iterable[Call], profiles: Mapping[str, Profile], default: Profile, rates: Rates
) -> list[Line]:
    """One line per stage and role that made calls, in stage then role order. A role without a
    profile of its own (a native library's calls) is priced on `default`."""
    tallies: dict[tuple[str, str], _Tally] = {}
    for call in calls:
        profile = profiles.get(call.role, default)
        made = Amounts(
            1,
            on_profile(prompt_on(call, profile), profile),
            on_profile(call.tokens_out, profile),
            profile.reply_tokens(call.role),
        )
        tally = tallies.setdefault((call.stage, call.role), _Tally())
        sent = ZERO if call.repeat else made
        tally.add(made, sent, call.prompt_tokens, call.prefix_hit_tokens)
    return [
        _line(stage, role, profiles.get(role, default).name, tallies[stage, role], rates)
        for stage, role in sorted(tallies)
    ]


def totals(lines: Sequence[Line], rates: Rates) -> list[Line]:
    """Each role over every stage, each stage over every role, and everything (`all`, `all`)."""

    def summed(stage: str, role: str, picked: list[Line]) -> Line:
        tally = _Tally()
        for line in picked:
            tally.add(line.made, line.sent, line.prompt_tokens, line.prefix_hit_tokens)
        names = sorted({line.profile for line in picked})
        return _line(stage, role, ", ".join(names), tally, rates)

    roles = sorted({line.role for line in lines})
    stages = sorted({line.stage for line in lines})
    return [
        *(summed(ALL, role, [x for x in lines if x.role == role]) for role in roles),
        *(summed(stage, ALL, [x for x in lines if x.stage == stage]) for stage in stages),
        summed(ALL, ALL, list(lines)),
    ]


def plan_table(lines: Sequence[Line]) -> pa.Table:
    return pa.Table.from_pylist([asdict(line) for line in lines], schema=PLAN)
