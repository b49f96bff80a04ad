"""Tokens per world of a finished study run, by model role: what a run of the study with a real
model would send and receive, from the run's own call logs (every `calls*.parquet` under the
run's world folders). A call answered from the response cache costs nothing; the rest reached
the model. With the rule-based backend the counts are memshift's token counter on the same
prompts a model would get (`memshift/tokens.py`), the replies the rule writer's.

    python -m memshift_tools.bench.tokens --run results/runs/main/h9/rules --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from memshift_tools.bench.common import splice

HEADING = "## Tokens per world, by role"
CLOSING = "Peak resident memory of the benchmark process"


def per_world(run: Path) -> list[dict[str, Any]]:
    """One row per world and role: calls, tokens in and out, and those that reached the model."""
    pattern = str(run / "w*" / "**" / "calls*.parquet")
    if not list(run.glob("w*/**/calls*.parquet")):
        raise SystemExit(f"no call logs under {run}/w*/: is it a finished run's folder?")
    query = f"""
        SELECT world, role, count(*) AS calls,
               sum(tokens_in)::BIGINT AS tokens_in, sum(tokens_out)::BIGINT AS tokens_out,
               sum(CASE WHEN cache_hit THEN 0 ELSE tokens_in + tokens_out END)::BIGINT AS sent
        FROM read_parquet('{pattern}', union_by_name = true)
        GROUP BY world, role ORDER BY world, role
    """
    with duckdb.connect() as db:
        cursor = db.execute(query)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def millions(value: float) -> str:
    return f"{value / 1e6:.2f}M"


ALL = "**all roles**"
KEYS = ("calls", "tokens_in", "tokens_out", "sent")


def medians(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per role (and ALL roles together), the median over worlds of each of KEYS per world."""
    worlds = sorted({r["world"] for r in rows})
    roles = sorted({r["role"] for r in rows})

    def per_world_total(role: str, key: str, world: int) -> int:
        return sum(r[key] for r in rows if r["world"] == world and role in (ALL, r["role"]))

    return {
        role: {
            key: statistics.median(per_world_total(role, key, w) for w in worlds) for key in KEYS
        }
        for role in [*roles, ALL]
    }


def section(run: Path, study: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    figures = medians(rows)
    worlds = len({r["world"] for r in rows})
    body = [
        f"| {role} | {f['calls']:,.0f} | {millions(f['tokens_in'])} | "
        f"{millions(f['tokens_out'])} | {millions(f['sent'])} |"
        for role, f in figures.items()
    ]
    roles = [role for role in figures if role != ALL]
    share = {r: figures[r]["tokens_in"] / max(figures[ALL]["tokens_in"], 1) for r in roles}
    largest = max(share, key=lambda role: share[role])
    return [
        HEADING,
        "",
        f"The {study} study ({worlds} worlds, run folder `{run}`): median over worlds of "
        "each role's calls and tokens per world, from the run's call logs; the last column counts "
        "the tokens of calls that reached the model (not answered from the response cache, nor "
        "repeats of a request the job had made before, served from its first reply). With "
        "a real model the prompts are the same and the replies' lengths are the model's. "
        f"The largest share of input tokens: {largest}, {share[largest]:.0%}.",
        "",
        "| role | calls | tokens in | tokens out | in + out not cached |",
        "|---|---|---|---|---|",
        *body,
        "",
        f"Command: `python -m memshift_tools.bench.tokens --run {run} --out docs/benchmarks.md` "
        "(after the study's run).",
        "",
    ]


def splice_into(text: str, lines: list[str]) -> str:
    """`text` (docs/benchmarks.md) with this section in place, before the closing line."""
    return splice(text, lines, CLOSING)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m memshift_tools.bench.tokens", description=__doc__
    )
    parser.add_argument("--run", type=Path, required=True, help="a finished run's folder")
    parser.add_argument("--study", default="main", help="the study's name, for the text")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    args = parser.parse_args(argv)
    lines = section(args.run, args.study, per_world(args.run))
    text = args.out.read_text() if args.out.exists() else ""
    args.out.write_text(splice_into(text, lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
