"""Finite retries with exponential backoff and full jitter, honouring the server's wait.

A call ends in a `CallFailure` when no usable reply arrived; only a `TransportFailure` (an HTTP
error status, a connection error, a timeout) can be retried. A reply that arrived but is
malformed or too large is a failure of its own and is not asked for again.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


class CallFailure(Exception):
    """A call that produced no usable reply; `reason` is its failure reason in the call log."""

    reason = "transport_error"

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = False,
        connect: bool = False,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
        self.retryable = retryable
        self.connect = connect


class TransportFailure(CallFailure):
    """No reply arrived: an HTTP error status, a connection error or a timeout. `connect` marks a
    connection that could not be opened at all (refused, or no such host)."""

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = True,
        connect: bool = False,
    ) -> None:
        super().__init__(
            detail, status=status, retry_after=retry_after, retryable=retryable, connect=connect
        )


class MalformedReply(CallFailure):
    """A reply arrived, but not in the shape its API defines (a message that is a string, usage
    that is no object, a body that is no JSON object...)."""

    reason = "malformed_reply"


class ReplyTooLarge(CallFailure):
    """A reply larger than the profile's `max_reply_bytes`; it is not read past the limit."""

    reason = "reply_too_large"


class ContextOverflow(CallFailure):
    """The server said the prompt and the reply do not fit the model's context window: asking
    again cannot change that."""

    reason = "context_overflow"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    retry_connect: bool = True

    def retries(self, failure: CallFailure) -> bool:
        """Whether a call that failed so is worth another attempt."""
        return failure.retryable and (self.retry_connect or not failure.connect)

    def delay(self, attempt: int, failure: CallFailure, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): what the server
        asked for, up to `max_retry_after`, or else a jittered exponential backoff."""
        if failure.retry_after is not None:
            return min(max(failure.retry_after, 0.0), self.max_retry_after)
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return max(0.0, value) if math.isfinite(value) else None


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if value is None:
        return None
    seconds = _seconds(value.strip())
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": UTC by RFC 5322
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def parse_retry_after_ms(value: str | None) -> float | None:
    """Seconds to wait from a `retry-after-ms` header (milliseconds, as OpenAI sends it)."""
    if value is None:
        return None
    milliseconds = _seconds(value.strip())
    return None if milliseconds is None else milliseconds / 1000.0


def server_wait(retry_after: str | None, retry_after_ms: str | None) -> float | None:
    """The wait a server asked for; the millisecond header is the more precise of the two."""
    precise = parse_retry_after_ms(retry_after_ms)
    return precise if precise is not None else parse_retry_after(retry_after)
