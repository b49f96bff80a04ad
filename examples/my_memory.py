"""A memory system written from docs/memory.md alone: it keeps every record it is given, as the
evidence line the reader reads (`evidence_line`), and answers a question with the newest lines
of the asked item's sources. Run it with examples/my-memory.yaml (README.md, Quickstart)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memshift.memory.interface import Cost, Question, evidence_line
from memshift.world.records import PublicEvent

NEWEST = 20


class MyMemory:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []  # (source, evidence line), oldest first
        self.asked = 0

    def ingest(self, events: list[PublicEvent], now: datetime) -> None:
        for event in events:
            if event.op in ("insert", "update", "delete"):
                self.lines.append((event.source, evidence_line(event)))

    def define(self, item_id: str, version: int, text: str) -> None:
        """A new definition also arrives as a `define` event; this memory keeps no definitions."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """This memory does not model who may read what."""

    def set_writer(self, writer: object) -> None:
        """This memory has no writer."""

    def query(self, question: Question) -> list[str]:
        self.asked += 1
        sources = set(question.item.sources)
        return [line for source, line in self.lines if source in sources][-NEWEST:]

    def export(self, path: Path) -> None:
        path.write_text("\n".join(line for _, line in self.lines))

    def import_(self, path: Path) -> None:
        self.lines = [("", line) for line in path.read_text().splitlines()]

    def cost(self) -> Cost:
        return Cost(calls=self.asked)
