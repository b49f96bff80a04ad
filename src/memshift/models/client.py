"""The one way memshift calls a model: batched, bounded, cached, retried, validated, logged.

`ModelClient.generate` takes typed requests of any role and returns one `Reply` per request, in
order. A reply carries either the parsed JSON value or a failure with its reason; nothing is
retried into a different answer: retries happen only when no reply arrived. Whatever a server
sends, each call ends in one of the two: a value every writer downstream can store, or a failure
of that call alone (recorded in the call log, never cached, its detail free of the API key),
and the rest of the batch goes on.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memshift.intake.storable import storable_text
from memshift.models import prompts
from memshift.models.backends import Completion, DirectBackend, HttpBackend, Messages
from memshift.models.cache import CachedReply, ResponseCache, cache_key, wire
from memshift.models.calllog import CallLog
from memshift.models.extract import extract_json
from memshift.models.prefix_cache import side_by_side
from memshift.models.profiles import Profile, check_profile_fields
from memshift.models.progress import Progress, batch_progress
from memshift.models.redaction import redact
from memshift.models.replies import RAW_CHARACTERS, Reply, Usage
from memshift.models.reply_schemas import SCHEMAS, check_reply, schema_name
from memshift.models.requests import ModelRequest
from memshift.models.retry import CallFailure, RetryPolicy
from memshift.models.structured import schema_sentence
from memshift.registry import BACKENDS, load
from memshift.tokens import count_tokens

TRUNCATED = frozenset({"length", "max_tokens"})
MAX_DETAIL = 500


def make_http_backend(profile: Profile) -> HttpBackend:
    # Profiles built in code skip load_profiles; their URL and numbers are checked all the same.
    check_profile_fields(profile)
    backend = load(BACKENDS[profile.backend])
    if getattr(backend, "direct", False):
        raise ValueError(f"no HTTP backend {profile.backend!r}")
    return backend(profile)  # type: ignore[no-any-return]


def direct_backend(profile: Profile) -> DirectBackend | None:
    """The backend that answers typed requests in-process (the simulator), if the profile's is
    one; None for a backend reached over HTTP."""
    backend = load(BACKENDS[profile.backend])
    return backend(profile) if getattr(backend, "direct", False) else None  # type: ignore[no-any-return]


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
    """(cache key, JSON of the body); the same JSON is what goes on the wire."""
    body_json = wire(body)
    return cache_key(key_meta(profile), body_json), body_json


def direct_key(profile: Profile, request: ModelRequest, messages: Messages) -> str:
    """The key of a request answered in-process: what a server would read of it (the role's
    schema and the messages), as the key of a request sent is its body."""
    body = {"role": request.role, "schema": schema_name(request), "messages": messages}
    return cache_key(key_meta(profile), wire(body))


def repeated(earlier: Reply) -> Reply:
    """The reply to a request the job already had answered: that reply, not sent again."""
    return replace(
        earlier,
        value=copy.deepcopy(earlier.value),
        latency_ms=0.0,
        cache_hit=True,
        attempts=0,
        repeat=True,
    )


def raw_text(content: str | None, secrets: tuple[str, ...]) -> str:
    """What a failed reply said, for the call log: redacted before it is cut (no cut leaves part
    of a key), storable whatever it holds, and bounded."""
    if not content:
        return ""
    return storable_text(redact(content, secrets))[:RAW_CHARACTERS]


# The structured forms whose schema the model reads as part of its prompt: asked for in the
# text, or as a tool's parameters (rendered into the prompt by the server's chat template).
SCHEMA_IN_PROMPT = frozenset({"text", "tool"})


def prompt_estimate(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any] | None = None
) -> int:
    """The prompt's size in the model's tokens, estimated from memshift's count of its messages
    and, in the forms that put it in the prompt, of its reply schema."""
    counted = sum(count_tokens(m["content"]) for m in messages)
    if schema is not None and profile.structured_for(role) in SCHEMA_IN_PROMPT:
        counted += count_tokens(schema_sentence(schema))
    return math.ceil(counted * profile.token_ratio)


def overflow(
    profile: Profile, role: str, messages: Messages, schema: dict[str, Any] | None = None
) -> str | None:
    """Why the prompt cannot fit the model's context window beside the reply, or None.
    `messages` are the role's messages as built, before any backend adds the schema to them."""
    if not profile.context_length:
        return None
    prompt = prompt_estimate(profile, role, messages, schema)
    limit = profile.reply_tokens(role)
    if prompt + limit <= profile.context_length:
        return None
    return (
        f"a prompt of about {prompt:,} tokens (memshift's count x token_ratio "
        f"{profile.token_ratio:g}) + the reply limit {limit:,} > context_length "
        f"{profile.context_length:,}; not sent"
    )


def batch_label(profile: Profile, requests: Sequence[ModelRequest]) -> str:
    """What a progress line names: the batch's roles, profile and where its calls come from
    (a job's one batch may hold several branches' and systems' calls: then their number)."""
    roles = "/".join(sorted({r.role for r in requests})) or "no"
    places = [r.context for r in requests if r.context.system]
    if not places:
        return f"{roles} calls to {profile.name}"
    where = [
        _one_or_count([str(getattr(c, part)) for c in places], plural)
        for part, plural in (("world", "worlds"), ("branch", "branches"), ("system", "systems"))
    ]
    return f"{roles} calls to {profile.name}, world {' '.join(where)}"


def _one_or_count(values: Sequence[str], plural: str) -> str:
    distinct = dict.fromkeys(values)
    return values[0] if len(distinct) == 1 else f"{len(distinct)} {plural}"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _over(content: str, limit: int) -> bool:
    """Whether `content` takes more than `limit` bytes in UTF-8 (encoded only when it might)."""
    if len(content) > limit:
        return True
    return len(content) * 4 > limit and len(content.encode("utf-8", "surrogatepass")) > limit


@dataclass(frozen=True)
class _Call:
    """One request on its way: what the replies to it are built from."""

    request: ModelRequest
    key: str
    start: float
    secrets: tuple[str, ...] = ()
    # the reply's JSON is read out of free text (the `text` structured form)
    extract: bool = False

    def failed(
        self,
        reason: str,
        detail: str,
        *,
        attempts: int = 1,
        finish_reason: str = "",
        usage: Usage | None = None,
        content: str | None = None,
    ) -> Reply:
        return Reply(
            self.request.role,
            None,
            reason,
            redact(detail, self.secrets)[:MAX_DETAIL],
            finish_reason,
            usage or Usage(),
            _ms(self.start),
            False,
            attempts,
            self.key,
            raw_text(content, self.secrets),
        )

    def checked(
        self, content: str | None, finish_reason: str, usage: Usage, attempts: int, hit: bool
    ) -> Reply:
        """The reply for `content`: its value if it passes every check, else its failure."""
        value, failure, detail = self._verdict(content, finish_reason)
        if failure is not None:
            return self.failed(
                failure,
                detail,
                attempts=attempts,
                finish_reason=finish_reason,
                usage=usage,
                content=content,
            )
        return Reply(
            self.request.role,
            value,
            None,
            "",
            finish_reason,
            usage,
            _ms(self.start),
            hit,
            attempts,
            self.key,
        )

    def _verdict(
        self, content: str | None, finish_reason: str
    ) -> tuple[dict[str, Any] | None, str | None, str]:
        if finish_reason in TRUNCATED:
            return None, "truncated", f"stopped at the token limit ({finish_reason})"
        if content is not None and any(secret in content for secret in self.secrets):
            return None, "unstorable", "the reply holds the API key"
        if content is not None and self.extract:
            content = extract_json(content)
        return check_reply(schema_name(self.request), content)


@dataclass(frozen=True)
class _Outcome:
    completion: Completion | None
    attempts: int
    failure: CallFailure | None = None


@dataclass
class _Batch:
    refreshed: bool = False
    # the first request in flight of each key: a repeat waits for its reply instead of sending
    pending: dict[str, asyncio.Future[Reply]] = field(default_factory=dict)


class ModelClient:
    def __init__(
        self,
        profile: Profile,
        *,
        cache_dir: Path | None = None,
        log: CallLog | None = None,
        retry: RetryPolicy | None = None,
        progress: Callable[[str, int], Progress] = batch_progress,
    ) -> None:
        self.profile = profile
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.log = log if log is not None else CallLog()
        self.retry = retry or RetryPolicy(max_attempts=profile.max_attempts)
        self.direct = direct_backend(profile)
        self._jitter = random.Random()
        self.progress = progress

    def generate_side_by_side(
        self, batches: Sequence[Sequence[ModelRequest]], key: Callable[[ModelRequest], Hashable]
    ) -> list[list[Reply]]:
        """Every batch's requests in one `generate`, those of equal `key` one after the other
        (`prefix_cache.side_by_side`: requests sharing a prefix, which a server's cache then
        serves whatever its size); the replies batch by batch, in each batch's order."""
        places = [(b, n) for b, batch in enumerate(batches) for n in range(len(batch))]
        order = side_by_side(key(batches[b][n]) for b, n in places)
        sent = self.generate([batches[places[o][0]][places[o][1]] for o in order])
        got = dict(zip((places[o] for o in order), sent, strict=True))
        return [[got[(b, n)] for n in range(len(batch))] for b, batch in enumerate(batches)]

    def generate(self, requests: Sequence[ModelRequest]) -> list[Reply]:
        return asyncio.run(self.agenerate(requests))

    async def agenerate(self, requests: Sequence[ModelRequest]) -> list[Reply]:
        progress = self.progress(batch_label(self.profile, requests), len(requests))
        built: list[Messages] | None = None
        if self.direct is not None:
            built = [prompts.build(r) for r in requests]
            replies = self._direct_replies(self.direct, requests, built, progress)
            name, model = self.direct.name, self.direct.name
        else:
            replies = await self._http_replies(requests, progress)
            name, model = self.profile.backend, self.profile.model
        progress.finish()
        # Logged in request order, whatever order the calls finished in: the order in which a
        # pool of workers taking them in turn sends them, which the prefix-cache replay needs.
        for index, (request, reply) in enumerate(zip(requests, replies, strict=True)):
            messages = None
            if reply.failure != "context_overflow":
                messages = built[index] if built is not None else prompts.build(request)
            self.log.add(request.context, reply, backend=name, model=model, messages=messages)
        return replies

    async def _http_replies(
        self, requests: Sequence[ModelRequest], progress: Progress
    ) -> list[Reply]:
        """A fixed pool of `concurrency` workers takes the requests in order: each request is
        prepared only when a worker is free for it, so the first call goes out at once."""
        backend = make_http_backend(self.profile)
        replies: list[Reply | None] = [None] * len(requests)
        turns = iter(range(len(requests)))
        # A cache not read yet is read whole at the first lookup: nothing to refresh then.
        batch = _Batch(refreshed=self.cache is None or not self.cache.loaded)

        async def worker() -> None:
            for index in turns:
                reply = await self._http_reply(backend, requests[index], batch)
                replies[index] = progress.ended(reply)

        try:
            workers = min(self.profile.concurrency, len(requests))
            await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            await backend.aclose()
        return [r for r in replies if r is not None]

    def _direct_replies(
        self,
        backend: DirectBackend,
        requests: Sequence[ModelRequest],
        built: Sequence[Messages],
        progress: Progress,
    ) -> list[Reply]:
        """Each request answered in order; a repeat of one answered before, in this batch or
        earlier in the job, served from that reply."""
        answered: dict[str, Reply] = {}
        replies = []
        for request, messages in zip(requests, built, strict=True):
            key = direct_key(self.profile, request, messages)
            earlier = answered.get(key) or self.log.earlier(key)
            if earlier is not None:
                reply = repeated(earlier)
            else:
                reply = self._direct_reply(backend, request, messages, key)
                if reply.ok:
                    answered[key] = reply
            replies.append(progress.ended(reply))
        return replies

    def _direct_reply(
        self, backend: DirectBackend, request: ModelRequest, messages: Messages, key: str
    ) -> Reply:
        start = time.perf_counter()
        content = json.dumps(backend.answer(request))
        tokens_in = sum(count_tokens(m["content"]) for m in messages)
        usage = Usage(tokens_in, count_tokens(content))
        return _Call(request, key, start).checked(content, "stop", usage, 1, False)

    async def _http_reply(
        self, backend: HttpBackend, request: ModelRequest, batch: _Batch
    ) -> Reply:
        start = time.perf_counter()
        schema = SCHEMAS[schema_name(request)]
        messages = prompts.build(request)
        body = backend.body(request.role, messages, schema)
        key, body_json = request_key(self.profile, body)
        extract = self.profile.structured_for(request.role) == "text"
        call = _Call(request, key, start, backend.secrets, extract)
        # From the messages as built: a backend may move the system text out of them.
        too_long = overflow(self.profile, request.role, messages, schema)
        if too_long is not None:
            return call.failed("context_overflow", too_long, attempts=0)
        earlier = await self._earlier(key, batch)
        if earlier is not None:
            return repeated(earlier)
        first = batch.pending.setdefault(key, asyncio.get_running_loop().create_future())
        try:
            reply = await self._sent(backend, call, body_json, batch)
        except BaseException:
            # a repeat waiting on this call makes its own
            if not first.done():
                first.set_result(call.failed("transport_error", "the call did not finish"))
            raise
        if not first.done():
            first.set_result(reply)
        return reply

    async def _earlier(self, key: str, batch: _Batch) -> Reply | None:
        """A good reply to the same request, made earlier in the job or in flight in this batch
        (waited for); None when there is none, or the one in flight failed."""
        found = self.log.earlier(key)
        if found is None and key in batch.pending:
            found = await asyncio.shield(batch.pending[key])
        return found if found is not None and found.ok else None

    async def _sent(
        self, backend: HttpBackend, call: _Call, body_json: str, batch: _Batch
    ) -> Reply:
        """The reply from the response cache, else from the server (stored in the cache)."""
        reply = self._from_cache(call, batch)
        if reply is None:
            outcome = await self._with_retries(backend, body_json.encode())
            reply = self._from_outcome(call, outcome)
            if reply.ok and self.cache is not None:
                # Stored before the reply is returned, so a killed run repeats no call it had
                # finished.
                self._store(call.key, body_json, outcome.completion)
        return reply

    def _from_cache(self, call: _Call, batch: _Batch) -> Reply | None:
        if self.cache is None:
            return None
        reply = self._first_valid(call)
        if reply is None and not batch.refreshed:
            # Once a batch: take in what other jobs have cached since this cache was read.
            batch.refreshed = True
            self.cache.refresh()
            reply = self._first_valid(call)
        return reply

    def _first_valid(self, call: _Call) -> Reply | None:
        """The first cached copy that still passes every check of a fresh reply; a copy that
        does not (stored before a check was added, or too large for the profile now) is passed
        over, and a miss makes the call again and stores a copy that does."""
        assert self.cache is not None
        for cached in self.cache.entries(call.key):
            if _over(cached.content, self.profile.max_reply_bytes):
                continue
            usage = Usage(cached.tokens_in, cached.tokens_out)
            reply = call.checked(cached.content, cached.finish_reason, usage, 0, True)
            if reply.ok:
                return reply
        return None

    @staticmethod
    def _from_outcome(call: _Call, outcome: _Outcome) -> Reply:
        completion, attempts = outcome.completion, outcome.attempts
        if completion is None:
            failure = outcome.failure
            reason = failure.reason if failure else "transport_error"
            return call.failed(reason, failure.detail if failure else "no reply", attempts=attempts)
        if completion.refused:
            return call.failed(
                "refusal",
                completion.content or "",
                attempts=attempts,
                finish_reason=completion.finish_reason,
                usage=completion.usage,
                content=completion.content,
            )
        return call.checked(
            completion.content, completion.finish_reason, completion.usage, attempts, False
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

    async def _with_retries(self, backend: HttpBackend, data: bytes) -> _Outcome:
        failure: CallFailure | None = None
        for attempt in range(1, self.retry.max_attempts + 1):
            try:
                return _Outcome(await backend.complete(data), attempt)
            except CallFailure as exc:
                failure = exc
                if not self.retry.retries(exc) or attempt == self.retry.max_attempts:
                    return _Outcome(None, attempt, exc)
                await asyncio.sleep(self.retry.delay(attempt, exc, self._jitter))
        return _Outcome(None, self.retry.max_attempts, failure)
