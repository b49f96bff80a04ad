"""Benchmark: the OpenAI backend against the local API server with simulated latency, and the
overhead of a cache hit.

The server runs in its own process beside this one; both share the machine's cores, as a client
and a model server on one host would.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from memshift.models.cache import CachedReply, ResponseCache, canonical
from memshift.models.check import reader_requests
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import ReaderRequest
from memshift_tools.bench.common import median, runs_text, timed

REQUESTS = 5000
LATENCY_S = 0.05
CONCURRENCY = 64
RATIO_BUDGET = 1.2
HIT_BUDGET_MS = 1.0
LARGE_CACHE = 100_000
LARGE_CACHE_PACKS = 500


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
            "memshift_tools.localserver",
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


def _cold(url: str, requests: list[ReaderRequest], cache: Path | None) -> float:
    return timed(lambda: ModelClient(_profile(url), cache_dir=cache).generate(requests))


def _first_lookup(scratch: Path) -> float:
    """Seconds a new process's first lookup takes in a cache of LARGE_CACHE entries written by
    LARGE_CACHE_PACKS processes (what a job of a big study pays once, to read the indexes)."""
    root = Path(tempfile.mkdtemp(prefix="large-", dir=scratch))
    body = canonical({"messages": [{"role": "user", "content": "x" * 2000}]})
    reply = CachedReply("{}", "stop", 500, 5)
    per_pack = LARGE_CACHE // LARGE_CACHE_PACKS
    for pack in range(LARGE_CACHE_PACKS):
        store = ResponseCache(root)
        for n in range(per_pack):
            key = hashlib.sha256(f"{pack}/{n}".encode()).hexdigest()
            store.put(key, {"bench": True}, body, reply)
        store.close()
    seconds = timed(lambda: ResponseCache(root).get(key))
    shutil.rmtree(root)
    return seconds


def section(runs: int, scratch: Path) -> list[str]:
    requests = reader_requests(REQUESTS)
    ideal = REQUESTS * LATENCY_S / CONCURRENCY
    server, url = _start_server()
    misses: list[float] = []
    uncached: list[float] = []
    hit_medians: list[float] = []
    try:
        for _ in range(runs):
            uncached.append(_cold(url, requests, None))
            cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
            misses.append(_cold(url, requests, cache))
            hits = ModelClient(_profile(url), cache_dir=cache).generate(requests)
            assert all(r.cache_hit for r in hits)
            hit_medians.append(median([r.latency_ms for r in hits]))
            shutil.rmtree(cache)
    finally:
        server.terminate()
        server.wait()
    lookups = [_first_lookup(scratch) for _ in range(runs)]
    ratio = median(misses) / ideal
    return [
        "## Model calls: OpenAI backend against the local API server",
        "",
        f"{REQUESTS} distinct reader requests, {LATENCY_S * 1000:.0f} ms simulated latency, "
        f"concurrency {CONCURRENCY}; the ideal is {REQUESTS} x {LATENCY_S} s / {CONCURRENCY} = "
        f"{ideal:.2f} s. Every reply is validated, and written to the cache in every row but "
        f"the second. {runs} runs.",
        "",
        "| what | median | runs | budget |",
        "|---|---|---|---|",
        f"| wall time, cold cache | {median(misses):.2f} s ({ratio:.2f} x ideal) | "
        f"{runs_text(misses)} | {RATIO_BUDGET} x ideal: {_verdict(ratio <= RATIO_BUDGET)} |",
        f"| wall time, no cache | {median(uncached):.2f} s "
        f"({median(uncached) / ideal:.2f} x ideal) | {runs_text(uncached)} | — |",
        f"| per-call time of a cache hit (median over {REQUESTS} calls) | "
        f"{median(hit_medians):.3f} ms | {runs_text(hit_medians, 'ms')} | "
        f"{HIT_BUDGET_MS} ms: {_verdict(median(hit_medians) < HIT_BUDGET_MS)} |",
        f"| a new process's first lookup in a cache of {LARGE_CACHE:,} entries in "
        f"{LARGE_CACHE_PACKS} packs (reads every index) | {median(lookups):.2f} s | "
        f"{runs_text(lookups)} | — |",
        "",
    ]
