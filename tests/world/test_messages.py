"""A year of a world's messages reads like a person's: no sentence said a fourth time, no sentence
shared by two kinds of message, and a closer that answers to what its message said."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import world
from memshift.world import chatter, realism
from memshift.world.parse import prose_body
from memshift.world.records import Event

SEEDS = (1003, 1011)


def _messages(seed: int, component: str) -> list[str]:
    return [
        prose_body(e.source, e.text)
        for e in world(seed).events
        if e.component == component and e.op != "delete"
    ]


def _long_sentences(texts: list[str]) -> set[str]:
    return {
        s
        for text in texts
        for s in realism.sentences(text)
        if len(s.split()) >= realism.MESSAGE_LINE_MIN_WORDS
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_no_message_sentence_comes_back_a_fourth_time(seed: int) -> None:
    events: list[Event] = list(world(seed).events)
    counts = Counter(realism.message_lines(events))
    line, n = counts.most_common(1)[0]
    assert n <= 3, (n, line)


@pytest.mark.parametrize("seed", SEEDS)
def test_kinds_of_message_share_no_sentence(seed: int) -> None:
    """Each component keeps its own count of what it said, so two components must not say the
    same thing: together they would say it more than three times."""
    said = {c: _long_sentences(_messages(seed, c)) for c in realism.MESSAGE_COMPONENTS}
    for a in realism.MESSAGE_COMPONENTS:
        for b in realism.MESSAGE_COMPONENTS:
            if a < b:
                assert not said[a] & said[b], (a, b, sorted(said[a] & said[b])[:3])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_direct_message_closes_the_way_it_opened(seed: int) -> None:
    """A closer that waits for an answer follows a question; one that asks for a reaction never
    follows a question it would leave hanging."""
    waiting = {*chatter.DM_CLOSERS[chatter.QUESTION], *chatter.DM_CLOSERS[chatter.PLAN]}
    reacting = {*chatter.DM_CLOSERS[chatter.NEWS], *chatter.DM_CLOSERS[chatter.TIP]}
    closed = 0
    for text in _messages(seed, "dm"):
        sentences = realism.sentences(text)
        if len(sentences) < 2:
            continue
        if sentences[-1] in waiting:
            closed += 1
            assert any(s.endswith("?") for s in sentences[:-1]), text
        elif sentences[-1] in reacting:
            closed += 1
            assert not sentences[0].endswith("?"), text
    assert closed > 50
