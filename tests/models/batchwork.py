"""A batch of model requests shared by the client tests and the subprocess they kill."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import world
from memshift.models.check import check_requests
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import ReaderRequest


def reader_batch(n: int) -> list[ReaderRequest]:
    built = world(0)  # shared by the run's workers and the subprocesses they start
    items = [i for i in built.items if not i.is_definition]
    fork = built.timeline.fork
    return [
        ReaderRequest(items[k % len(items)], 1, fork,
                      f"As of 2026-10-01 00:00: {items[k % len(items)].question} (#{k})", ())
        for k in range(n)
    ]  # fmt: skip


def all_requests(n: int = 40) -> list:
    return [*check_requests(), *reader_batch(n)]


def openai_profile(url: str, **changes) -> Profile:
    settings = {
        "model": "local-model", "revision": "r1", "base_url": f"{url}/v1", "concurrency": 8,
        "timeout_s": 5.0, "max_attempts": 4,
        "decoding": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0},
        "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
    }  # fmt: skip
    settings.update(changes)
    return Profile("local", "openai", **settings)


if __name__ == "__main__":
    url, cache_dir, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    replies = ModelClient(openai_profile(url, concurrency=2), cache_dir=cache_dir).generate(
        reader_batch(n)
    )
    print(sum(r.ok for r in replies), flush=True)
