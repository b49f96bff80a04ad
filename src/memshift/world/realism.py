"""How much a world reads like a person's records: the variety of its background text, how often
a message line comes back, and the hours its records are written and its meetings held.

Every measure reads only what a memory reads (the rendered text and the record times), never the
generator's templates, so a new generator is judged the same way as the old one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from memshift.timeutil import parse as parse_time
from memshift.world.parse import prose_body
from memshift.world.records import Event

# Components whose text states no fact: what a memory has to read past.
BACKGROUND_COMPONENTS: tuple[str, ...] = (
    "newsletters",
    "dm",
    "workchat",
    "mail",
    "routine",
    "notes",
)
MESSAGE_COMPONENTS: tuple[str, ...] = ("dm", "workchat", "mail", "routine")
# A greeting or a sign-off ("Hi Ana,", "Best,") is a line people repeat; a message line is longer.
MESSAGE_LINE_MIN_WORDS = 5
NIGHT_HOURS = range(0, 5)
# Events that write a record at a moment the person chose (a definition moving or a consent
# revoked is addressed to the memory at the fork, by nobody).
RECORD_OPS: tuple[str, ...] = ("insert", "update", "delete")

# What a world must meet, on every world of the test seeds (tests/world/test_realism.py). The
# first and the line bound are the ones asked of the generator; the others are ours, set so that a
# small pool of templates (45 sentences made 44% of a world's background) cannot pass.
TARGETS: dict[str, float] = {
    "top_pattern_share": 0.01,
    "top20_share": 0.10,
    "top_clause_share": 0.05,
    "top_line_count": 3,
    "night_share": 0.01,
    "meetings_out_of_hours_share": 0.08,
}

# A clause ends at a punctuation mark or before a joining word; split on the marks first, then
# on the words (the same clauses as one alternation, in half the time).
_CLAUSE_MARK = re.compile(r"[,;:]\s+")
_CLAUSE_WORD = re.compile(r"\s+(?:and|but|while|although|because|as|after|which)\s+")
CLAUSE_MIN_WORDS = 4
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_NUMBER = re.compile(r"\d[\d,.:%-]*")
# A run of capitalized words that does not open its sentence: not at the start, not after a
# sentence's end, not inside a word. The capital comes first and the conditions look back from
# it, so the search jumps from capital to capital (four times faster than testing them first).
_NAME_RUN = re.compile(
    r"[A-Z](?<!\w[A-Z])(?<![.!?]\s[A-Z])(?<!^[A-Z])[\w'&-]*(?:\s+[A-Z][\w'&-]*)*"
)


def is_background(event: Event) -> bool:
    if event.component not in BACKGROUND_COMPONENTS or event.op == "delete":
        return False
    return not (event.component == "notes" and event.fields.get("topic") != "everyday")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def skeleton(sentence: str) -> str:
    """The sentence with its numbers and its names (capitalized words past its first) masked:
    two sentences share a skeleton when one template with other names and figures wrote both."""
    masked = _NUMBER.sub("#", sentence)
    return _NAME_RUN.sub("N", masked)


def background_sentences(events: Iterable[Event]) -> list[str]:
    out: list[str] = []
    for event in events:
        if is_background(event):
            out.extend(sentences(prose_body(event.source, event.text)))
    return out


def clauses(sentence: str) -> list[str]:
    return [
        c.strip()
        for part in _CLAUSE_MARK.split(sentence)
        for c in _CLAUSE_WORD.split(part)
        if len(c.split()) >= CLAUSE_MIN_WORDS
    ]


def message_lines(events: Iterable[Event]) -> list[str]:
    """Every sentence of every message's prose that is long enough to be more than a greeting or
    a sign-off: a line a reader would notice coming back. A message revised without a change to
    its prose (starred later) says its lines once."""
    said: dict[tuple[str, str], None] = {}
    for event in events:
        if event.component not in MESSAGE_COMPONENTS or event.op == "delete":
            continue
        for sentence in sentences(prose_body(event.source, event.text)):
            if len(sentence.split()) >= MESSAGE_LINE_MIN_WORDS:
                said[(event.object_id, sentence)] = None
    return [sentence for _, sentence in said]


@dataclass(frozen=True)
class Realism:
    background_sentences: int
    top_pattern: str
    top_pattern_share: float
    top20_share: float
    top_clause: str
    top_clause_share: float  # of background sentences holding that clause skeleton
    message_lines: int
    top_line: str
    top_line_count: int
    night_share: float  # share of records written between midnight and 05:00
    meetings: int
    meetings_out_of_hours: int  # starting before 07:00 or from 20:00, or at a weekend


def measure(events: Iterable[Event]) -> Realism:
    events = list(events)
    patterns = Counter(skeleton(s) for s in background_sentences(events))
    total = sum(patterns.values()) or 1
    ranked = patterns.most_common(20)
    clause_counts: Counter[str] = Counter()
    for pattern, n in patterns.items():
        for clause in set(clauses(pattern)):
            clause_counts[clause] += n
    top_clause, clause_n = clause_counts.most_common(1)[0] if clause_counts else ("", 0)
    lines = Counter(message_lines(events))
    top_line, top_count = lines.most_common(1)[0] if lines else ("", 0)
    written = [e for e in events if e.op in RECORD_OPS]
    night = sum(1 for e in written if e.time.hour in NIGHT_HOURS)
    meetings = [e for e in written if e.kind == "meeting" and e.op == "insert"]
    return Realism(
        background_sentences=total,
        top_pattern=ranked[0][0] if ranked else "",
        top_pattern_share=(ranked[0][1] / total) if ranked else 0.0,
        top20_share=sum(n for _, n in ranked) / total,
        top_clause=top_clause,
        top_clause_share=clause_n / total,
        message_lines=sum(lines.values()),
        top_line=top_line,
        top_line_count=top_count,
        night_share=night / max(len(written), 1),
        meetings=len(meetings),
        meetings_out_of_hours=sum(1 for e in meetings if _out_of_hours(e.fields["start"])),
    )


def misses(realism: Realism) -> dict[str, float]:
    """The measures of `realism` above their TARGETS, by name."""
    values = {
        "top_pattern_share": realism.top_pattern_share,
        "top20_share": realism.top20_share,
        "top_clause_share": realism.top_clause_share,
        "top_line_count": realism.top_line_count,
        "night_share": realism.night_share,
        "meetings_out_of_hours_share": realism.meetings_out_of_hours / max(realism.meetings, 1),
    }
    return {name: value for name, value in values.items() if value > TARGETS[name]}


def _out_of_hours(start: str) -> bool:
    t = parse_time(start)
    return t.weekday() >= 5 or t.hour < 7 or t.hour >= 20
