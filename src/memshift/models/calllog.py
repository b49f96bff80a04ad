"""One row per model call: where it belongs, what it cost, and how it ended.

The call log is a run log, not a result: latency and cache hits differ between a first run and a
rerun by design, so run manifests list it without holding reruns to its bytes. It is also where
failed calls are counted (the report's `failures`): every call, failed or not, is one row, and a
failed call's row names its failure reason. Its text is redacted and storable whatever a server
sent, so writing it cannot fail.

The log also replays the job's prompts, in the order the job logged its calls, through a
simulated prefix cache (`prefix_cache.py`), one per backend and model (two servers share no
cache): each row says how many of its prompt's tokens such a cache would have served.

A job sends each distinct request once: the log keeps the first good reply to every request (by
its key), and a request the job makes again is served from it (`Reply.repeat`, logged as a cache
hit). Two audited systems drafting the same answer, the branches' identical pre-fork questions and
detections re-deriving the same item ask the same request; a server would answer it the same.
A repeat is never sent, so it is not replayed through the prefix cache either.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow as pa

from memshift import schemas
from memshift.artifacts import write_table
from memshift.models.prefix_cache import PrefixCache, prompt_tokens
from memshift.models.redaction import redact
from memshift.models.replies import Reply
from memshift.models.requests import CallContext

Messages = list[dict[str, str]]
# Prompts whose blocks a log remembers, the oldest forgotten first: more than a batch's worth
# (an audited system's answers of a branch), a few tens of megabytes at most.
KNOWN_PROMPTS = 2048


class CallLog:
    def __init__(self) -> None:
        self._rows: list[dict[str, object]] = []
        self._lock = threading.Lock()
        self._caches: dict[tuple[str, str], PrefixCache] = {}
        self._chains: dict[int, tuple[int, list[int]]] = {}
        self._answered: dict[str, Reply] = {}

    def earlier(self, key: str) -> Reply | None:
        """The job's first good reply to the request of this key, if it made it before."""
        if not key:
            return None
        with self._lock:
            return self._answered.get(key)

    def _prefix(self, backend: str, model: str, messages: Messages) -> tuple[int, int]:
        """(prompt tokens, tokens a prefix cache serves) of a prompt sent; the lock is held."""
        cache = self._caches.setdefault((backend, model), PrefixCache())
        # A job sends many prompts twice (two audited systems asking the same audit, detections
        # re-deriving the same item at the same checkpoint): their blocks are cut once.
        # (keyed by the prompt's hash, not its text, so no prompt is kept alive: a collision is
        # as likely as one between two blocks)
        sent = hash(tuple(message["content"] for message in messages))
        known = self._chains.get(sent)
        if known is None:
            tokens = prompt_tokens(messages)
            known = self._chains[sent] = (len(tokens), cache.chain(tokens))
            if len(self._chains) > KNOWN_PROMPTS:
                del self._chains[next(iter(self._chains))]
        length, chain = known
        return length, cache.serve_chain(chain, length)

    def add(
        self,
        context: CallContext,
        reply: Reply,
        *,
        backend: str,
        model: str,
        messages: Messages | None = None,
    ) -> None:
        """Log one call; `messages`, the prompt as built, when it was sent (or would have been:
        a reply from the response cache counts as sent, as on a first run; a repeat of a request
        the job made before does not)."""
        row = {
            "run": context.run,
            "role": reply.role,
            "world": context.world,
            "branch": context.branch,
            "system": context.system,
            "item": context.item,
            "checkpoint": context.checkpoint,
            "backend": backend,
            "model": model,
            "cache_key": reply.cache_key,
            "cache_hit": reply.cache_hit,
            "attempts": reply.attempts,
            "tokens_in": reply.usage.tokens_in,
            "tokens_out": reply.usage.tokens_out,
            "latency_ms": reply.latency_ms,
            "finish_reason": redact(reply.finish_reason),
            "failure": reply.failure,
            "detail": redact(reply.detail),
            "raw": redact(reply.raw),
            "prompt_tokens": None,
            "prefix_hit_tokens": None,
        }
        with self._lock:
            if reply.ok and reply.cache_key:
                self._answered.setdefault(reply.cache_key, reply)
            if messages is not None and not reply.repeat:
                row["prompt_tokens"], row["prefix_hit_tokens"] = self._prefix(
                    backend, model, messages
                )
            self._rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> list[dict[str, object]]:
        return list(self._rows)

    def to_table(self, system: str | None = None) -> pa.Table:
        """The calls logged, or only those made for `system`."""
        rows = [r for r in self._rows if system is None or r["system"] == system]
        columns = {name: [row[name] for row in rows] for name in schemas.CALLS.names}
        return pa.Table.from_pydict(columns, schema=schemas.CALLS)

    def write(self, path: Path, system: str | None = None) -> None:
        write_table(self.to_table(system), schemas.CALLS, path)
