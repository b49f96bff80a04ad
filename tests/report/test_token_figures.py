"""The tokens-per-world figure of docs/benchmarks.md sums a run's call logs by world and role,
takes the median over worlds, and counts cached calls as costing nothing."""

from __future__ import annotations

import pyarrow as pa

from memshift import schemas
from memshift.artifacts import write_table
from memshift_tools.bench.tokens import ALL, medians, per_world, section, splice_into


def calls(world: int, role: str, tokens: list[tuple[int, int, bool]]) -> pa.Table:
    n = len(tokens)
    return pa.table(
        {
            "run": ["r"] * n,
            "role": [role] * n,
            "world": [world] * n,
            "branch": ["none"] * n,
            "system": ["s"] * n,
            "item": ["i"] * n,
            "checkpoint": [0] * n,
            "backend": ["rules"] * n,
            "model": ["rules"] * n,
            "cache_key": ["k"] * n,
            "cache_hit": [hit for _, _, hit in tokens],
            "attempts": [1] * n,
            "tokens_in": [i for i, _, _ in tokens],
            "tokens_out": [o for _, o, _ in tokens],
            "latency_ms": [0.0] * n,
            "finish_reason": ["stop"] * n,
            "failure": [None] * n,
            "detail": [None] * n,
            "raw": [""] * n,
            "prompt_tokens": [i for i, _, _ in tokens],
            "prefix_hit_tokens": [0] * n,
        },
        schema=schemas.CALLS,
    )


def test_tokens_are_summed_per_world_and_role_and_cached_calls_cost_nothing(tmp_path):
    run = tmp_path / "run"
    for world, scale in ((1, 1), (2, 3), (3, 10)):
        folder = run / f"w{world}" / "none" / "sys"
        folder.mkdir(parents=True)
        write_table(
            calls(world, "reader", [(100 * scale, 5, False)] * 2),
            schemas.CALLS,
            folder / "calls-reader.parquet",
        )
        write_table(
            calls(world, "writer", [(50, 1, False), (50, 1, True)]),
            schemas.CALLS,
            folder / "calls.parquet",
        )
    rows = per_world(run)
    reader = {r["world"]: r for r in rows if r["role"] == "reader"}
    assert [reader[w]["tokens_in"] for w in (1, 2, 3)] == [200, 600, 2000]
    writer = [r for r in rows if r["role"] == "writer"]
    assert all(r["calls"] == 2 and r["tokens_in"] == 100 and r["sent"] == 51 for r in writer)
    figures = medians(rows)
    # the median world (world 2): 600 reader tokens in, 100 writer tokens in
    assert figures["reader"]["tokens_in"] == 600 and figures["writer"]["tokens_in"] == 100
    assert figures[ALL]["tokens_in"] == 700 and figures[ALL]["sent"] == 610 + 51
    assert figures[ALL]["calls"] == 4
    lines = section(run, "test", rows)
    assert "The largest share of input tokens: reader, 86%." in " ".join(lines)
    text = splice_into(
        "# Benchmarks\n\nPeak resident memory of the benchmark process: 1 MB.\n", lines
    )
    assert text.index("## Tokens per world") < text.index("Peak resident memory")
