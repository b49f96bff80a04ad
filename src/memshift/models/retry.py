"""Finite retries with exponential backoff and full jitter, honouring Retry-After."""

from __future__ import annotations

import random
from dataclasses import dataclass

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


class TransportFailure(Exception):
    """A call that produced no reply: an HTTP error status, a connection error or a timeout."""

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = True,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
        self.retryable = retryable


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 120.0

    def delay(self, attempt: int, failure: TransportFailure, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if failure.retry_after is not None:
            return min(max(failure.retry_after, 0.0), self.max_retry_after)
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


def parse_retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
