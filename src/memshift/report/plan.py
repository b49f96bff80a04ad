"""The plan of a study's spend as text: one table by stage and role, the totals, and the
assumptions the hours and dollars rest on."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from memshift.analysis.plan import ALL, Line, Rates
from memshift.report.markdown import table
from memshift.vocabulary import BLOCK_TOKENS, CAPACITY_TOKENS


def _tokens(value: int) -> str:
    return f"{value:,}"


def _usd(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _row(line: Line) -> list[str]:
    return [
        line.stage,
        line.role,
        f"{line.calls:,}",
        f"{line.calls_sent:,}",
        _tokens(line.tokens_in),
        _tokens(line.tokens_in_sent),
        _tokens(line.tokens_out),
        _tokens(line.tokens_out_limit),
        f"{line.hours:,.2f}",
        _usd(line.usd),
        _usd(line.usd_limit),
        "—" if line.cacheable is None else f"{100 * line.cacheable:.1f}%",
    ]


HEADER = [
    "stage",
    "role",
    "calls",
    "sent",
    "tokens in",
    "sent in",
    "tokens out",
    "tokens out, at the limit",
    "hours",
    "USD",
    "USD, at the limit",
    "cacheable",
]


def render(
    lines: Sequence[Line], totals: Sequence[Line], rates: Rates, profiles: str, source: str
) -> str:
    by_role = [t for t in totals if t.stage == ALL]
    by_stage = [t for t in totals if t.stage != ALL]
    prices = (
        f"${rates.price_in:g} per million tokens in and ${rates.price_out:g} out"
        if rates.price_in is not None and rates.price_out is not None
        else "no prices given (--price-in, --price-out)"
    )
    notes = (
        "Tokens in: each request's prompt as the rule-based run built it, in memshift's count x "
        "the role's token_ratio, rounded up per call; with a context_length, evidence can only "
        "shrink, so an upper bound. Tokens out: the rule-based replies, counted the same way (a "
        "model's replies differ); at the limit: every reply at its role's max_tokens. Sent: "
        "what a first run sends, every request but those its job had made before (served from "
        "the job's first reply to it); no retries; the hours and dollars are of what is sent. "
        "Cacheable: the share of the "
        "tokens in a server's prefix cache could serve, each job's prompts replayed in the "
        f"order it sent them ({BLOCK_TOKENS}-token blocks, an LRU cache of {CAPACITY_TOKENS:,} "
        "tokens; vLLM with prefix caching, the OpenAI and Anthropic prompt caches); the hours "
        "charge every token in all the same. "
        f"Hours at {rates.throughput_in:,.0f} tokens/s in and {rates.throughput_out:,.0f} "
        "tokens/s out over all requests in flight (assumed; --throughput-in, --throughput-out); "
        f"{prices}."
    )
    return "\n".join(
        [
            f"Plan on {profiles}, from the requests of the rule-based run {source}.",
            "",
            table(HEADER, [_row(line) for line in [*lines, *by_stage, *by_role]]),
            "",
            textwrap.fill(notes, 100),
            "",
        ]
    )
