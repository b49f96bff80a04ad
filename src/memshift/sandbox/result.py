"""What running a writer's program yields, shared by the worker and the pool: the failure kinds,
the bounds on a value and on a failure's detail, and the result itself."""

from __future__ import annotations

from dataclasses import dataclass

from memshift.intake.storable import text_problem

FAILURE_KINDS = (
    "syntax_error",
    "violation",
    "exception",
    "timeout",
    "memory",
    "wrong_type",
    "crash",
)

MAX_RESULT_CHARS = 100_000
DETAIL_CHARS = 600


@dataclass(frozen=True)
class ProgramResult:
    value: str | list[str] | None
    failure: str | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if self.failure is not None and self.failure not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {self.failure!r}; one of {FAILURE_KINDS}")

    @property
    def ok(self) -> bool:
        return self.failure is None


def failed(kind: str, detail: str) -> ProgramResult:
    return ProgramResult(None, kind, detail[:DETAIL_CHARS])


def unstorable(texts: list[str]) -> str | None:
    """Why the texts cannot be stored as UTF-8 (a lone surrogate), or None if they can."""
    for number, text in enumerate(texts):
        problem = text_problem(text)
        if problem is not None:
            where = f" of string {number}" if len(texts) > 1 else ""
            return f"the value holds {problem}{where}, which cannot be stored as text"
    return None
