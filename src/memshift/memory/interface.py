"""The interface every memory system implements, and what it is asked.

Seven methods: `ingest`, `define`, `consent`, `set_writer`, `query`, `export` / `import_`
(`import` is a Python keyword) and `cost`. A system that also has the optional eighth,
`invalidations`, reports which items it invalidated and when, and gets the detection/repair
decomposition (m, r and a); any other system gets Update and Stability. A system offering only
add and search runs through `SearchAdapter`: a study names a subclass whose constructor takes no
arguments and passes the backend to `SearchAdapter.__init__`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from memshift.definitions.catalog import announcement
from memshift.errors import MemshiftError
from memshift.intake.reading import schema_field
from memshift.retrieval.selection import EVIDENCE_BUDGET
from memshift.world.items import Item
from memshift.world.parse import DELETED, evidence_header
from memshift.world.records import PublicEvent


@dataclass(frozen=True)
class Question:
    """One probe as a memory sees it: no gold."""

    probe_id: str
    item: Item
    version: int | None  # the definition the question names; None for an unnamed probe
    time: datetime
    agent: str
    question: str


@dataclass(frozen=True)
class SystemInputs:
    """What the factory of a built-in system (`registry.SYSTEMS`) may read to set the system up
    for one branch of a world; a custom system is built with no arguments."""

    world_dir: Path
    run_world_dir: Path
    branch: str
    system: str
    checkpoints: tuple[datetime, ...]
    embedder: str = schema_field("embedder")
    embedding_cache: Path | None = None
    # what a B=1 cell revokes by (`vocabulary.READ_SETS`)
    read_set: str = schema_field("consent.read_set")
    # the reader's evidence budget (`retrieval.budgets`), which a baseline retrieves within
    evidence_budget: int = EVIDENCE_BUDGET


@dataclass(frozen=True)
class Invalidation:
    """One item a system found stale: `at` is the `now` of the `ingest` call in which it did
    (a checkpoint); `reason` is free text for the reader of the log."""

    item_id: str
    at: datetime
    reason: str = ""


def evidence_line(event: PublicEvent) -> str:
    """An event as one evidence item in the form the built-in rule-based reader reads: a record
    as `[object_id rN | YYYY-MM-DD HH:MM] text`, a deletion as that header and "This record was
    deleted.", a definition's new version as its announcement. The reader reads each record at
    the newest revision among the items and drops a deleted one, so a memory may return the
    lines of every event it kept (docs/memory.md, The evidence contract)."""
    if event.op in ("insert", "update"):
        return evidence_header(event.object_id, event.revision, event.time) + event.text
    if event.op == "delete":
        return evidence_header(event.object_id, event.revision, event.time) + DELETED
    if event.op == "define":
        return announcement(event.fields["name"], event.fields["version"], event.fields["text"])
    if event.op == "consent":
        change = "regained" if event.fields["allowed"] else "lost"
        return f"{event.fields['agent']} {change} access to {event.fields['scope']}."
    raise ValueError(f"an event of unknown op {event.op!r}")


@dataclass(frozen=True)
class Blocked:
    """What `query` returns when the asking agent may not see the item's sources."""

    reason: str


@dataclass
class Cost:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    @classmethod
    def of_calls(cls, rows: Sequence[Mapping[str, Any]]) -> Cost:
        """The cost of the calls a call log holds (`CallLog.rows`)."""
        return cls(
            len(rows),
            sum(int(r["tokens_in"]) for r in rows),
            sum(int(r["tokens_out"]) for r in rows),
        )


class Consents:
    """The (agent, scope) pairs whose consent was withdrawn, and the questions that blocks."""

    def __init__(self) -> None:
        self.revoked: set[tuple[str, str]] = set()

    def set(self, agent: str, scope: str, allowed: bool) -> None:
        (self.revoked.discard if allowed else self.revoked.add)((agent, scope))

    def lost(self, agent: str) -> frozenset[str]:
        """The scopes `agent` may no longer read."""
        return frozenset(scope for who, scope in self.revoked if who == agent)

    def touching(self, question: Question, scopes: Iterable[str]) -> Blocked | None:
        """Blocked when the asking agent lost one of `scopes` (say, those an item's read set
        touched)."""
        lost = sorted(set(scopes) & self.lost(question.agent))
        if lost:
            return Blocked(f"agent {question.agent} may not read {', '.join(lost)}")
        return None

    def blocked(self, question: Question) -> Blocked | None:
        """Blocked when the asking agent lost one of the item's declared sources."""
        return self.touching(question, question.item.sources)

    def all_lost(self, question: Question) -> Blocked | None:
        """Blocked when the asking agent lost every declared source of the item, so that no
        record it may read can bear on it."""
        if set(question.item.sources) <= self.lost(question.agent):
            return Blocked(f"agent {question.agent} may not read any of {question.item.sources}")
        return None


@runtime_checkable
class MemorySystem(Protocol):
    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        """Events in time order, all at or before `now`; `now` is a checkpoint."""

    def define(self, item_id: str, version: int, text: str) -> None: ...

    def consent(self, agent: str, scope: str, allowed: bool) -> None: ...

    def set_writer(self, writer: object) -> None: ...

    def query(self, question: Question) -> list[str] | Blocked:
        """Evidence items for the shared reader, newest last."""

    def export(self, path: Path) -> None: ...

    def import_(self, path: Path) -> None: ...

    def cost(self) -> Cost: ...


METHODS = ("ingest", "define", "consent", "set_writer", "query", "export", "import_", "cost")


@runtime_checkable
class ReportsInvalidations(Protocol):
    """The optional method: every invalidation so far, in any order; read once, after the
    system has followed a branch to its last checkpoint."""

    def invalidations(self) -> Sequence[Invalidation]: ...


def reports_invalidations(system: object) -> bool:
    """Whether a system (or its class) has the optional `invalidations` method."""
    return callable(getattr(system, "invalidations", None))


def system_class(spec: str) -> type[MemorySystem]:
    """The custom system a spec ('package.module:Class') names, imported and checked to be a
    class with every method of the interface; ConfigError in one line otherwise."""
    from memshift.intake.classes import load_class

    return load_class(spec, "a memory system", METHODS)


class AddSearch(Protocol):
    """The smallest memory API in the wild: add text, search text."""

    def add(self, text: str, metadata: dict[str, str]) -> None: ...

    def search(self, query: str, limit: int) -> list[str]: ...


class SearchAdapter:
    """Runs an add/search system through the interface: every event is added in time order
    (as its `evidence_line`: a deletion or a new definition as a line of its own), and a query
    returns what search retrieves, best match last. Name a subclass in a study: its constructor
    takes no arguments and calls `super().__init__(backend)`."""

    def __init__(self, backend: AddSearch, limit: int = 20) -> None:
        self.backend = backend
        self.limit = limit
        self._cost = Cost()

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        for e in events:
            if e.op in ("insert", "update"):
                metadata = {"object_id": e.object_id, "revision": str(e.revision)}
                self.backend.add(evidence_line(e), metadata)
            elif e.op == "delete":
                self.backend.add(evidence_line(e), {"object_id": e.object_id})
            elif e.op == "define":
                self.backend.add(evidence_line(e), {})

    def define(self, item_id: str, version: int, text: str) -> None:
        """Definitions reach an add/search system as text through `ingest`."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """An add/search system has no notion of agents; consent is not modelled."""

    def set_writer(self, writer: object) -> None:
        """An add/search system has no writer to switch."""

    def query(self, question: Question) -> list[str]:
        return list(reversed(self.backend.search(question.question, self.limit)))

    def export(self, path: Path) -> None:
        raise MemshiftError("an add/search system has nothing to export")

    def import_(self, path: Path) -> None:
        raise MemshiftError("an add/search system cannot import a bundle")

    def cost(self) -> Cost:
        return self._cost
