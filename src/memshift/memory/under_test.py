"""A system under test (a custom system), as the probe stage asks it: whatever it does wrong is
the failure of the questions it bears on, never of its whole job.

A `query` that raises, returns something other than a list of strings (or `Blocked`), returns
text UTF-8 cannot hold (a lone surrogate: a string cut inside an emoji) or more than MAX_ITEMS
items or MAX_CHARACTERS characters fails that question alone (`QueryFailed`); the reader is not
asked it and the answer is a counted failure. An `ingest`, `define` or `consent` that raises
leaves the system in a state nothing can vouch for: it is not fed again, and every question from
that checkpoint on fails naming the call. The answers of every question before stay.

Its first answer is held to the evidence contract before the rest of the branch runs: a first
reply that is not a list of strings (or `Blocked`), or, for the rule-based reader, a first
non-empty list of which the reader can read no item (no record as evidence, statement or
announcement: plain text it would skip, scoring the system near zero), stops the job with
`ContractBroken`, one line naming the method, the probe and the value. A system that fails
later questions the same way has shown it can answer; those fail alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memshift.definitions.catalog import is_announcement
from memshift.errors import MemshiftError
from memshift.intake.reading import one_line
from memshift.intake.storable import storable_text, text_problem
from memshift.memory.interface import Blocked, Cost, MemorySystem, Question
from memshift.models.calllog import CallLog
from memshift.models.replies import Reply as CallReply
from memshift.models.requests import CallContext
from memshift.statements import is_statement
from memshift.world.parse import is_evidence_line
from memshift.world.records import PublicEvent

# Far beyond what the reader's evidence budget (4,096 tokens) can hold: these only stop a reply
# whose packing alone would exhaust memory or time.
MAX_ITEMS = 1 << 16
MAX_CHARACTERS = 1 << 24
# of a failure's description in the answers table and the call log
MAX_REASON = 300
# A failed question is logged as one failed call of the system's own, beside a native library's
# (role `library`), in place of the reader call it did not get: the report's failures table
# counts it for the system, and the share failed stays that of the answers lost.
ROLE = "library"
FAILURE = "query_error"


@dataclass(frozen=True)
class QueryFailed:
    """The question's failure: what the system did, in one line."""

    reason: str


Reply = list[str] | Blocked | QueryFailed


# where a custom system's author reads what `query` must return
CONTRACT = "docs/memory.md, The evidence contract"


class ContractBroken(MemshiftError):
    """A custom system's first answer breaks the evidence contract (the module's docstring)."""


class UnderTest:
    """`system` with each failure kept to the questions it bears on (the module's docstring);
    `query` returns `QueryFailed` for a failed question. `legible`, when given, says which
    evidence items the study's reader can read (`legible_to_rules` for the rule-based one)."""

    def __init__(
        self, system: MemorySystem, name: str = "", legible: Callable[[str], bool] | None = None
    ) -> None:
        self.system = system
        self.name = name
        self.legible = legible
        self.broken: str | None = None
        self.typed = False  # a first reply of the right types was seen
        self.read = legible is None  # a first non-empty reply was seen to be legible

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._feed("ingest", now, lambda: self.system.ingest(events, now))

    def define(self, item_id: str, version: int, text: str) -> None:
        self._feed("define", None, lambda: self.system.define(item_id, version, text))

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        self._feed("consent", None, lambda: self.system.consent(agent, scope, allowed))

    def _feed(self, method: str, now: datetime | None, call: Callable[[], None]) -> None:
        if self.broken is not None:
            return
        try:
            call()
        except Exception as exc:
            at = "" if now is None else f" at {now:%Y-%m-%d %H:%M}"
            self.broken = cut(f"{method}{at} raised {described(exc)}; not asked since")

    def query(self, question: Question) -> Reply:
        if self.broken is not None:
            return QueryFailed(self.broken)
        try:
            reply = self.system.query(question)
            given = reply if isinstance(reply, Blocked) else evidence(reply)
        except Exception as exc:  # the system's code, or its reply's own methods
            return QueryFailed(cut(f"query raised {described(exc)}"))
        self._hold_to_contract(question, given)
        return given

    def _hold_to_contract(self, question: Question, given: Reply) -> None:
        if isinstance(given, QueryFailed) and not self.typed:
            raise self._broken(question, given.reason)
        self.typed = True
        if self.read or not isinstance(given, list) or not given:
            return
        self.read = True
        if self.legible is not None and not any(self.legible(item) for item in given):
            first = cut(storable_text(given[0][:80]))
            raise self._broken(
                question,
                f"none of its {len(given)} evidence item(s) is a record, statement or "
                f"announcement the rule-based reader reads (the first: {first!r}); it would skip "
                "them all and abstain. Return records as "
                "memshift.memory.interface.evidence_line(event)",
            )

    def _broken(self, question: Question, what: str) -> ContractBroken:
        named = f"system {self.name}: " if self.name else ""
        return ContractBroken(
            f"{named}its first answer (query for probe {question.probe_id}) breaks the "
            f"evidence contract: {one_line(what)} ({CONTRACT})"
        )

    def set_writer(self, writer: object) -> None:
        self.system.set_writer(writer)

    def export(self, path: Path) -> None:
        self.system.export(path)

    def import_(self, path: Path) -> None:
        self.system.import_(path)

    def cost(self) -> Cost:
        return self.system.cost()


def legible_to_rules(text: str) -> bool:
    """Whether the rule-based reader (`simulator.reader`) can read `text` at all: a record as
    evidence (`interface.evidence_line`), a statement in memshift's grammar or a definition's
    announcement. Anything else it skips, as it would a line of no use."""
    return is_evidence_line(text) or is_statement(text) or is_announcement(text)


def evidence(reply: object) -> list[str] | QueryFailed:
    """A `query` reply as plain strings the reader can be given, or why it cannot be."""
    if not isinstance(reply, list | tuple):
        return failed(f"query returned a {type(reply).__name__}, not a list of strings or Blocked")
    if len(reply) > MAX_ITEMS:
        return failed(f"query returned {len(reply):,} items; at most {MAX_ITEMS:,}")
    items: list[str] = []
    characters = 0
    for n, item in enumerate(reply):
        if n >= MAX_ITEMS:  # a list whose length said otherwise
            return failed(f"query returned more than {MAX_ITEMS:,} items")
        if not isinstance(item, str):
            return failed(f"query returned item {n}, a {type(item).__name__}, not a string")
        text = str.__str__(item)  # a plain str, whatever a subclass overrides
        characters += len(text)
        if characters > MAX_CHARACTERS:
            return failed(f"query returned more than {MAX_CHARACTERS:,} characters")
        problem = None if text.isascii() else text_problem(text)
        if problem is not None:
            return failed(f"query returned item {n} with {problem}, which UTF-8 cannot hold")
        items.append(text)
    return items


def failed(reason: str) -> QueryFailed:
    return QueryFailed(cut(storable_text(reason)))


def described(exc: Exception) -> str:
    """An exception's type and message, in one storable line, whatever its `__str__` does."""
    try:
        message = str(exc)[: MAX_REASON * 4]
    except Exception:
        message = "(its message cannot be shown)"
    named = type(exc).__name__ + (f": {message}" if message else "")
    return one_line(storable_text(named))


def cut(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def log_failed_question(log: CallLog, context: CallContext, reason: str) -> None:
    """A question the system failed, as its failed call in the call log (`ROLE`)."""
    log.add(context, CallReply(ROLE, None, FAILURE, detail=reason), backend="custom", model="")
