"""What a call returns: the parsed reply, or a failure with its reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FAILURES = (
    "invalid_json",  # the content is not JSON
    "unstorable",  # JSON no writer can store: a lone surrogate, a number beyond the columns,
    # nesting too deep; or a reply that holds the API key
    "schema_violation",  # JSON that does not follow the role's schema
    "empty_content",  # no content at all
    "refusal",  # the model or API refused
    "truncated",  # cut at the token limit
    "transport_error",  # connection failure, timeout, or an HTTP error after all retries
    "malformed_reply",  # the API's reply is not the shape the API defines
    "reply_too_large",  # the reply is larger than the profile's max_reply_bytes
    "context_overflow",  # the prompt and the reply's token limit exceed the model's context
    # window (found before sending, from the profile's context_length, or said by the server)
    "library_error",  # a call of a native memory library failed (native/library_calls.py)
    "query_error",  # a custom system's query failed a question (memory/under_test.py)
)
RAW_CHARACTERS = 2000  # of a failed reply's text kept in the call log


@dataclass(frozen=True)
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True)
class Reply:
    role: str
    value: dict[str, Any] | None
    failure: str | None = None
    detail: str = ""
    finish_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    cache_hit: bool = False
    attempts: int = 1
    cache_key: str = ""
    # what the model sent, when a reply arrived but failed its checks (bounded, redacted)
    raw: str = ""
    # the same request as one the job had already answered: served from that reply, never sent
    repeat: bool = False

    def __post_init__(self) -> None:
        if (self.value is None) == (self.failure is None):
            raise ValueError("a reply carries either a value or a failure")
        if self.failure is not None and self.failure not in FAILURES:
            raise ValueError(f"unknown failure reason {self.failure!r}")

    @property
    def ok(self) -> bool:
        return self.failure is None
