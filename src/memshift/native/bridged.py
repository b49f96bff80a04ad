"""What the adapters of the libraries in an environment of their own (MemOS, Cognee, A-Mem,
HippoRAG) share behind the memory interface: the library's process, started with the settings
every one of them takes (`native/bridge.py`); its calls, each counted, a failed one kept as the
system's behaviour; its search as the question's evidence; and what none of them can do here (an
agent's consent, a writer switch, an import)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from memshift.errors import MemshiftError
from memshift.memory.interface import Cost, Question
from memshift.memory.under_test import QueryFailed
from memshift.native.bridge import REPLY_TIMEOUT_S, LibraryFailure, searched, started
from memshift.native.shared_text import definition_text, latest_documents
from memshift.world.records import PublicEvent


class BridgedMemory(ABC):
    """One library process for one branch of one world; a subclass names the library and says
    how it ingests, orders what its search finds, and exports."""

    library: ClassVar[str]  # its key in registry.NATIVE_SYSTEMS and its bridge module
    shown: ClassVar[str]  # its name in messages
    environment: ClassVar[dict[str, str]] = {}  # what its process needs beyond the base

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        embedder_model: str,
        embedding_dims: int,
        workdir: Path,
        api_key: str = "local",
        embedder_base_url: str = "",
        top_k: int = 20,
        python: str = "",
        reply_timeout_s: int = REPLY_TIMEOUT_S,
    ) -> None:
        self.top_k = top_k
        self.calls = 0
        self.failures: list[str] = []
        settings = {
            "base_url": base_url,
            "model": model,
            "api_key": api_key,
            "embedder_model": embedder_model,
            "embedder_base_url": embedder_base_url or base_url,
            "embedding_dims": embedding_dims,
            **self.init_settings(),
        }
        self.bridge = started(
            self.library,
            self.shown,
            workdir,
            python,
            settings,
            self.environment,
            reply_timeout_s=reply_timeout_s,
        )

    def init_settings(self) -> dict[str, Any]:
        """What the library's `init` takes beyond the common settings."""
        return {}

    def _call(self, op: str, about: Sequence[str], **arguments: Any) -> bool:
        """One request about the things `about` (a batch, items, documents), each counted as a
        call; a failure the library raised is kept, one message for each."""
        if not about:
            return True
        self.calls += len(about)
        try:
            self.bridge.call(op, **arguments)
        except LibraryFailure as exc:
            self.failures += [f"{op} {what}: {exc}"[:300] for what in about]
            return False
        return True

    @abstractmethod
    def evidence(self, found: list[Any]) -> list[str]:
        """The texts of what the library's search found, in the order the reader reads them."""

    @abstractmethod
    def stored(self) -> Any:
        """What the library holds, as the export writes it."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """The library keeps no agents or scopes: consent is not modelled (a deliberate no-op for
        every bridged library, not a step left to subclasses)."""
        return None

    def set_writer(self, writer: object) -> None:
        raise MemshiftError(
            f"{self.shown}'s LLM is fixed when it is built; a writer switch cannot run"
        )

    def query(self, question: Question) -> list[str] | QueryFailed:
        found = searched(self.bridge, self.shown, question.question, self.top_k)
        if isinstance(found, QueryFailed):
            return found
        return self.evidence(found)

    def export(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.stored(), indent=2, sort_keys=True))

    def import_(self, path: Path) -> None:
        raise MemshiftError(f"{self.shown} keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.calls)

    def close(self) -> None:
        self.bridge.close()


class BridgedDocuments(BridgedMemory):
    """A document memory (MemShift C.5: Cognee, HippoRAG): one document per source object and
    one per stated redefinition, each replaced by its latest text."""

    @abstractmethod
    def _replace(self, latest: dict[str, tuple[str | None, str]]) -> None:
        """Each object's document replaced by its latest text (None: deleted); `latest` maps
        an object to (its text, its key `<object>@<revision>`)."""

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._replace(latest_documents(list(events)))

    def define(self, item_id: str, version: int, text: str) -> None:
        key = f"definition:{item_id}"
        self._replace({key: (definition_text(item_id, text), f"{key}@{version}")})


def in_order_added(found: list[dict[str, Any]]) -> list[str]:
    """A fact memory's finds (`memory`, and `order`: the number of its add), oldest first."""
    return [str(m["memory"]) for m in sorted(found, key=lambda m: int(m["order"]))]
