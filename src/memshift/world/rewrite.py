"""Rewritten worlds: the prose bodies of e-mails, chat messages and notes in other words.

A rewriter (a model at temperature 0, or the offline one in `memshift.simulator.rewriter`) gets a
body and the facts it must keep, and replies with JSON `{"body": "..."}`. Headers and every typed
field keep their template values, so gold, which reads only fields and assertions, is the same in
the rewritten world. Structured records, deletions and newsletter digests stay templated: they
hold no prose a reader would paraphrase, and a digest is mostly names and numbers.

A reply is accepted only if it is complete JSON and its body keeps every protected fact verbatim
and adds no number, month, weekday or pool name the template body lacks (`violations`). A failing
body is asked for once more with its violations named, then kept as the template. Rewrites are
keyed by content (`content_key`), so an event shared by branches, or an e-mail starred in a second
revision, reads the same in every branch and revision, and the rewriter is called once for it.

`branch_gold` refuses a world whose fidelity check misses a gold fact, so computing gold on the
rewritten events is how a rewritten world is accepted (a template world always passes it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from memshift.intake.storable import UnstorableError, parse_storable, storable_text, text_problem
from memshift.timeutil import WEEKDAYS
from memshift.tokens import count_tokens
from memshift.world import pools
from memshift.world.records import Event, Record, canonical_json
from memshift.world.render import render
from memshift.world.working_hours import RANGE

# Part of every content key: a change to what is protected or checked must not reuse old rewrites.
# 2: a working-hours range said in words protects both its ends
REWRITE_VERSION = "2"

ACCEPTED = "accepted"
RETRIED = "retried"
TEMPLATE = "template"
OUTCOMES: tuple[str, ...] = (ACCEPTED, RETRIED, TEMPLATE)

NOT_JSON = "reply is not complete JSON"
EMPTY_BODY = "empty body"
# A reply is refused before it is parsed beyond this: no body of the generator comes near it, and
# parsing megabytes of a runaway reply is wasted time.
MAX_REPLY_CHARS = 64_000
# A light rewrite stays about as long as its template; one far longer has added content.
MAX_GROWTH = 2.0
GROWTH_SLACK = 200

PROSE_KINDS: frozenset[tuple[str, str]] = frozenset(
    {("email", "message"), ("chat", "message"), ("notes", "note")}
)
LIVE_OPS: frozenset[str] = frozenset({"insert", "update"})

MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
# "may", "march" and "august" are also common words, and short forms like "Sun" or "Jan" are
# names only when capitalized: those match only capitalized; the unambiguous names in any case.
_CAPITALIZED_ONLY_MONTHS = ("May", "March", "August")
MONTH_ABBREVIATIONS = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov")
MONTH_ABBREVIATIONS += ("Dec",)
WEEKDAY_ABBREVIATIONS = ("Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Sun")
# "one" is left out: it is a pronoun far more often than a count ("no one", "the one on sleep").
NUMBER_WORDS: tuple[str, ...] = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand",
    "million", "billion", "dozen",
)  # fmt: skip
# Lines a parser would read as a header field if a body added them (`memshift.world.parse`).
HEADER_KEYS = ("From", "To", "Date", "Subject", "Flags", "Note")

# The names a rewrite must not bring in: people, companies and cities, and the projects, which a
# rewrite could name just as plausibly as a company.
POOL_NAMES: tuple[str, ...] = (
    *pools.FIRST_NAMES,
    *pools.LAST_NAMES,
    *pools.ORGANIZATIONS,
    *(city for city, _ in pools.CITIES),
    *pools.PROJECT_NAMES,
)

Rewriter = Callable[[str, tuple[str, ...], tuple[str, ...]], str]
"""`rewriter(body, protected, feedback)` -> the reply text. `feedback` is empty on the first
attempt and holds the first attempt's violations on the retry. A rewriter that cannot answer at
all (a network failure) should raise: nothing is then cached, and a later run asks again."""

R = TypeVar("R", Event, Record)


@dataclass(frozen=True)
class CachedRewrite:
    """What the cache keeps per content key: enough to rebuild any record with that content."""

    outcome: str
    body: str
    violations: str
    calls: int


@dataclass(frozen=True)
class RewriteLogRow:
    """One rewritable record. Token and character counts are of the body alone (the header is
    the same before and after). `cached` rows reuse an earlier rewrite of the same content and
    made no call."""

    object_id: str
    revision: int
    content_hash: str
    outcome: str
    violations: str
    tokens_before: int
    tokens_after: int
    chars_before: int
    changed: bool
    calls: int
    cached: bool


# ---- what a record's body is, and what it must keep -------------------------------------------


def body_of(record: Event | Record) -> str | None:
    """The rewritable body: the text after the rendered header of a live e-mail (not a
    newsletter), chat message or note; None for every other record."""
    if isinstance(record, Event) and record.op not in LIVE_OPS:
        return None
    if (record.source, record.kind) not in PROSE_KINDS:
        return None
    if record.source == "email" and record.fields.get("category") == "newsletter":
        return None
    header = render(record.source, record.kind, record.fields, "")
    if not record.text.startswith(header):
        raise ValueError(
            f"record {record.object_id} r{record.revision}: its text does not begin with the "
            "header its fields render, so its body cannot be told apart"
        )
    return record.text[len(header) :]


def _strings(value: Any) -> list[str]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def protected_facts(record: Event | Record) -> tuple[str, ...]:
    """The strings a rewrite must keep verbatim: every asserted value (free-text facts and
    conflict assertions), and every typed field value that occurs in the template body (such as
    the hours of a working-hours note, or both its ends where it says them in words). An asserted
    value found only in the header is left out: the header is never rewritten, and asking a body
    to add it would fail every rewrite."""
    body = body_of(record)
    if body is None:
        return ()
    header = record.text[: len(record.text) - len(body)]
    found: dict[str, None] = {}
    for key in sorted(record.asserts):
        for value in _strings(record.asserts[key]):
            if value and (value in body or value not in header):
                found[value] = None
    for value in _strings(list(record.fields.values())):
        if value and value in body:
            found[value] = None
        # a working-hours range said in words ("in by 08:30 ... off at 17:00") keeps both ends
        elif RANGE.fullmatch(value):
            found.update(dict.fromkeys(end for end in value.split("-") if end in body))
    return tuple(found)


def content_key(record: Event | Record, body: str, protected: Sequence[str]) -> str:
    """sha256 hex of what a rewrite depends on: source, kind, body and protected facts (sorted:
    the same facts in another order ask for the same rewrite)."""
    payload = {
        "version": REWRITE_VERSION,
        "source": record.source,
        "kind": record.kind,
        "body": body,
        "protected": sorted(protected),
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8", "surrogatepass")).hexdigest()


# ---- validation -------------------------------------------------------------------------------


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_DIGITS = re.compile(r"\d+")
_NUMBER_WORD = re.compile(rf"\b(?:{_alternation(NUMBER_WORDS)})\b", re.IGNORECASE)
_MONTH = re.compile(
    rf"\b(?:(?i:{_alternation(m for m in MONTHS if m not in _CAPITALIZED_ONLY_MONTHS)})"
    rf"|{_alternation((*_CAPITALIZED_ONLY_MONTHS, *MONTH_ABBREVIATIONS))})\b"
)
_WEEKDAY = re.compile(
    rf"\b(?:(?i:{_alternation(WEEKDAYS)})|{_alternation(WEEKDAY_ABBREVIATIONS)})\b"
)
_HEADER_LINE = re.compile(rf"^(?:{_alternation(HEADER_KEYS)}):", re.MULTILINE)


@cache
def _pool_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    # Case-sensitive: a name is capitalized, and "kai" or "mia" inside a word is no name.
    return re.compile(rf"\b(?:{_alternation(names)})\b")


def _found(pattern: re.Pattern[str], text: str, fold: bool = False) -> set[str]:
    matches = pattern.findall(text)
    return {m.casefold() for m in matches} if fold else set(matches)


def _added(pattern: re.Pattern[str], template: str, new: str, fold: bool = False) -> list[str]:
    """What `pattern` finds in `new` but not in `template`, in order of first appearance."""
    before = _found(pattern, template, fold)
    seen: dict[str, None] = {}
    for match in pattern.findall(new):
        if (match.casefold() if fold else match) not in before:
            seen[match] = None
    return list(seen)


def _control_characters(text: str) -> bool:
    return any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in text)


def violations(
    template_body: str,
    new_body: str,
    protected: Sequence[str],
    pools: Sequence[str] = POOL_NAMES,
) -> list[str]:
    """Every reason `new_body` may not replace `template_body`, each named; [] if none."""
    if not new_body.strip():
        return [EMPTY_BODY]
    problem = text_problem(new_body)
    if problem is not None:
        return [f"body is not UTF-8 text: {problem}"]
    found: list[str] = []
    if _control_characters(new_body):
        found.append("body holds control characters")
    found += [f'missing protected fact "{fact}"' for fact in protected if fact not in new_body]
    found += [f'added digit "{d}"' for d in _added(_DIGITS, template_body, new_body)]
    found += [
        f'added number word "{w}"' for w in _added(_NUMBER_WORD, template_body, new_body, True)
    ]
    found += [f'added month name "{m}"' for m in _added(_MONTH, template_body, new_body, True)]
    found += [f'added weekday name "{d}"' for d in _added(_WEEKDAY, template_body, new_body, True)]
    found += [
        f'added pool name "{n}" not in the template body'
        for n in _added(_pool_pattern(tuple(pools)), template_body, new_body)
    ]
    if "\n" not in template_body and "\n" in new_body:
        # a chat message is one line after its header; a break would reshape the record
        found.append("added line break in a one-line body")
    found += [f'added header line "{h}"' for h in _added(_HEADER_LINE, template_body, new_body)]
    if len(new_body) > MAX_GROWTH * len(template_body) + GROWTH_SLACK:
        found.append(f"body grew from {len(template_body)} to {len(new_body)} characters")
    return found


def parse_reply(reply: str) -> tuple[str | None, str | None]:
    """(body, None) for a reply that is exactly a JSON object {"body": string}, else
    (None, the violation). Strict: text around the object, a code fence, an array, another key
    or a body that is no string all fail."""
    if not isinstance(reply, str):
        return None, f"{NOT_JSON} (the reply is no text)"
    if len(reply) > MAX_REPLY_CHARS:
        return None, f"reply is too long ({len(reply)} characters)"
    try:
        value = parse_storable(reply)
    except UnstorableError as exc:
        return None, f"reply is not storable text: {storable_text(str(exc))}"
    except json.JSONDecodeError as exc:
        return None, f"{NOT_JSON} ({exc.msg} at position {exc.pos})"
    if not isinstance(value, dict):
        return None, f"{NOT_JSON} (a JSON {type(value).__name__}, not an object)"
    if "body" not in value:
        return None, f'{NOT_JSON} (no "body" key)'
    extra = sorted(set(value) - {"body"})
    if extra:
        return None, f"{NOT_JSON} (unexpected keys {', '.join(map(repr, extra))})"
    if not isinstance(value["body"], str):
        return None, f'{NOT_JSON} ("body" is not a string)'
    return value["body"], None


def check_rewrite(
    reply: str, template_body: str, protected: Sequence[str], pools: Sequence[str] = POOL_NAMES
) -> tuple[str | None, list[str]]:
    """(new body, []) for an acceptable reply; (None, violations) otherwise."""
    body, problem = parse_reply(reply)
    if body is None:
        return None, [problem or NOT_JSON]
    found = violations(template_body, body, protected, pools)
    return (None, found) if found else (body, [])


# ---- rewriting --------------------------------------------------------------------------------


def _joined(attempts: list[list[str]]) -> str:
    """One attempt's violations joined by "; ", the attempts by " | ": a log cell."""
    return storable_text(" | ".join("; ".join(a) for a in attempts if a))


def _rewrite(
    body: str, protected: tuple[str, ...], rewriter: Rewriter, pool_names: Sequence[str]
) -> CachedRewrite:
    new, first = check_rewrite(rewriter(body, protected, ()), body, protected, pool_names)
    if new is not None:
        return CachedRewrite(ACCEPTED, new, "", 1)
    new, second = check_rewrite(
        rewriter(body, protected, tuple(first)), body, protected, pool_names
    )
    if new is not None:
        return CachedRewrite(RETRIED, new, _joined([first]), 2)
    return CachedRewrite(TEMPLATE, body, _joined([first, second]), 2)


def _with_text(record: R, text: str) -> R:
    if isinstance(record, Event):
        return dataclasses.replace(record, text=text, tokens=count_tokens(text))
    return dataclasses.replace(record, text=text)


def rewrite_record(
    record: R,
    rewriter: Rewriter,
    cache: MutableMapping[str, CachedRewrite],
    *,
    pool_names: Sequence[str] = POOL_NAMES,
) -> tuple[R, RewriteLogRow]:
    """The record with its body rewritten (or kept, when both attempts fail), and its log row.
    `cache` maps content keys to rewrites; a hit makes no call. Raises ValueError for a record
    with no rewritable body."""
    body = body_of(record)
    if body is None:
        raise ValueError(f"record {record.object_id} r{record.revision} has no rewritable body")
    protected = protected_facts(record)
    key = content_key(record, body, protected)
    hit = cache.get(key)
    if hit is None:
        if body.strip():
            result = _rewrite(body, protected, rewriter, pool_names)
        else:
            result = CachedRewrite(TEMPLATE, body, "empty template body", 0)
        cache[key] = result
    else:
        result = hit
    text = render(record.source, record.kind, record.fields, result.body)
    row = RewriteLogRow(
        object_id=record.object_id,
        revision=record.revision,
        content_hash=key,
        outcome=result.outcome,
        violations=result.violations,
        tokens_before=count_tokens(body),
        tokens_after=count_tokens(result.body),
        chars_before=len(body),
        changed=result.body != body,
        calls=0 if hit is not None else result.calls,
        cached=hit is not None,
    )
    return (record if text == record.text else _with_text(record, text)), row


def rewrite_events(
    records: Iterable[R],
    rewriter: Rewriter,
    cache: MutableMapping[str, CachedRewrite],
    *,
    pool_names: Sequence[str] = POOL_NAMES,
) -> tuple[list[R], list[RewriteLogRow]]:
    """Every record in order, those with a rewritable body rewritten, and one log row for each
    of those. The others are returned as they are (the same objects)."""
    out: list[R] = []
    log: list[RewriteLogRow] = []
    for record in records:
        if body_of(record) is None:
            out.append(record)
            continue
        new, row = rewrite_record(record, rewriter, cache, pool_names=pool_names)
        out.append(new)
        log.append(row)
    return out, log


def rewritten_share(log: Sequence[RewriteLogRow]) -> float:
    """The share of template body characters that belong to bodies whose text changed."""
    total = sum(row.chars_before for row in log)
    changed = sum(row.chars_before for row in log if row.changed)
    return changed / total if total else 0.0


@dataclass(frozen=True)
class RewriteSummary:
    bodies: int
    distinct: int
    calls: int
    accepted: int
    retried: int
    template: int
    changed: int
    rewritten_share: float


def summarize(log: Sequence[RewriteLogRow]) -> RewriteSummary:
    """Counts over a log; `accepted`, `retried` and `template` count every row, cached or not."""
    outcomes = Counter(row.outcome for row in log)
    return RewriteSummary(
        bodies=len(log),
        distinct=len({row.content_hash for row in log}),
        calls=sum(row.calls for row in log),
        accepted=outcomes[ACCEPTED],
        retried=outcomes[RETRIED],
        template=outcomes[TEMPLATE],
        changed=sum(row.changed for row in log),
        rewritten_share=rewritten_share(log),
    )
