"""One row per model call: where it belongs, what it cost, and how it ended.

The call log is a run log, not a result: latency and cache hits differ between a first run and a
rerun by design, so run manifests list it without holding reruns to its bytes. It is also where
failed calls are counted (the report's `failures`): every call, failed or not, is one row, and a
failed call's row names its failure reason. Its text is redacted and storable whatever a server
sent, so writing it cannot fail.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow as pa

from memshift import schemas
from memshift.artifacts import write_table
from memshift.models.redaction import redact
from memshift.models.replies import Reply
from memshift.models.requests import CallContext


class CallLog:
    def __init__(self) -> None:
        self._rows: list[dict[str, object]] = []
        self._lock = threading.Lock()

    def add(self, context: CallContext, reply: Reply, *, backend: str, model: str) -> None:
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
        }
        with self._lock:
            self._rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> list[dict[str, object]]:
        return list(self._rows)

    def to_table(self) -> pa.Table:
        columns = {name: [row[name] for row in self._rows] for name in schemas.CALLS.names}
        return pa.Table.from_pydict(columns, schema=schemas.CALLS)

    def write(self, path: Path) -> None:
        write_table(self.to_table(), schemas.CALLS, path)
