"""The cost model in the report: tokens per query by part, and the stored cell over no-store
retrieval, with the paper's figure beside ours (MemShift §6.4, F.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memshift.analysis.cost_model import NO_STORE, PARTS, RATIO, STORED, TOTAL
from memshift.models.prefix_cache import BLOCK_TOKENS, CAPACITY_TOKENS
from memshift.report.markdown import beside, interval, table

Row = Mapping[str, Any]
# MemShift F.6: "In a model of its maintenance, the source key cost 3.64 times the tokens of
# no-store BM25" (twelve-month worlds)
PAPER_RATIO = "3.64"


def tokens(value: float) -> str:
    return f"{value:,.0f}"


def times(value: float) -> str:
    return f"{value:.2f}"


def prefix_shares(calls: Sequence[Row]) -> list[tuple[str, int, int]]:
    """(role, prompt tokens, prefix-cache hits) per role of the calls table, then `all`; the
    roles without a prompt counted (a native library's calls) are left out."""
    sums: dict[str, list[int]] = {}
    for row in calls:
        found = sums.setdefault(row["role"], [0, 0])
        found[0] += row.get("prompt_tokens") or 0
        found[1] += row.get("prefix_hit_tokens") or 0
    shares = [(role, sums[role][0], sums[role][1]) for role in sorted(sums) if sums[role][0]]
    if shares:
        shares.append(("all", sum(s[1] for s in shares), sum(s[2] for s in shares)))
    return shares


def prefix_cache(calls: Sequence[Row]) -> list[str]:
    """The share of prompt tokens a prefix cache could serve, per role and over all."""
    shares = prefix_shares(calls)
    if not shares:
        return []
    body = [
        [role, tokens(total), tokens(hits), f"{100 * hits / total:.1f}%"]
        for role, total, hits in shares
    ]
    return [
        "The share of the prompt tokens a server's prefix cache could serve (vLLM's automatic "
        "prefix caching, the OpenAI and Anthropic prompt caches), replayed per job in the order "
        f"its calls were sent: {BLOCK_TOKENS}-token blocks chained by hash, a least-recently-used "
        f"cache of {CAPACITY_TOKENS:,} tokens, memshift's token count (models/prefix_cache.py; "
        "tables/calls.parquet, prompt_tokens and prefix_hit_tokens). A property of the prompts' "
        "layout and order, not a server's measured hit rate.",
        "",
        table(["role", "prompt tokens", "from a prefix cache", "cacheable share"], body),
        "",
    ]


def section(
    rows: Sequence[Row], horizon_months: int | None = None, calls: Sequence[Row] = ()
) -> str:
    cacheable = prefix_cache(calls)
    if not rows:
        return "\n".join(["## What each answer costs", "", *cacheable]) if cacheable else ""
    index = {(r["system"], r["part"]): r for r in rows}
    systems = sorted({r["system"] for r in rows if r["part"] != RATIO})
    body = [
        [system, *(interval(index.get((system, part)), tokens) for part in (*PARTS, TOTAL))]
        for system in systems
    ]
    ratio = index.get((f"{STORED}/{NO_STORE}", RATIO))
    lines = [
        "## What each answer costs",
        "",
        "Tokens per query in five parts, from the run's model call logs (analysis/cost_model.py): "
        "the pre-fork store (ingestion, charged in full to every HoldMem cell), its re-writes "
        "after the fork (maintenance), programs and audits, and the reader's input and output "
        "(serving). The write parts are spread over the queries the system answered on the same "
        "world and branch. 95% world-bootstrap intervals.",
        "",
        table(["system", *PARTS, TOTAL], body),
        "",
    ]
    if ratio is not None:
        paper = PAPER_RATIO if horizon_months in (None, 9) else None
        lines += [
            f"The source-keyed cell ({STORED}) over no-store retrieval ({NO_STORE}), tokens per "
            f"query: {beside(interval(ratio, times), paper)} (the paper's ratio at twelve months "
            "describes its language-model writer; with the rule-based backend the ratio describes "
            "the rule writer's prompts and the study's query count).",
            "",
        ]
    return "\n".join([*lines, *cacheable])
