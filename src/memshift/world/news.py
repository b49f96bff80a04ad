"""Newsletters: long digests of business, travel, culture and city news, full of organization
and city names from the same pools as the person's facts. They are the distractors a memory has to
read past; they state no fact about the person. A long newsletter renders in about a millisecond:
its randomness is drawn in a few vectorized calls.
"""

from __future__ import annotations

import itertools
import string
from typing import Any

import numpy as np

from memshift.tokens import count_tokens
from memshift.world.pools import CITIES, ORGANIZATIONS

SECTION_MIN_TOKENS = 600
SECTION_MAX_TOKENS = 800
PARAGRAPH_SENTENCES = (4, 7)
SECTION_PARAGRAPHS = (2, 4)
SECTION_SEPARATOR = "\n\n\n"
PARAGRAPH_SEPARATOR = "\n\n"

NEWS_SLOTS: tuple[str, ...] = ("org", "org2", "city", "city2", "num", "pct")

HEADLINES: tuple[str, ...] = (
    "{org} opens a new regional office in {city}",
    "{city} council backs a bid from {org} to redevelop the old docks",
    "{org} reports a stronger quarter as demand in {city} recovers",
    "Festival season brings record crowds to {city}, with {org} as lead sponsor",
    "{org} and the {city} tourism board launch a joint campaign",
    "Housing costs in {city} weigh on hiring plans at {org}",
    "{org} pilots a delivery hub on the edge of {city}",
    "A quieter year for galleries in {city}, but {org} keeps funding new work",
    "{org} signs a long lease on a landmark tower in {city}",
    "Airport expansion in {city} draws interest from {org}",
    "Inside the startup scene of {city}: why {org} is hiring again",
    "{org} cuts prices as competition in {city} heats up",
    "Restaurants in {city} report a busy season, {org} survey finds",
    "{org} moves its research team closer to the universities of {city}",
    "Water and energy upgrades in {city} open doors for {org}",
    "{org} brings its annual conference back to {city}",
    "The housing market in {city} cools, says a new study from {org}",
    "Museum reopening in {city} gets a boost from {org}",
)

SENTENCES: tuple[str, ...] = (
    "Analysts at {org} expect revenue to grow by {pct} over the coming year, helped by steady "
    "demand from mid-sized customers in {city} and a slow but visible recovery in export orders.",
    "The company said it would add roughly {num} jobs in {city} once the new site is fully "
    "staffed, although the hiring will be spread out over several phases and depends on "
    "permits that are still pending.",
    "Shares in {org} rose {pct} in early trading after the firm confirmed a supply agreement "
    "with {org2} that had been rumored for weeks, easing worries about its order book.",
    "Hotel occupancy in {city} reached {pct} during the festival period, the highest level since "
    "the local tourism office began publishing regular figures, and many guesthouses were fully "
    "booked.",
    "Officials in {city2} were more cautious, noting that visitor numbers there remain about "
    "{pct} below their previous peak despite a busy summer and a string of new attractions.",
    "A survey of {num} small business owners around {city} found that rent remains the biggest "
    "worry, well ahead of energy bills, staffing shortages and the rising cost of borrowing.",
    "{org} declined to comment on reports that it is in talks to acquire {org2}, but people "
    "familiar with the matter described the discussions as advanced and said a deal could "
    "follow soon.",
    "The new tram extension in {city} is expected to carry around {num} passengers a day, "
    "according to estimates published by the regional transit authority, which also promised "
    "quieter and more frequent service.",
    "Critics argue that the project has already cost {pct} more than planned, and that "
    "residents on the outskirts of {city} will see few of the benefits for many years to come.",
    "Meanwhile, the museum district in {city} is preparing for a major retrospective of postwar "
    "photography, with more than {num} prints on loan from private collections across the "
    "continent.",
    "Ticket sales for the opening weekend were up {pct} compared with the previous exhibition, "
    "organizers said, and several of the guided tours sold out within hours of going on sale.",
    "The partnership between {org} and {org2} is meant to cut delivery times for customers in "
    "{city} and {city2}, where warehouse space has become scarce and expensive.",
    "Landlords in {city} have raised average office rents by {pct}, pushing some younger firms "
    "toward shared workspaces on the edge of town and others toward fully remote setups.",
    "The airline said it would add {num} flights a season between {city} and {city2}, citing "
    "strong demand from both business travelers and families visiting relatives over the "
    "holidays.",
    "Economists caution that the figures are volatile and that a single large contract, such as "
    "the one recently won by {org}, can swing the regional numbers considerably from one "
    "quarter to the next.",
    "Chefs in {city} say that rising ingredient prices have forced them to shorten their menus, "
    "with some dishes costing {pct} more to prepare than a year ago.",
    "The city council in {city2} approved a plan to plant {num} trees along its main avenues, a "
    "move supported by several large employers including {org}, which offered to cover part of "
    "the cost.",
    "Engineers at {org} have spent the past several quarters rebuilding the payment platform, a "
    "project that insiders say consumed nearly {pct} of the technology budget.",
    "Visitors to {city} this season will find a renovated waterfront, a dozen new cafes and a "
    "public library that stays open late into the evening, all within a short stroll of the old "
    "market square.",
    "According to figures released by {org}, online orders in {city} grew {pct} faster than the "
    "national average, driven largely by groceries and household goods.",
    "The concert hall in {city2} announced a season of {num} performances, mixing well-known "
    "symphonies with commissions from younger composers and a series of free concerts for "
    "schools.",
    "Investors welcomed the news, although some warned that {org} still depends heavily on a "
    "handful of large customers in {city} and would struggle if any of them walked away.",
    "A spokesperson for {org2} said the company remains committed to the region and will keep "
    "its existing staff of about {num} people in {city2}, at least until the review is complete.",
    "Energy prices eased by {pct} over the quarter, giving manufacturers around {city} some "
    "relief after a difficult stretch of rising costs and thin order books.",
    "The book fair in {city} drew publishers from across the continent, and organizers estimate "
    "that {num} titles changed hands in licensing deals, many of them translations of debut "
    "novels.",
    "Smaller rivals of {org} have started to compete on service rather than on price, a shift "
    "that could squeeze margins across the sector in {city} and beyond.",
    "In a statement, the board of {org} said the new chief executive would focus on efficiency "
    "and on growing the customer base in {city2}, where the firm has lost ground to newer "
    "competitors.",
    "House prices in {city} fell {pct} over the past year, the first annual decline in a long "
    "while, as higher borrowing costs kept buyers cautious.",
    "The harbor authority in {city2} expects container traffic to rise by {pct} once the "
    "deepened channel opens to larger ships, a project that has been delayed twice by "
    "environmental reviews.",
    "A new film festival in {city} will screen {num} features and shorts, with a special focus "
    "on documentaries about climate, water and the future of farming in dry regions.",
    "Startups in {city} raised {pct} more venture funding than in the previous period, with much "
    "of the money flowing into health care, logistics and tools for small retailers.",
    "{org} and {org2} are jointly funding an apprenticeship program for {num} young people in "
    "{city}, aimed at skilled roles in maintenance, electrical work and engineering.",
    "Footfall in the shopping streets of {city} recovered to {pct} of its former level, though "
    "shop owners say that customers are spending more carefully and comparing prices online.",
    "The weather service warned of strong winds along the coast near {city2}, and several "
    "outdoor events were postponed as a precaution while crews secured stages and market stalls.",
    "Industry groups say the new rules could add {pct} to compliance costs, a burden that firms "
    "such as {org} are better placed to absorb than their small suppliers.",
    "The university in {city} signed a research agreement with {org} that will support {num} "
    "doctoral positions over several years, with most of the work focused on materials science.",
    "Tourism officials in {city2} credit a series of night markets and street festivals for "
    "attracting {num} extra visitors during the quieter part of the year, when many hotels "
    "used to close.",
    "The latest results from {org} pointed to a {pct} improvement in operating margin, largely "
    "thanks to lower freight costs and a leaner head office.",
    "Commercial landlords in {city2} are offering longer rent-free periods to attract tenants, "
    "and brokers report that {org} negotiated one of the largest such deals on record.",
    "Observers note that the gap in average wages between {city} and {city2} has narrowed to "
    "about {pct}, making relocation decisions for growing firms harder to predict.",
    "Sales of electric vans rose {pct} in the region around {city}, and {org} said it plans to "
    "convert most of its delivery fleet within the next few years.",
    "The restaurant guide published by {org2} lists {num} new openings in {city}, from small "
    "neighborhood bakeries to elaborate tasting-menu dining rooms with long waiting lists.",
)


def _numbers() -> tuple[str, ...]:
    small = range(12, 1000, 7)
    large = range(1_050, 9_999, 89)
    return tuple(f"{n:,}" for n in (*small, *large))


def _percentages() -> tuple[str, ...]:
    return tuple(f"{tenths / 10:.1f}%" for tenths in range(5, 400, 3))


NUMBERS: tuple[str, ...] = _numbers()
PERCENTAGES: tuple[str, ...] = _percentages()
_CITY_NAMES: tuple[str, ...] = tuple(city for city, _ in CITIES)


def _slot_counts(template: str) -> list[int]:
    names = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    return [names.count(slot) for slot in NEWS_SLOTS]


def _literal_tokens(template: str) -> int:
    return count_tokens(template.format(**dict.fromkeys(NEWS_SLOTS, " ")))


def _template_table(templates: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per template: literal token count, and how often each slot of NEWS_SLOTS occurs."""
    literal = np.array([_literal_tokens(t) for t in templates], dtype=np.int64)
    slots = np.array([_slot_counts(t) for t in templates], dtype=np.int64)
    return literal, slots


def _value_tokens(values: tuple[str, ...]) -> np.ndarray:
    return np.array([count_tokens(v) for v in values], dtype=np.int64)


_HEADLINE_LITERAL, _HEADLINE_SLOTS = _template_table(HEADLINES)
_SENTENCE_LITERAL, _SENTENCE_SLOTS = _template_table(SENTENCES)
_SLOT_POOLS: tuple[tuple[str, ...], ...] = (
    ORGANIZATIONS, ORGANIZATIONS, _CITY_NAMES, _CITY_NAMES, NUMBERS, PERCENTAGES,
)  # fmt: skip
_SLOT_VALUE_TOKENS: tuple[np.ndarray, ...] = tuple(_value_tokens(p) for p in _SLOT_POOLS)
_LONGEST_VALUES = np.array([int(tokens.max()) for tokens in _SLOT_VALUE_TOKENS])
_SHORTEST_VALUES = np.array([int(tokens.min()) for tokens in _SLOT_VALUE_TOKENS])
_MAX_SENTENCE_TOKENS = int((_SENTENCE_LITERAL + _SENTENCE_SLOTS @ _LONGEST_VALUES).max())
_MIN_SENTENCE_TOKENS = int((_SENTENCE_LITERAL + _SENTENCE_SLOTS @ _SHORTEST_VALUES).min())
_TARGET_HIGH = SECTION_MAX_TOKENS - _MAX_SENTENCE_TOKENS
_CANDIDATES = -(-SECTION_MAX_TOKENS // _MIN_SENTENCE_TOKENS) + 1


def _distinct_pair(rng: np.random.Generator, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """Index pairs (first, second) into a pool of n, with second != first, stacked on axis 0."""
    first = rng.integers(0, n, size=shape)
    second = (first + rng.integers(1, n, size=shape)) % n
    return np.stack([first, second])


def _slot_indices(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Indices into each pool of _SLOT_POOLS, shape (len(NEWS_SLOTS), *shape)."""
    orgs = _distinct_pair(rng, len(ORGANIZATIONS), shape)
    cities = _distinct_pair(rng, len(_CITY_NAMES), shape)
    numbers = rng.integers(0, len(NUMBERS), size=shape)
    percentages = rng.integers(0, len(PERCENTAGES), size=shape)
    return np.concatenate([orgs, cities, numbers[None], percentages[None]])


def _token_counts(literal: np.ndarray, slots: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Tokens of each rendered template; `values` holds the slot indices per template."""
    total = literal.copy()
    for k, tokens in enumerate(_SLOT_VALUE_TOKENS):
        total += slots[..., k] * tokens[values[k]]
    return total


def _positional(template: str) -> str:
    """The template with its named slots turned into positions in NEWS_SLOTS order."""
    return template.format(**{slot: f"{{{k}}}" for k, slot in enumerate(NEWS_SLOTS)})


_POSITIONAL_HEADLINES: tuple[str, ...] = tuple(_positional(t) for t in HEADLINES)
_POSITIONAL_SENTENCES: tuple[str, ...] = tuple(_positional(t) for t in SENTENCES)
_SLOT_ARRAYS: tuple[np.ndarray, ...] = tuple(np.array(p, dtype=object) for p in _SLOT_POOLS)


def _slot_strings(values: np.ndarray) -> list[Any]:
    """Nested lists of slot strings: `values` of shape (len(NEWS_SLOTS), *shape) becomes lists
    of shape (*shape, len(NEWS_SLOTS))."""
    columns = [pool[index] for pool, index in zip(_SLOT_ARRAYS, values, strict=True)]
    return np.stack(columns, axis=-1).tolist()


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


def _section(
    headline: int,
    headline_strings: list[str],
    sentences: list[int],
    sentence_strings: list[list[str]],
    shape_draws: np.ndarray,
) -> str:
    rendered = [
        _POSITIONAL_SENTENCES[s].format(*strings)
        for s, strings in zip(sentences, sentence_strings, strict=True)
    ]
    sizes = _paragraph_sizes(len(rendered), float(shape_draws[0]), float(shape_draws[1]))
    bounds = np.cumsum([0, *sizes]).tolist()
    paragraphs = [" ".join(rendered[a:b]) for a, b in itertools.pairwise(bounds)]
    title = _POSITIONAL_HEADLINES[headline].format(*headline_strings)
    return PARAGRAPH_SEPARATOR.join([title, *paragraphs])


def newsletter_body(rng: np.random.Generator, *, n_sections: int) -> str:
    """A long digest of business, travel, culture and city news, 600 to 800 tokens a section.

    Sections are separated by two blank lines; inside a section, the headline and the paragraphs
    are separated by one blank line.
    """
    if n_sections < 1:
        raise ValueError("a newsletter needs at least one section")
    headline_ids = rng.integers(0, len(HEADLINES), size=n_sections)
    headline_values = _slot_indices(rng, (n_sections,))
    sentences = rng.integers(0, len(SENTENCES), size=(n_sections, _CANDIDATES))
    sentence_values = _slot_indices(rng, (n_sections, _CANDIDATES))
    targets = rng.integers(SECTION_MIN_TOKENS, _TARGET_HIGH + 1, size=n_sections)
    shape_draws = rng.random(size=(n_sections, 2))

    head_tokens = _token_counts(
        _HEADLINE_LITERAL[headline_ids], _HEADLINE_SLOTS[headline_ids], headline_values
    )
    body_tokens = _token_counts(
        _SENTENCE_LITERAL[sentences], _SENTENCE_SLOTS[sentences], sentence_values
    )
    running = head_tokens[:, None] + np.cumsum(body_tokens, axis=1)
    n_sentences = (np.argmax(running >= targets[:, None], axis=1) + 1).tolist()
    headlines = headline_ids.tolist()
    headline_strings = _slot_strings(headline_values)
    sentence_strings = _slot_strings(sentence_values)
    sentence_ids = sentences.tolist()
    sections = [
        _section(
            headlines[i],
            headline_strings[i],
            sentence_ids[i][:n],
            sentence_strings[i][:n],
            shape_draws[i],
        )
        for i, n in enumerate(n_sentences)
    ]
    return SECTION_SEPARATOR.join(sections)
