"""The one way memshift calls a model: batched, bounded, cached, retried, validated, logged.

`ModelClient.generate` takes typed requests of any role and returns one `Reply` per request, in
order. A reply carries either the parsed JSON value or a failure with its reason; nothing is
retried into a different answer: retries happen only when no reply arrived.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memshift.models import prompts
from memshift.models.backends import Completion, HttpBackend, RulesBackend
from memshift.models.cache import CachedReply, ResponseCache, cache_key, canonical
from memshift.models.calllog import CallLog
from memshift.models.profiles import Profile
from memshift.models.replies import Reply, Usage
from memshift.models.requests import ModelRequest
from memshift.models.retry import RetryPolicy, TransportFailure
from memshift.models.schemas import SCHEMAS, check_reply, schema_name
from memshift.tokens import count_tokens

TRUNCATED = frozenset({"length", "max_tokens"})


def make_http_backend(profile: Profile) -> HttpBackend:
    if profile.backend == "openai":
        from memshift.models.openai_backend import OpenAIBackend

        return OpenAIBackend(profile)
    if profile.backend == "anthropic":
        from memshift.models.anthropic_backend import AnthropicBackend

        return AnthropicBackend(profile)
    raise ValueError(f"no HTTP backend {profile.backend!r}")


def key_meta(profile: Profile) -> dict[str, Any]:
    """What besides the request body can change a reply. An API key, a timeout, a retry setting
    or a concurrency limit cannot, so none of them is here."""
    return {
        "prompt_version": prompts.PROMPT_VERSION,
        "backend": profile.backend,
        "model": profile.model,
        "revision": profile.revision,
        "base_url": profile.base_url.rstrip("/"),
    }


def request_key(profile: Profile, body: dict[str, Any]) -> tuple[str, str]:
    """(cache key, canonical JSON of the body); the same JSON is what goes on the wire."""
    body_json = canonical(body)
    return cache_key(key_meta(profile), body_json), body_json


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _checked(
    request: ModelRequest,
    content: str | None,
    finish_reason: str,
    usage: Usage,
    start: float,
    attempts: int,
    key: str,
    cache_hit: bool = False,
) -> Reply:
    if finish_reason in TRUNCATED:
        value, failure, detail = None, "truncated", f"stopped at the token limit ({finish_reason})"
    else:
        value, failure, detail = check_reply(schema_name(request), content)
    return Reply(
        request.role,
        value,
        failure,
        detail,
        finish_reason,
        usage,
        _ms(start),
        cache_hit,
        attempts,
        key,
    )


@dataclass
class _Batch:
    refreshed: bool = False


class ModelClient:
    def __init__(
        self,
        profile: Profile,
        *,
        cache_dir: Path | None = None,
        log: CallLog | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.profile = profile
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.log = log if log is not None else CallLog()
        self.retry = retry or RetryPolicy(max_attempts=profile.max_attempts)
        self.rules = RulesBackend(profile) if profile.backend == "rules" else None
        self._jitter = random.Random()

    def generate(self, requests: Sequence[ModelRequest]) -> list[Reply]:
        return asyncio.run(self.agenerate(requests))

    async def agenerate(self, requests: Sequence[ModelRequest]) -> list[Reply]:
        if self.rules is not None:
            replies = [self._rules_reply(r) for r in requests]
            name, model = "rules", "rules"
        else:
            replies = await self._http_replies(requests)
            name, model = self.profile.backend, self.profile.model
        # Logged in request order, whatever order the calls finished in.
        for request, reply in zip(requests, replies, strict=True):
            self.log.add(request.context, reply, backend=name, model=model)
        return replies

    async def _http_replies(self, requests: Sequence[ModelRequest]) -> list[Reply]:
        """A fixed pool of `concurrency` workers takes the requests in order: each request is
        prepared only when a worker is free for it, so the first call goes out at once."""
        backend = make_http_backend(self.profile)
        replies: list[Reply | None] = [None] * len(requests)
        turns = iter(range(len(requests)))
        # A cache not read yet is read whole at the first lookup: nothing to refresh then.
        batch = _Batch(refreshed=self.cache is None or not self.cache.loaded)

        async def worker() -> None:
            for index in turns:
                replies[index] = await self._http_reply(backend, requests[index], batch)

        try:
            workers = min(self.profile.concurrency, len(requests))
            await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            await backend.aclose()
        return [r for r in replies if r is not None]

    def _rules_reply(self, request: ModelRequest) -> Reply:
        assert self.rules is not None
        start = time.perf_counter()
        content = json.dumps(self.rules.answer(request))
        tokens_in = sum(count_tokens(m["content"]) for m in prompts.build(request))
        usage = Usage(tokens_in, count_tokens(content))
        return _checked(request, content, "stop", usage, start, 1, "")

    async def _http_reply(
        self, backend: HttpBackend, request: ModelRequest, batch: _Batch
    ) -> Reply:
        start = time.perf_counter()
        schema = SCHEMAS[schema_name(request)]
        body = backend.body(request.role, prompts.build(request), schema)
        key, body_json = request_key(self.profile, body)
        reply = self._from_cache(request, key, start, batch)
        if reply is None:
            outcome = await self._with_retries(backend, body_json.encode())
            reply = self._from_outcome(request, outcome, start, key)
            if reply.ok and self.cache is not None:
                # Stored before the reply is returned, so a killed run repeats no call it had
                # finished.
                self._store(key, body_json, outcome[0])
        return reply

    def _from_cache(
        self, request: ModelRequest, key: str, start: float, batch: _Batch
    ) -> Reply | None:
        if self.cache is None:
            return None
        cached = self.cache.get(key)
        if cached is None and not batch.refreshed:
            # Once a batch: take in what other jobs have cached since this cache was read.
            batch.refreshed = True
            self.cache.refresh()
            cached = self.cache.get(key)
        if cached is None:
            return None
        usage = Usage(cached.tokens_in, cached.tokens_out)
        reply = _checked(request, cached.content, cached.finish_reason, usage, start, 0, key, True)
        return reply if reply.ok else None

    @staticmethod
    def _from_outcome(
        request: ModelRequest,
        outcome: tuple[Completion | None, int, TransportFailure | None],
        start: float,
        key: str,
    ) -> Reply:
        completion, attempts, failure = outcome
        if completion is None:
            detail = failure.detail if failure else "no reply"
            return Reply(
                request.role,
                None,
                "transport_error",
                detail,
                "",
                Usage(),
                _ms(start),
                False,
                attempts,
                key,
            )
        if completion.refused:
            return Reply(
                request.role,
                None,
                "refusal",
                (completion.content or "")[:300],
                completion.finish_reason,
                completion.usage,
                _ms(start),
                False,
                attempts,
                key,
            )
        return _checked(
            request,
            completion.content,
            completion.finish_reason,
            completion.usage,
            start,
            attempts,
            key,
        )

    def _store(self, key: str, body_json: str, completion: Completion | None) -> None:
        assert self.cache is not None and completion is not None and completion.content is not None
        entry = CachedReply(
            completion.content,
            completion.finish_reason,
            completion.usage.tokens_in,
            completion.usage.tokens_out,
        )
        self.cache.put(key, key_meta(self.profile), body_json, entry)

    async def _with_retries(
        self, backend: HttpBackend, data: bytes
    ) -> tuple[Completion | None, int, TransportFailure | None]:
        failure: TransportFailure | None = None
        for attempt in range(1, self.retry.max_attempts + 1):
            try:
                return await backend.complete(data), attempt, None
            except TransportFailure as exc:
                failure = exc
                if not exc.retryable or attempt == self.retry.max_attempts:
                    return None, attempt, exc
                await asyncio.sleep(self.retry.delay(attempt, exc, self._jitter))
        return None, self.retry.max_attempts, failure
