"""Benchmark: the OpenAI backend against the local API server with simulated latency, and the
overhead of a cache hit.

The server runs in its own process beside this one; both share the machine's cores, as a client
and a model server on one host would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from memshift.bench.common import median, runs_text, timed
from memshift.models.check import reader_requests
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile

REQUESTS = 5000
LATENCY_S = 0.05
CONCURRENCY = 64
RATIO_BUDGET = 1.2
HIT_BUDGET_MS = 1.0


def _profile(url: str) -> Profile:
    return Profile(
        "bench",
        "openai",
        model="bench-model",
        base_url=f"{url}/v1",
        concurrency=CONCURRENCY,
        timeout_s=60.0,
        decoding={"temperature": 0.0, "top_p": 1.0, "max_tokens": 256, "seed": 0},
    )


def _start_server() -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memshift.models.localserver",
            "--port",
            "0",
            "--latency",
            str(LATENCY_S),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().split()[-1]
    return server, url


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def section(runs: int, scratch: Path) -> list[str]:
    requests = reader_requests(REQUESTS)
    ideal = REQUESTS * LATENCY_S / CONCURRENCY
    server, url = _start_server()
    misses: list[float] = []
    hit_medians: list[float] = []
    try:
        for _ in range(runs):
            cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
            client = ModelClient(_profile(url), cache_dir=cache)
            misses.append(timed(lambda c=client: c.generate(requests)))
            hits = ModelClient(_profile(url), cache_dir=cache).generate(requests)
            assert all(r.cache_hit for r in hits)
            hit_medians.append(median([r.latency_ms for r in hits]))
            shutil.rmtree(cache)
    finally:
        server.terminate()
        server.wait()
    ratio = median(misses) / ideal
    return [
        "## Model calls: OpenAI backend against the local API server",
        "",
        f"{REQUESTS} distinct reader requests, {LATENCY_S * 1000:.0f} ms simulated latency, "
        f"concurrency {CONCURRENCY}; the ideal is {REQUESTS} x {LATENCY_S} s / {CONCURRENCY} = "
        f"{ideal:.2f} s. Every reply is validated and written to the cache. {runs} runs.",
        "",
        "| what | median | runs | budget |",
        "|---|---|---|---|",
        f"| wall time, cold cache | {median(misses):.2f} s ({ratio:.2f} x ideal) | "
        f"{runs_text(misses)} | {RATIO_BUDGET} x ideal: {_verdict(ratio <= RATIO_BUDGET)} |",
        f"| per-call time of a cache hit (median over {REQUESTS} calls) | "
        f"{median(hit_medians):.3f} ms | {runs_text(hit_medians, 'ms')} | "
        f"{HIT_BUDGET_MS} ms: {_verdict(median(hit_medians) < HIT_BUDGET_MS)} |",
        "",
    ]
