"""An add/search memory as a user would bring one: texts in, the best word matches out. It runs
in the pipeline as `word_search:WordSearchMemory`, a zero-argument subclass of `SearchAdapter`."""

from __future__ import annotations

import re

from memshift.memory.interface import SearchAdapter


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class WordSearch:
    """Ranks the added texts by the words they share with the query, newest first on ties."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.metadata: list[dict[str, str]] = []
        self.words: list[set[str]] = []

    def add(self, text: str, metadata: dict[str, str]) -> None:
        self.texts.append(text)
        self.metadata.append(dict(metadata))
        self.words.append(words(text))

    def search(self, query: str, limit: int) -> list[str]:
        asked = words(query)
        scored = [(len(asked & w), n) for n, w in enumerate(self.words)]
        best = sorted((s for s in scored if s[0] > 0), reverse=True)[:limit]
        return [self.texts[n] for _, n in best]


class WordSearchMemory(SearchAdapter):
    def __init__(self) -> None:
        super().__init__(WordSearch(), limit=10)
