"""The cost model in the report: tokens per query by part, and the stored cell over no-store
retrieval, with the paper's figure beside ours (MemShift §6.4, F.6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift import layout
from memshift.analysis.cost_model import NO_STORE, PARTS, RATIO, STORED, TOTAL, costs_table
from memshift.analysis.plan import ALL
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, table
from memshift.vocabulary import BLOCK_TOKENS, CAPACITY_TOKENS

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


def _change(planned: int, made: int) -> str:
    return "—" if not planned else f"{100 * (made - planned) / planned:+.1f}%"


def plan_beside_spend(plan: Sequence[Row], calls: Sequence[Row]) -> list[str]:
    """What `memshift plan` priced the run at beside what its calls took, per role and over
    all: calls and tokens of the requests made (sent to the model or served by the response
    cache), and of those what was sent, beside what the plan expects a first run to send."""
    if not plan:
        return []
    planned = {r["role"]: r for r in plan if r["stage"] == ALL}
    made: dict[str, Counter[str]] = {}
    for row in calls:
        found = made.setdefault(row["role"], Counter())
        found["calls"] += row["calls"]
        for way in ("in", "out"):
            found[way] += row[f"tokens_{way}_spent"] + row[f"tokens_{way}_cached"]
            found[f"sent {way}"] += row[f"tokens_{way}_spent"]
    roles = sorted({*planned, *made} - {ALL})
    # over all: the roles the plan prices (a native library's own calls it cannot)
    made[ALL] = sum((made.get(role, Counter()) for role in roles if role in planned), Counter())
    body = []
    for role in [*roles, ALL]:
        m = made.get(role, Counter())
        p = planned.get(role)
        against = (
            ["—"] * 5
            if p is None
            else [
                f"{p['calls']:,}",
                tokens(p["tokens_in"]),
                _change(p["tokens_in"], m["in"]),
                f"{tokens(p['tokens_out'])} (at most {tokens(p['tokens_out_limit'])})",
                _change(p["tokens_out"], m["out"]),
            ]
        )
        # plan files written before repeats were counted have no sent columns
        sent_planned = (
            f" (plan {p['tokens_in_sent']:,} / {p['tokens_out_sent']:,})"
            if p is not None and p.get("tokens_in_sent") is not None
            else ""
        )
        body.append(
            [
                role,
                against[0],
                f"{m['calls']:,}",
                against[1],
                tokens(m["in"]),
                against[2],
                against[3],
                tokens(m["out"]),
                against[4],
                f"{m['sent in']:,} / {m['sent out']:,}{sent_planned}",
            ]
        )
    return [
        "The plan (`memshift plan`, plan.parquet in the run's folder) beside what the run's "
        "calls took: the requests made, whether sent to the model or served by the response "
        "cache, and of those the tokens sent. Planned tokens in are the rule-based run's prompts "
        "on the profile's token ratio; planned tokens out are the rule-based replies, with every "
        "call at its reply limit as the ceiling.",
        "",
        table(
            [
                "role",
                "calls planned",
                "calls made",
                "tokens in planned",
                "tokens in made",
                "in, off the plan",
                "tokens out planned",
                "tokens out made",
                "out, off the plan",
                "sent in / out",
            ],
            body,
        ),
        "",
    ]


def section(
    rows: Sequence[Row],
    horizon_months: int | None = None,
    calls: Sequence[Row] = (),
    plan: Sequence[Row] = (),
) -> str:
    cacheable = [*prefix_cache(calls), *plan_beside_spend(plan, calls)]
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


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"costs": costs_table(inputs.con, inputs.resampling)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    horizon = layout.history_of_worlds(inputs.worlds_dir)
    return section(rows["costs"], horizon, inputs.calls, inputs.plan)
