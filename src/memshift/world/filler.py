"""Short background text that fills a world without stating any gold fact: everyday messages,
mail and notes that name no organization, city, diet, way of commuting, time of day, weekday or
month. (Newsletters, the long distractors, are in `news`; the words of the messages are in
`chatter`.)

A message is composed from a topic's pieces (an opener, a detail and a closer that fits what the
message does), so that a year of messages seldom says the same sentence twice. A component that
writes many messages passes one `LineMemory` to every call, and a sentence it has written
`REPEAT_LIMIT` times is not drawn again.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar

import numpy as np

from memshift.world.chatter import (
    DIRECT_WORK_MAILS,
    DM_CLOSERS,
    DM_GREETINGS,
    DM_NAMELESS_GREETINGS,
    DM_TOPICS,
    MAIL_GREETINGS,
    NOTICE_MAILS,
    PERSONAL_CLOSINGS,
    PERSONAL_GREETINGS,
    PERSONAL_MAILS,
    UNADDRESSED_GREETINGS,
    WORK_CHAT_LINES,
    WORK_CLOSINGS,
    MailKind,
)

__all__ = [
    "DIRECT_WORK_MAILS",
    "NOTICE_MAILS",
    "PERSONAL_GREETINGS",
    "LineMemory",
    "note_text",
    "personal_mail",
    "routine_mail",
    "small_talk",
    "template_texts",
    "work_chat",
]

T = TypeVar("T")

# A sentence this long is one a reader notices coming back (realism.MESSAGE_LINE_MIN_WORDS);
# shorter ones ("No rush!", "Hi Ana,") are what people do repeat.
LINE_MIN_WORDS = 5
REPEAT_LIMIT = 3
# Redraws before a component gives up avoiding a worn sentence; the material is wide enough that
# a world never comes near it.
ATTEMPTS = 25
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CHOICE = re.compile(r"\{([^{}]*\|[^{}]*)\}")
_SLOT = re.compile(r"\{(\w+)\}")


def _pick(pool: tuple[str, ...], u: float) -> str:
    return pool[int(u * len(pool))]


def _draw(pool: tuple[T, ...] | list[T], rng: np.random.Generator) -> T:
    return pool[int(rng.integers(len(pool)))]


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(template: str, names: dict[str, str], rng: np.random.Generator) -> str:
    """`template` with each `{a|b}` drawn and each `{slot}` replaced from `names`."""
    chosen = _CHOICE.sub(lambda m: _draw(m.group(1).split("|"), rng), template)
    return _SLOT.sub(lambda m: names[m.group(1)], chosen)


def long_sentences(text: str) -> list[str]:
    """The sentences of `text` long enough to be noticed when they come back."""
    parts = (s.strip() for s in _SENTENCE_END.split(text))
    return [s for s in parts if len(s.split()) >= LINE_MIN_WORDS]


class LineMemory:
    """How often one component has written each long sentence in one world. Kept inside one
    component's call, so that components stay independent of each other's draws."""

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self.counts: Counter[str] = Counter()

    def fits(self, text: str, copies: int = 1) -> bool:
        return all(self.counts[s] + copies <= self.limit for s in long_sentences(text))

    def keep(self, text: str, copies: int = 1) -> None:
        for sentence in long_sentences(text):
            self.counts[sentence] += copies


def _fresh(compose: Callable[[], str], memory: LineMemory | None) -> str:
    """A message whose long sentences `memory` has not seen `REPEAT_LIMIT` times yet."""
    out = compose()
    if memory is None:
        return out
    for _ in range(ATTEMPTS - 1):
        if memory.fits(out):
            break
        out = compose()
    memory.keep(out)
    return out


# --- small talk -------------------------------------------------------------------------------

# Shares of direct messages that add a detail to their opener, and a closer after it.
DM_DETAIL_SHARE = 0.45
DM_CLOSER_SHARE = 0.4


class DmParts(NamedTuple):
    """A direct message as composed: what it does (`chatter.NEWS`...) and its pieces."""

    kind: str
    greeting: str
    opener: str
    detail: str | None
    closer: str | None

    @property
    def text(self) -> str:
        body = " ".join(p for p in (self.opener, self.detail, self.closer) if p)
        return self.greeting + body if self.greeting else _capitalized(body)


def small_talk_parts(rng: np.random.Generator, *, to: str | None = None) -> DmParts:
    """One direct message on one topic, its closer (if any) one that fits the topic's kind."""
    topic = _draw(DM_TOPICS, rng)
    names = {slot: _draw(values, rng) for slot, values in topic.slots.items()}
    greetings = DM_GREETINGS if to is not None else DM_NAMELESS_GREETINGS
    greeting = _draw(greetings, rng).format(to=to)
    opener = _fill(_draw(topic.openers, rng), names, rng)
    detail = (
        _fill(_draw(topic.details, rng), names, rng) if rng.random() < DM_DETAIL_SHARE else None
    )
    closer = _draw(DM_CLOSERS[topic.kind], rng) if rng.random() < DM_CLOSER_SHARE else None
    return DmParts(topic.kind, greeting, opener, detail, closer)


def small_talk(
    rng: np.random.Generator,
    *,
    to: str | None = None,
    friend: str | None = None,
    memory: LineMemory | None = None,
) -> str:
    """One casual chat message of one to three sentences on one topic, closed (if at all) the way
    its kind asks: a question waits for an answer, news for a reaction. Its greeting may name `to`,
    the first name of the one it is written to. A caller that names only the channel's `friend`,
    who may be the one writing, gets a message that names nobody."""
    return _fresh(lambda: small_talk_parts(rng, to=to).text, memory)


# --- work chat --------------------------------------------------------------------------------

WORK_FOLLOW_UP_SHARE = 0.35


def _compose_work_chat(rng: np.random.Generator, names: dict[str, str]) -> str:
    line, follow_ups = _draw(WORK_CHAT_LINES, rng)
    message = _capitalized(_fill(line, names, rng))
    if rng.random() < WORK_FOLLOW_UP_SHARE:
        if not message.endswith(("?", ".", "!")):
            message += "."
        message += " " + _fill(_draw(follow_ups, rng), names, rng)
    return message


def work_chat(
    rng: np.random.Generator,
    *,
    colleague: str,
    project: str,
    memory: LineMemory | None = None,
) -> str:
    """One work chat message that mentions `project` and addresses or credits `colleague`."""
    names = {"colleague": colleague, "project": project}
    return _fresh(lambda: _compose_work_chat(rng, names), memory)


# --- routine and personal mail ----------------------------------------------------------------

MAIL_SENTENCES = (3, 6)
# Draws of one part before a mail leaves that part out.
SENTENCE_ATTEMPTS = 10


def _fresh_sentence(
    rng: np.random.Generator,
    alternatives: tuple[str, ...],
    names: dict[str, str],
    memory: LineMemory | None,
    copies: int,
) -> str | None:
    """One way of saying a part that `memory` has not worn out, or None."""
    for _ in range(SENTENCE_ATTEMPTS):
        sentence = _fill(_draw(alternatives, rng), names, rng)
        if memory is None or memory.fits(sentence, copies):
            return sentence
    return None


def _mail_middle(
    rng: np.random.Generator,
    kind: MailKind,
    names: dict[str, str],
    memory: LineMemory | None,
    copies: int,
) -> str | None:
    """3 to 6 sentences: the kind's opening part, then some of its other parts in order. A part
    whose every way of saying it is worn out is left out; None when too few parts are left.
    Choosing parts sentence by sentence (not redrawing whole mails) keeps a year of mail varied
    long after its commonest sentences are used up."""
    low, high = MAIL_SENTENCES
    n = min(int(rng.integers(low, high + 1)), len(kind.parts))
    first = _fresh_sentence(rng, kind.parts[0], names, memory, copies)
    if first is None:
        return None
    kept: dict[int, str] = {}
    for i in rng.permutation(np.arange(1, len(kind.parts))):
        if len(kept) == n - 1:
            break
        sentence = _fresh_sentence(rng, kind.parts[int(i)], names, memory, copies)
        if sentence is not None:
            kept[int(i)] = sentence
    if len(kept) < low - 1:
        return None
    return " ".join([first, *(kept[i] for i in sorted(kept))])


def _mail(
    rng: np.random.Generator,
    kinds: tuple[MailKind, ...],
    names: dict[str, str],
    frame: tuple[tuple[str, ...], tuple[str, ...], str],
    memory: LineMemory | None,
    copies: int,
) -> tuple[str, str]:
    """(subject, body) of a mail of one of `kinds`, framed by a greeting, a closing and the
    signer; its sentences are then counted in `memory`."""
    greetings, closings, signer = frame
    middle = None
    for attempt in range(ATTEMPTS):
        kind = _draw(kinds, rng)
        # The last attempt ignores the memory: a mail is always written.
        middle = _mail_middle(rng, kind, names, memory if attempt < ATTEMPTS - 1 else None, copies)
        if middle is not None:
            break
    subject = _fill(_draw(kind.subjects, rng), names, rng)
    greeting = _fill(_draw(greetings, rng), names, rng)
    body = f"{greeting}\n\n{middle}\n\n{_draw(closings, rng)},\n{signer}"
    if memory is not None:
        memory.keep(body, copies)
    return subject, body


def routine_mail(
    rng: np.random.Generator,
    *,
    sender_first: str,
    project: str,
    to: str | None = None,
    kinds: tuple[MailKind, ...] = NOTICE_MAILS,
    memory: LineMemory | None = None,
    copies: int = 1,
) -> tuple[str, str]:
    """(subject, body) of a work mail about `project`, signed by `sender_first` and, when `to` is
    given, greeting that first name (else greeting nobody by name). `kinds` is what the mail may
    be: team notices by default, `DIRECT_WORK_MAILS` for one person writing to another. `copies`
    is how many times the world shows it (a mail starred after it arrived is shown twice)."""
    greetings = MAIL_GREETINGS if to is not None else UNADDRESSED_GREETINGS
    names = {"project": project, "to": to or ""}
    frame = (greetings, WORK_CLOSINGS, sender_first)
    return _mail(rng, kinds, names, frame, memory, copies)


def personal_mail(
    rng: np.random.Generator,
    *,
    friend: str,
    user: str,
    memory: LineMemory | None = None,
    copies: int = 1,
) -> tuple[str, str]:
    """(subject, body) of a personal mail from `friend` to `user` that states no attribute."""
    frame = (PERSONAL_GREETINGS, PERSONAL_CLOSINGS, friend)
    return _mail(rng, PERSONAL_MAILS, {"user": user}, frame, memory, copies)


# --- every template, for the tests that read them ---------------------------------------------

CALLER_SLOTS = ("to", "user", "project", "colleague")


def _expansions(template: str, slots: dict[str, tuple[str, ...]]) -> Iterator[str]:
    """Every text `template` can become, with the callers' names written as `Name`."""
    choices = [m.group(1).split("|") for m in _CHOICE.finditer(template)]
    pieces = _CHOICE.split(template)[::2]
    for picked in itertools.product(*choices):
        text = "".join(p + c for p, c in zip(pieces, (*picked, ""), strict=True))
        own = sorted(set(_SLOT.findall(text)) - set(CALLER_SLOTS))
        for values in itertools.product(*(slots[s] for s in own)):
            named = dict(zip(own, values, strict=True)) | dict.fromkeys(CALLER_SLOTS, "Name")
            yield _SLOT.sub(lambda m, named=named: named[m.group(1)], text)


def template_texts() -> Iterator[str]:
    """Every sentence, greeting, closer and subject the messages can say."""
    for topic in DM_TOPICS:
        for template in (*topic.openers, *topic.details):
            yield from _expansions(template, topic.slots)
    for closers in DM_CLOSERS.values():
        yield from closers
    for line, follow_ups in WORK_CHAT_LINES:
        for template in (line, *follow_ups):
            yield from _expansions(template, {})
    for kind in (*NOTICE_MAILS, *DIRECT_WORK_MAILS, *PERSONAL_MAILS):
        for template in (*kind.subjects, *itertools.chain(*kind.parts)):
            yield from _expansions(template, {})
    for template in (
        *DM_GREETINGS, *MAIL_GREETINGS, *UNADDRESSED_GREETINGS, *WORK_CLOSINGS,
        *PERSONAL_GREETINGS, *PERSONAL_CLOSINGS,
    ):  # fmt: skip
        yield from _expansions(template, {})


# --- notes ------------------------------------------------------------------------------------

NOTES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("Groceries", "Shopping list", "To buy"),
        (
            "apples", "rice", "tomatoes", "onions", "lemons", "spinach", "coffee beans", "garlic",
            "bananas", "frozen peas", "olive oil", "chickpeas", "carrots", "potatoes", "lentils",
            "dish soap", "paper towels", "toothpaste", "laundry detergent", "batteries",
        ),
    ),
    (
        ("Books to read", "Reading list"),
        (
            "the lighthouse novel from book club", "a poetry collection by someone new to me",
            "a history of maps", "that memoir about sailing alone", "a short story anthology",
            "the sequel to the space opera", "a field guide to mushrooms",
            "a cookbook about spices", "a biography of an inventor",
            "essays on architecture", "the mystery everyone at the gym recommends",
        ),
    ),
    (
        ("Gift ideas", "Present ideas"),
        (
            "a nice notebook", "concert tickets", "a plant in a ceramic pot", "a jigsaw puzzle",
            "wool socks", "a framed print", "a pottery class voucher", "a sturdy umbrella",
            "a board game", "a scented candle", "good headphones", "a fancy tea sampler",
        ),
    ),
    (
        ("Packing list", "Trip packing"),
        (
            "passport", "phone charger", "sunscreen", "swimsuit", "hiking boots",
            "travel adapter", "headphones", "toothbrush", "rain jacket", "a paperback",
            "sunglasses", "reusable water bottle", "first aid kit", "earplugs",
        ),
    ),
    (
        ("Movies to watch", "Watchlist"),
        (
            "the documentary about deep sea creatures", "that heist comedy",
            "the old black-and-white detective film", "the new nature series",
            "the musical everyone keeps quoting", "a classic western", "the sci-fi trilogy",
            "that courtroom drama", "the animated film about a lost robot",
            "the mountain climbing documentary",
        ),
    ),
    (
        ("Home repairs", "Fix around the house"),
        (
            "fix the dripping tap", "replace the hallway bulb", "oil the squeaky hinge",
            "patch the crack above the window", "reseal the bathtub", "tighten the wobbly chair",
            "clean the gutters", "paint the balcony railing", "hang the mirror",
            "replace the shower head",
        ),
    ),
    (
        ("Plant care", "Plants"),
        (
            "water the fern", "turn the orchid toward the light", "repot the cactus",
            "check the basil for aphids", "mist the calathea", "feed the tomatoes",
            "trim the ivy", "bring the lemon tree inside before the frost",
            "wipe the dust off the rubber plant leaves",
        ),
    ),
    (
        ("Weekend ideas", "Things to do"),
        (
            "visit the flea market", "try the climbing gym", "clean out the closet",
            "call the family", "go to the botanical garden", "finish the puzzle",
            "picnic in the park", "see the photography exhibition", "sort the photo albums",
            "try a new board game",
        ),
    ),
    (
        ("Podcast queue", "Podcasts to try"),
        (
            "the episode about the history of salt", "the interview with the deep sea diver",
            "the true crime series about the art forgery", "the one on sleep science",
            "the comedy panel show", "the language learning one",
            "the episode on how bridges are built", "the series about ancient libraries",
        ),
    ),
    (
        ("Workout plan", "Exercise routine"),
        (
            "ten minutes of stretching", "three sets of squats", "push-ups", "plank holds",
            "a short yoga flow", "swim laps", "rowing machine intervals", "jump rope",
            "lunges", "foam rolling",
        ),
    ),
)  # fmt: skip

NOTE_ITEMS = (4, 8)
_MAX_NOTE_ITEMS = max(len(items) for _, items in NOTES)


def note_text(rng: np.random.Generator) -> tuple[str, str]:
    """(title, body) of an everyday list note, one item a line."""
    u = rng.random(3 + _MAX_NOTE_ITEMS)
    titles, items = NOTES[int(u[0] * len(NOTES))]
    low, high = NOTE_ITEMS
    n = min(low + int(u[1] * (high - low + 1)), len(items))
    chosen = np.argsort(u[3 : 3 + len(items)])[:n]
    return _pick(titles, u[2]), "\n".join(f"- {items[i]}" for i in chosen)
