"""The offline rewriter: a deterministic light paraphrase standing in for a model at temperature 0.

It swaps greetings and sign-offs, interchangeable phrases and contractions from its own phrase
bank, reorders the items of a list and some middle sentences of a paragraph, and adds a lead-in
here and there. A paragraph that holds a protected fact is left exactly as it is: the rule-based
writer and reader find a stated fact by matching the project's own phrasings, which a paraphrase of
the surrounding sentence would break. Every phrase below is our own and holds no digit, number
word, month, weekday or pool name (a test checks the whole bank against `violations`).

Its randomness comes from the content alone (body, protected facts and attempt), so the same body
reads the same in every branch and on every run. To exercise the whole validation path it also
slips now and then the way a model does: a code fence around the JSON, a reply cut short, words
around the JSON, a protected fact paraphrased away; and, more rarely, it slips again on the retry,
so some bodies keep their template.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

import numpy as np

from memshift.rng import stream
from memshift.timeutil import WEEKDAYS
from memshift.world import pools
from memshift.world.rewrite import MONTHS

SLIP_RATE = 0.06
RELAPSE_RATE = 0.3
SWAP_CHANCE = 0.6
MAX_SWAPS_PER_SENTENCE = 2
REORDER_CHANCE = 0.5
LEAD_IN_CHANCE = 0.35

# Groups of phrases that can stand for one another wherever one of them occurs in the bodies the
# generator writes. Written lower-case; a match keeps the case of its first letter.
SWAP_GROUPS: tuple[tuple[str, ...], ...] = (
    ("thanks for", "thank you for", "many thanks for"),
    ("I would appreciate", "I'd appreciate", "I would welcome"),
    ("as soon as possible", "at your earliest convenience", "as soon as you can"),
    ("if you have questions", "should you have questions"),
    ("if you have any questions", "should you have any questions"),
    ("feel free to", "do feel free to", "you are welcome to"),
    ("I plan to", "I intend to", "I mean to"),
    ("right now", "at the moment", "currently"),
    ("a lot of", "plenty of", "lots of"),
    ("definitely", "certainly"),
    ("I think", "I believe", "I reckon"),
    ("can you", "could you"),
    ("looks good to me", "looks fine to me", "looks right to me"),
    ("when you get a chance", "when you have a moment", "when you have a minute"),
    ("heads up,", "quick heads-up,", "just a heads-up,"),
    ("anyone have a minute", "does anyone have a minute", "has anyone got a minute"),
    ("reminder for everyone:", "friendly reminder:", "a reminder to all:"),
    ("just wanted to share", "just thought I'd share", "just wanted to tell you"),
    ("random update:", "quick update:", "small update:"),
    ("anyway,", "in any case,", "either way,"),
    ("the whole", "the entire"),
    ("is now open", "has opened", "is open now"),
    ("will be shared", "will be circulated", "will go out"),
    ("whenever possible", "where possible", "wherever possible"),
    ("usually solves it", "normally fixes it", "usually does the trick"),
    ("attached is", "please find attached"),
    ("here is", "here's"),
    ("here are", "below are"),
    ("I have attached", "I've attached", "I attached"),
    ("we should catch up soon", "let's catch up soon", "we need to catch up soon"),
    ("tell me everything that's new with you", "tell me all your news", "fill me in on your news"),
    ("thank you for your patience", "thanks for bearing with us", "we appreciate your patience"),
    ("no action is needed on your side", "nothing is needed from you"),
    ("in particular", "especially", "above all"),
    ("is also an option", "would also work", "is possible too"),
    ("has been received", "has arrived", "came through"),
    ("has been reviewed", "has been checked", "has been looked over"),
    ("is on track", "is on schedule", "is going to plan"),
    ("great catch", "nice catch", "good catch"),
    ("went well", "went smoothly", "went nicely"),
    ("worth a read", "worth reading", "well worth a look"),
    ("give my best to everyone at home", "say hello to everyone at home"),
    ("came out better than I expected", "turned out better than I expected"),
    ("should be great", "should be lovely", "ought to be great"),
    ("a short call", "a quick call", "a brief call"),
    ("for anyone who missed", "for those who missed", "for anyone who could not make"),
    ("the remaining open items", "the open items that remain"),
    ("about half done", "roughly half done", "around half finished"),
    ("still needs sign-off", "still awaits sign-off", "is still waiting on sign-off"),
    ("so quickly", "so fast"),
    ("beforehand", "in advance", "ahead of time"),
    ("could be lost", "might be lost", "might get lost"),
    ("while the work happens", "while the work is under way"),
    ("submissions hold up", "submissions delay", "submissions slow down"),
    ("I'm hooked already", "I'm already hooked"),
    ("I keep thinking about", "I can't stop thinking about"),
    ("just now", "a moment ago"),
    ("everyone keeps talking about", "everybody keeps talking about"),
    ("did you ever finish", "have you finished", "did you finish"),
    ("have you tried", "did you try"),
    ("I regret nothing", "I have no regrets"),
    ("absolutely worth", "well worth", "really worth"),
    ("I am", "I'm"),
    ("it is", "it's"),
    ("do not", "don't"),
    ("cannot", "can't"),
    ("I will", "I'll"),
    ("we are", "we're"),
    ("that is", "that's"),
    ("there is", "there's"),
    ("has not", "hasn't"),
    ("is not", "isn't"),
    ("are not", "aren't"),
    ("will not", "won't"),
)

# Chat openers of the form "<word> Name, ...": any of these reads as well as another.
OPENERS: tuple[str, ...] = ("hey", "hi", "oh", "so", "ok")

GREETINGS: tuple[str, ...] = ("Hi", "Hello", "Dear")
BARE_GREETINGS: tuple[str, ...] = ("Hi", "Hello")
EXCLAIMED_GREETINGS: tuple[str, ...] = ("Hi", "Hey")
FORMAL_CLOSINGS: tuple[str, ...] = (
    "Kind regards", "Best regards", "Best wishes", "Many thanks", "Thanks", "Regards",
    "All the best", "Thank you", "Best",
)  # fmt: skip
WARM_CLOSINGS: tuple[str, ...] = ("Take care", "Talk soon", "Cheers", "Speak soon", "See you soon")

LEAD_INS: tuple[str, ...] = (
    "Also,",
    "Just so you know,",
    "For what it's worth,",
    "As a side note,",
    "On a related note,",
    "Worth adding:",
)

# A sentence that starts with one of these leans on the one before it, so it is not moved.
LEANING_STARTS = frozenset((
    "Also", "And", "Anyway", "Because", "Both", "But", "Either", "Meanwhile", "Otherwise", "So",
    "Still", "Then", "These", "They", "This", "That", "Those", "It", "Its",
))  # fmt: skip

# Every string the rewriter may put into a body, for the test that checks the bank.
PHRASE_BANK: tuple[str, ...] = (
    *(phrase for group in SWAP_GROUPS for phrase in group),
    *OPENERS,
    *GREETINGS,
    *EXCLAIMED_GREETINGS,
    *FORMAL_CLOSINGS,
    *WARM_CLOSINGS,
    *LEAD_INS,
)

# Words never lowered after a lead-in: names and calendar words keep their capital.
_PROPER_WORDS = frozenset(
    word
    for name in (*pools.FIRST_NAMES, *pools.LAST_NAMES, *pools.ORGANIZATIONS, *pools.PROJECT_NAMES)
    for word in name.split()
) | frozenset((*(c for c, _ in pools.CITIES), *WEEKDAYS, *MONTHS, "I"))

_FIRST_NAMES = frozenset(pools.FIRST_NAMES)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_GREETING = re.compile(r"(?:(?P<word>Hi|Hello|Hey|Dear) )?(?P<name>[A-Z][A-Za-z'-]*)(?P<end>[,!])")
_BARE_GREETING = re.compile(r"(?P<word>Hi|Hello|Hey|Dear)(?P<end>[,!])")
_SIGN_OFF = re.compile(r"(?P<closing>[A-Z][A-Za-z ]*),(?P<sep>\n| )(?P<name>[A-Z][A-Za-z'-]*)")
_OPENER = re.compile(rf"^(?P<word>{'|'.join(OPENERS)}) (?=[A-Z][A-Za-z'-]*, )")
_FIRST_WORD = re.compile(r"[A-Za-z']+")


def _group_pattern(group: tuple[str, ...]) -> re.Pattern[str]:
    """Any phrase of the group as a whole phrase, its first letter in either case."""
    alternatives = []
    for phrase in sorted(group, key=len, reverse=True):
        first = phrase[0]
        head = f"[{first.upper()}{first.lower()}]" if first.isalpha() else re.escape(first)
        alternatives.append(head + re.escape(phrase[1:]))
    return re.compile(rf"(?<![\w'])(?:{'|'.join(alternatives)})(?![\w'])")


_GROUP_PATTERNS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (_group_pattern(group), group) for group in SWAP_GROUPS
)


def _with_case_of(model: str, phrase: str) -> str:
    if model[:1].isupper() and not phrase[:1].isupper():
        return phrase[:1].upper() + phrase[1:]
    if model[:1].islower() and phrase[:1].isupper() and phrase.split()[0] != "I":
        return phrase[:1].lower() + phrase[1:]
    return phrase


def _other(rng: np.random.Generator, options: Sequence[str], current: str) -> str:
    choices = [o for o in options if o.casefold() != current.casefold()]
    return choices[int(rng.integers(len(choices)))] if choices else current


def _swap_phrases(sentence: str, rng: np.random.Generator) -> str:
    swaps = 0
    for pattern, group in _GROUP_PATTERNS:
        if swaps >= MAX_SWAPS_PER_SENTENCE:
            break
        match = pattern.search(sentence)
        if match is None or rng.random() >= SWAP_CHANCE:
            continue
        replacement = _with_case_of(match.group(), _other(rng, group, match.group()))
        sentence = sentence[: match.start()] + replacement + sentence[match.end() :]
        swaps += 1
    return sentence


def _lowered(sentence: str) -> str | None:
    """The sentence with its first letter lowered, or None if its first word is a name, "I" or
    an acronym, which keep their capital."""
    word = _FIRST_WORD.match(sentence)
    if word is None or word.group() in _PROPER_WORDS or word.group().split("'")[0] == "I":
        return None
    if len(word.group()) > 1 and word.group()[1].isupper():
        return None
    return sentence[:1].lower() + sentence[1:]


def _leans(sentence: str) -> bool:
    word = _FIRST_WORD.match(sentence)
    return word is not None and word.group().split("'")[0].capitalize() in LEANING_STARTS


def _prose(paragraph: str, rng: np.random.Generator) -> str:
    opener = _OPENER.match(paragraph)
    if opener is not None:
        word = _other(rng, OPENERS, opener.group("word"))
        paragraph = word + paragraph[opener.end("word") :]
    sentences = [_swap_phrases(s, rng) for s in _SENTENCE_END.split(paragraph)]
    # The first sentence says what the paragraph is about, so it stays first.
    # A pair is swapped only if neither it nor the sentence after it leans on what came before.
    movable = [
        i for i in range(1, len(sentences) - 1) if not any(_leans(s) for s in sentences[i : i + 3])
    ]
    if movable and rng.random() < REORDER_CHANCE:
        i = movable[int(rng.integers(len(movable)))]
        sentences[i], sentences[i + 1] = sentences[i + 1], sentences[i]
    if len(sentences) > 1 and rng.random() < LEAD_IN_CHANCE:
        i = 1 + int(rng.integers(len(sentences) - 1))
        lowered = _lowered(sentences[i]) if not _leans(sentences[i]) else None
        if lowered is not None:
            sentences[i] = f"{LEAD_INS[int(rng.integers(len(LEAD_INS)))]} {lowered}"
    return " ".join(sentences)


def _greeting(block: str, rng: np.random.Generator) -> str | None:
    bare = _BARE_GREETING.fullmatch(block)
    if bare is not None:
        # "Dear" needs a name after it
        return _other(rng, BARE_GREETINGS, bare.group("word")) + bare.group("end")
    match = _GREETING.fullmatch(block)
    if match is None:
        return None
    word, name, end = match.group("word"), match.group("name"), match.group("end")
    if name not in _FIRST_NAMES:
        # a lone "Thanks!" or "Done," is no greeting
        return None
    options = GREETINGS if end == "," else EXCLAIMED_GREETINGS
    return f"{_other(rng, options, word or '')} {name}{end}"


def _sign_off(block: str, rng: np.random.Generator) -> str | None:
    match = _SIGN_OFF.fullmatch(block)
    if match is None:
        return None
    closing = match.group("closing")
    if match.group("name") not in _FIRST_NAMES:
        return None
    for closings in (FORMAL_CLOSINGS, WARM_CLOSINGS):
        if closing in closings:
            new = _other(rng, closings, closing)
            return f"{new},{match.group('sep')}{match.group('name')}"
    return None


def _list(block: str, rng: np.random.Generator) -> str | None:
    lines = block.split("\n")
    if len(lines) < 2 or not all(line.startswith("- ") for line in lines):
        return None
    order = rng.permutation(len(lines))
    if (order == np.arange(len(lines))).all():
        order = np.roll(order, 1)
    return "\n".join(lines[int(i)] for i in order)


def paraphrase(body: str, protected: Sequence[str], rng: np.random.Generator) -> str:
    """A light paraphrase of `body`; paragraphs holding a protected fact are kept verbatim."""
    blocks = body.split("\n\n")
    out = []
    for block in blocks:
        if not block.strip() or any(fact in block for fact in protected):
            out.append(block)
            continue
        new = _greeting(block, rng) or _sign_off(block, rng) or _list(block, rng)
        if new is None:
            new = _prose(block, rng) if "\n" not in block else block
        out.append(new)
    return "\n\n".join(out)


def _rng(body: str, protected: Sequence[str], attempt: int) -> np.random.Generator:
    content = json.dumps([body, sorted(protected), attempt], ensure_ascii=False)
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    return stream(0, "offline-rewriter", digest)


def _reply(body: str) -> str:
    return json.dumps({"body": body}, ensure_ascii=False)


# Vague words a careless rewrite puts where an exact value stood.
VAGUE: tuple[str, ...] = ("the usual", "the new place", "that", "the same as before")


def _slip(body: str, protected: Sequence[str], rng: np.random.Generator) -> str:
    """A reply that fails validation the way a model's sometimes does."""
    kind = int(rng.integers(4))
    if kind == 3 and protected:
        vague = VAGUE[int(rng.integers(len(VAGUE)))]
        lossy = body
        for fact in protected:
            lossy = lossy.replace(fact, vague)
        return _reply(lossy)
    reply = _reply(body)
    if kind == 0:
        return f"```json\n{reply}\n```"
    if kind == 1:
        return reply[: max(1, len(reply) // 2)]
    return f"Here is the rewritten body:\n{reply}"


class OfflineRewriter:
    """A `Rewriter` (see `memshift.world.rewrite`): deterministic per content and attempt.
    `slip_rate` is the share of first attempts that fail validation, `relapse_rate` the share
    of retries that fail again."""

    def __init__(self, slip_rate: float = SLIP_RATE, relapse_rate: float = RELAPSE_RATE) -> None:
        self.slip_rate = slip_rate
        self.relapse_rate = relapse_rate

    def __call__(self, body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        attempt = 1 if feedback else 0
        rng = _rng(body, protected, attempt)
        slip = rng.random() < (self.relapse_rate if feedback else self.slip_rate)
        new = paraphrase(body, protected, rng)
        return _slip(new, protected, rng) if slip else _reply(new)
