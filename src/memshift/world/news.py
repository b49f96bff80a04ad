"""Newsletters: long digests of business, travel, culture and city news, full of organization
and city names from the same pools as the person's facts. They are the distractors a memory has to
read past; they state no fact about the person.

Each section tells one story: it draws a topic (transport, housing, food...), an organization and
a city for its headline, and a few other organizations and cities it may mention, then writes its
paragraphs from a small grammar (`news_words`): the topic's own sentences and shared ones (figures,
reported speech, doubts, comparisons), each with many choices, so that a world's thousands of
sentences rarely share a shape. The grammar is compiled once, with the token count of every
literal part, so a section is sized without counting its text again; its randomness comes from
one stream of uniforms drawn from the generator in blocks.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from memshift.tokens import count_tokens
from memshift.world import news_words as words
from memshift.world.pools import CITIES, ORGANIZATIONS

SECTION_MIN_TOKENS = 600
SECTION_MAX_TOKENS = 800
PARAGRAPH_SENTENCES = (4, 7)
SECTION_PARAGRAPHS = (2, 4)
SECTION_SEPARATOR = "\n\n\n"
PARAGRAPH_SEPARATOR = "\n\n"

# A sentence's length in tokens. With at most 28 sentences a section (4 paragraphs of 7), the
# shortest keep any section above SECTION_MIN_TOKENS, and the longest, added last, below
# SECTION_MAX_TOKENS.
SENTENCE_TOKENS = (22, 64)
MAX_SENTENCES = SECTION_PARAGRAPHS[1] * PARAGRAPH_SENTENCES[1]
_TARGET_HIGH = SECTION_MAX_TOKENS - SENTENCE_TOKENS[1]
# Share of sentences opened by a connector ("Meanwhile, ..."), and how many draws a section may
# spend looking for a sentence it has not written yet before it repeats one.
CONNECTOR_SHARE = 0.12
# A sentence shorter than this is given a tail ("..., according to ...") this often.
TAIL_BELOW = 30
TAIL_SHARE = 0.8
FRESH_ATTEMPTS = 8
# Uniforms drawn from the generator at once, per section asked for.
DRAWS_PER_SECTION = 512


def _numbers() -> tuple[str, ...]:
    small = range(12, 1000, 7)
    large = range(1_050, 9_999, 89)
    return tuple(f"{n:,}" for n in (*small, *large))


def _percentages() -> tuple[str, ...]:
    return tuple(f"{tenths / 10:.1f}%" for tenths in range(5, 400, 3))


NUMBERS: tuple[str, ...] = _numbers()
PERCENTAGES: tuple[str, ...] = _percentages()
FEW: tuple[str, ...] = tuple(str(n) for n in range(3, 60))
_CITY_NAMES: tuple[str, ...] = tuple(city for city, _ in CITIES)
_FIGURES: dict[str, tuple[str, ...]] = {"num": NUMBERS, "pct": PERCENTAGES, "few": FEW}

Draw = Callable[[], float]
Bound = list[tuple[str, int]]  # per section: each bound word's text and its token count


# --- the compiled grammar ---------------------------------------------------------------------


class _Seq:
    """Parts rendered one after the other: literal text, a bound word (its index in the
    section's bound list) or a choice. `tokens` counts the literal parts: tokens add up because
    no part joins a word of its neighbor."""

    __slots__ = ("parts", "tokens")

    def __init__(self, parts: tuple[str | int | _Choice, ...], tokens: int) -> None:
        self.parts = parts
        self.tokens = tokens

    def render(self, out: list[str], draw: Draw, bound: Bound) -> int:
        tokens = self.tokens
        for part in self.parts:
            kind = type(part)
            if kind is str:
                out.append(part)  # type: ignore[arg-type]
            elif kind is int:
                text, n = bound[part]  # type: ignore[index]
                out.append(text)
                tokens += n
            else:
                # a choice, drawn here rather than through its own render: most parts of a
                # sentence are choices among plain strings, and a call per part is most of the
                # time a world takes to generate
                i = int(draw() * part.size)  # type: ignore[union-attr]
                strings = part.strings  # type: ignore[union-attr]
                if strings is not None:
                    out.append(strings[i])
                    tokens += part.counts[i]  # type: ignore[union-attr]
                else:
                    tokens += part.alternatives[i].render(out, draw, bound)  # type: ignore[union-attr]
        return tokens


class _Choice:
    """One of several alternatives, drawn at each use; plain strings take a shortcut."""

    __slots__ = ("alternatives", "counts", "size", "strings")

    def __init__(self, alternatives: tuple[_Seq, ...]) -> None:
        self.alternatives = alternatives
        self.size = len(alternatives)
        plain = all(all(type(p) is str for p in a.parts) for a in alternatives)
        self.strings = tuple("".join(a.parts) for a in alternatives) if plain else None  # type: ignore[arg-type]
        self.counts = tuple(a.tokens for a in alternatives)

    def render(self, out: list[str], draw: Draw, bound: Bound) -> int:
        i = int(draw() * self.size)
        if self.strings is not None:
            out.append(self.strings[i])
            return self.counts[i]
        return self.alternatives[i].render(out, draw, bound)


_TOKEN = re.compile(r"\{|\}|\||<\w+>|[^{}|<]+")
Tree = list  # parsed template: str | ("word", name) | ("choice", [Tree, ...])


def _parse(template: str) -> Tree:
    pieces = _TOKEN.findall(template)
    if "".join(pieces) != template:
        raise ValueError(f"bad template {template!r}")
    tree, end = _parse_seq(pieces, 0, nested=False)
    if end != len(pieces):
        raise ValueError(f"unbalanced braces in {template!r}")
    return tree


def _parse_seq(pieces: list[str], at: int, *, nested: bool) -> tuple[Tree, int]:
    seq: Tree = []
    while at < len(pieces):
        piece = pieces[at]
        if piece in "|}" and nested:
            return seq, at
        if piece in "|}":
            raise ValueError(f"stray {piece!r}")
        if piece == "{":
            alternatives = []
            while True:
                alternative, at = _parse_seq(pieces, at + 1, nested=True)
                alternatives.append(alternative)
                if at >= len(pieces):
                    raise ValueError("unclosed choice")
                if pieces[at] == "}":
                    break
            seq.append(("choice", alternatives))
        elif piece.startswith("<"):
            seq.append(("word", piece[1:-1]))
        else:
            seq.append(piece)
        at += 1
    return seq, at


def _lower_first(tree: Tree) -> Tree:
    """The tree with its first literal letter lowered, so that a connector can go before it (the
    sentence is capitalized once it is whole)."""
    if not tree:
        return tree
    first, *rest = tree
    if isinstance(first, str):
        return [first[:1].lower() + first[1:], *rest]
    if first[0] == "choice":
        return [("choice", [_lower_first(a) for a in first[1]]), *rest]
    return tree


class _Grammar:
    """The templates of one topic compiled: its words resolved, bound words made indices."""

    def __init__(self, topic: words.Topic) -> None:
        self.topic = topic
        self.bound_names = (*words.SECTION_NAMES, *topic.bound)
        self._words: dict[str, _Choice] = {}

    def template(self, template: str) -> _Seq:
        return self._seq(_lower_first(_parse(template)))

    def fragment(self, template: str) -> _Seq:
        """A template that goes inside a sentence, as written."""
        return self._seq(_parse(template))

    def choice(self, templates: tuple[str, ...]) -> _Choice:
        return _Choice(tuple(self.template(t) for t in templates))

    def _seq(self, tree: Tree) -> _Seq:
        parts: list[str | int | _Choice] = []
        for item in tree:
            part = item if isinstance(item, str) else self._part(item)
            if isinstance(part, str) and parts and isinstance(parts[-1], str):
                parts[-1] += part
            elif part != "":
                parts.append(part)
        literal = sum(count_tokens(p) for p in parts if isinstance(p, str))
        return _Seq(tuple(parts), literal)

    def _part(self, item: tuple) -> int | _Choice:
        kind, value = item
        if kind == "choice":
            return _Choice(tuple(self._seq(a) for a in value))
        if value in self.bound_names:
            return self.bound_names.index(value)
        if value not in self._words:
            self._words[value] = self._word(value)
        return self._words[value]

    def _word(self, name: str) -> _Choice:
        if name in _FIGURES:
            return _Choice(tuple(_Seq((v,), count_tokens(v)) for v in _FIGURES[name]))
        templates = self.topic.words.get(name) or words.SHARED_WORDS.get(name)
        if templates is None:
            raise KeyError(f"topic {self.topic.name!r} has no word {name!r}")
        return self.choice(templates)


@dataclass(frozen=True)
class _Topic:
    headlines: _Choice
    leads: _Choice
    sentences: tuple[_Seq, ...]  # the topic's own, then the shared ones
    opened: frozenset[int]  # sentences that take no connector before them
    bound: tuple[_Choice, ...]  # the topic's bound words, in order
    tails: _Choice


def _opens_itself(template: str) -> bool:
    """Whether a sentence opens with a quote or with its own connector ("{Still|Even so}, ...")."""
    return template.startswith('"') or bool(re.match(r"\{[^{}]*\},", template))


def _compile(topic: words.Topic) -> _Topic:
    grammar = _Grammar(topic)
    templates = (*topic.sentences, *words.SHARED_SENTENCES)
    return _Topic(
        headlines=grammar.choice(topic.headlines),
        leads=grammar.choice(topic.leads),
        sentences=tuple(grammar.template(t) for t in templates),
        opened=frozenset(i for i, t in enumerate(templates) if _opens_itself(t)),
        bound=tuple(grammar.choice(topic.words[name]) for name in topic.bound),
        tails=_Choice(tuple(grammar.fragment(t) for t in words.TAILS)),
    )


@functools.cache
def topics() -> tuple[_Topic, ...]:
    """The topics' compiled grammars, compiled at the first newsletter: most processes that
    import the world's modules (every study job reads a world) never write one."""
    return tuple(_compile(t) for t in words.TOPICS)


_ORG_TOKENS: tuple[int, ...] = tuple(count_tokens(o) for o in ORGANIZATIONS)
_CITY_TOKENS: tuple[int, ...] = tuple(count_tokens(c) for c in _CITY_NAMES)
_CONNECTORS: tuple[tuple[str, int], ...] = tuple(
    (f"{c}, ", count_tokens(f"{c}, ")) for c in words.CONNECTORS
)


# --- composing ----------------------------------------------------------------------------------


def _uniforms(rng: np.random.Generator, block: int) -> Draw:
    """A stream of uniforms in [0, 1), drawn from `rng` a block at a time as it runs out."""

    def blocks() -> Iterator[list[float]]:
        while True:
            yield rng.random(block).tolist()

    # chained in C: a draw resumes the generator only when a block runs out
    return itertools.chain.from_iterable(blocks()).__next__


def _distinct(draw: Draw, n: int, k: int) -> list[int]:
    """k distinct indices below n."""
    chosen: list[int] = []
    while len(chosen) < k:
        i = int(draw() * n)
        if i not in chosen:
            chosen.append(i)
    return chosen


def _bind(draw: Draw, topic: _Topic) -> Bound:
    """The words a section keeps throughout, in the order of `news_words.SECTION_NAMES` and then
    the topic's bound words."""
    orgs = _distinct(draw, len(ORGANIZATIONS), 3)
    cities = _distinct(draw, len(_CITY_NAMES), 3)
    bound: Bound = []
    for org, city in zip(orgs, cities, strict=True):
        bound.append((ORGANIZATIONS[org], _ORG_TOKENS[org]))
        bound.append((_CITY_NAMES[city], _CITY_TOKENS[city]))
    for word in topic.bound:
        out: list[str] = []
        tokens = word.render(out, draw, bound)
        bound.append(("".join(out), tokens))
    return bound


def _capitalized(text: str) -> str:
    at = 1 if text.startswith('"') else 0
    return text[:at] + text[at : at + 1].upper() + text[at + 1 :]


def _render(seq: _Seq | _Choice, draw: Draw, bound: Bound) -> tuple[str, int]:
    out: list[str] = []
    tokens = seq.render(out, draw, bound)
    return "".join(out), tokens


def _body_sentence(draw: Draw, topic: _Topic, bound: Bound, used: set[int]) -> tuple[str, int]:
    """A sentence of the right length from a template the section has not used yet (after
    FRESH_ATTEMPTS draws, any template), now and then opened by a connector."""
    low, high = SENTENCE_TOKENS
    n = len(topic.sentences)
    attempt = 0
    while True:
        attempt += 1
        k = int(draw() * n)
        if k in used and attempt < FRESH_ATTEMPTS:
            continue
        text, tokens = _render(topic.sentences[k], draw, bound)
        if tokens < TAIL_BELOW and k not in topic.opened and draw() < TAIL_SHARE:
            tail, extra = _render(topic.tails, draw, bound)
            text, tokens = f"{text[:-1]}{tail}{text[-1]}", tokens + extra
        if not low <= tokens <= high:
            continue
        used.add(k)
        if k not in topic.opened and draw() < CONNECTOR_SHARE:
            connector, extra = _CONNECTORS[int(draw() * len(_CONNECTORS))]
            if tokens + extra <= high:
                return _capitalized(connector + text), tokens + extra
        return _capitalized(text), tokens


def _paragraph_sizes(n_sentences: int, u_count: float, u_offset: float) -> list[int]:
    """Split n sentences into 2 to 4 paragraphs of 4 to 7 sentences each."""
    low, high = PARAGRAPH_SENTENCES
    fewest = max(SECTION_PARAGRAPHS[0], -(-n_sentences // high))
    most = min(SECTION_PARAGRAPHS[1], n_sentences // low)
    if fewest > most:
        raise ValueError(f"{n_sentences} sentences do not fit the paragraph limits")
    n_paragraphs = fewest + int(u_count * (most - fewest + 1))
    extra, leftover = divmod(n_sentences - low * n_paragraphs, n_paragraphs)
    offset = int(u_offset * n_paragraphs)
    return [
        low + extra + (1 if (i - offset) % n_paragraphs < leftover else 0)
        for i in range(n_paragraphs)
    ]


def _lead(draw: Draw, topic: _Topic, bound: Bound) -> tuple[str, int]:
    low, high = SENTENCE_TOKENS
    while True:
        text, tokens = _render(topic.leads, draw, bound)
        if low <= tokens <= high:
            return _capitalized(text), tokens


def _section(draw: Draw) -> str:
    """One story: a headline, then sentences until the section's token target, in paragraphs."""
    compiled = topics()
    topic = compiled[int(draw() * len(compiled))]
    bound = _bind(draw, topic)
    headline, total = _render(topic.headlines, draw, bound)
    target = SECTION_MIN_TOKENS + int(draw() * (_TARGET_HIGH - SECTION_MIN_TOKENS + 1))
    lead, tokens = _lead(draw, topic, bound)
    sentences = [lead]
    total += tokens
    used: set[int] = set()
    while total < target and len(sentences) < MAX_SENTENCES:
        text, tokens = _body_sentence(draw, topic, bound, used)
        sentences.append(text)
        total += tokens
    sizes = _paragraph_sizes(len(sentences), draw(), draw())
    bounds = list(itertools.accumulate(sizes, initial=0))
    paragraphs = [" ".join(sentences[a:b]) for a, b in itertools.pairwise(bounds)]
    return PARAGRAPH_SEPARATOR.join([_capitalized(headline), *paragraphs])


def newsletter_body(rng: np.random.Generator, *, n_sections: int) -> str:
    """A long digest of business, travel, culture and city news, 600 to 800 tokens a section.

    Sections are separated by two blank lines; inside a section, the headline and the paragraphs
    are separated by one blank line.
    """
    if n_sections < 1:
        raise ValueError("a newsletter needs at least one section")
    draw = _uniforms(rng, DRAWS_PER_SECTION * n_sections)
    return SECTION_SEPARATOR.join(_section(draw) for _ in range(n_sections))
