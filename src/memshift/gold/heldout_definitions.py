"""Held-out definitions from a grammar: candidate templates, a gold-only filter, three draws.

A template fixes a definition's source, condition, aggregate and key; the grammar adds a window
(one of `WINDOWS`) and, for a count, a threshold, and a second version that changes the window
or the threshold (never both, never the condition). No template shares its (source, condition)
pair with any version of the six fixed definitions (`condition_pair`).

Thresholds come from gold statistics alone: for each count template and window, the per-key
counts inside the window (keys with at least one record) at every probe checkpoint of the dev
worlds, pooled; the thresholds are their empirical quantiles `QUANTILES` (inverted CDF, so each
is an observed count), without repeats.

The filter. For one definition version on one dev world, on the unshifted branch (the world's
own events), let g_0 be the gold outcome (status, value) at the fork and g_1..g_4 the outcomes
at the probe checkpoints after it (`CHECKPOINT_WEEKS` 1, 2, 4 and 8). The item-time k >= 1 is

* *changed* when g_k != g_(k-1) or g_k != g_0: the outcome moved since the previous checkpoint,
  or it is not the fork's (the latter alone is the pipeline's own "changed", `gold.compute`);
* *empty* when the status is not an answer or the value is None, "" or ().

Over the 40 item-times of the ten dev worlds a version is accepted when its changed share is at
least `min_changed` (0.2) and its empty share at most `max_empty` (0.5); a candidate when both
its versions are. The same filter is applied to the six fixed definitions and reported; it is
not used to choose them. No model output enters the statistics, the filter or the draws.

The sampler draws three sets of six candidates with `rng.stream(seed, "heldout/{draw}")`: six
distinct templates per draw, no template twice across draws (so 18 distinct definitions), and
for each template one of its accepted candidates, uniformly. Item ids are `def.h{draw}_{k}`.

`python -m memshift.gold.heldout_definitions --out src/memshift/data/heldout_definitions.json`
writes the pinned file that `memshift.definitions.catalog.DEFINITION_SETS` loads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from memshift.definitions.catalog import (
    HELDOUT_PATH,
    HELDOUT_SETS,
    SIX,
    Clause,
    Definition,
    definition_to_json,
    worded,
)
from memshift.gold.evaluator import ANSWER, apply_definition, in_scope
from memshift.rng import stream
from memshift.vocabulary import UNSHIFTED
from memshift.world.generate import GENERATOR_VERSION, generate_world
from memshift.world.records import Record, snapshots
from memshift.world.timeline import CHECKPOINT_WEEKS

FORMAT = 1
DEV_SEEDS: tuple[int, ...] = tuple(range(10))  # the "dev" split of memshift.config.SPLITS
SAMPLER_SEED = 0
WINDOWS: tuple[int, ...] = (14, 21, 30, 45, 60, 90)
QUANTILES: tuple[float, ...] = (0.5, 0.75, 0.9)
MIN_CHANGED = 0.2
MAX_EMPTY = 0.5
DRAWS = 3
PER_DRAW = 6

Outcome = tuple[str, object]
ConditionPair = tuple[str, frozenset[tuple[str, str, object]]]


def condition_pair(source: str, conditions: Iterable[Clause]) -> ConditionPair:
    """What a held-out definition may not share with a fixed one: its source and the set of its
    clauses (field, op, value); wording does not count."""
    return (source, frozenset((c.field, c.op, c.value) for c in conditions))


FIXED_PAIRS: frozenset[ConditionPair] = frozenset(
    condition_pair(d.source, d.conditions) for d in SIX
)


@dataclass(frozen=True)
class Template:
    """A definition's fixed parts. A clause's wording is its qualifier in the sentence; an
    empty wording means `records_phrase` already says it (as in the fixed six)."""

    name: str
    title: str
    source: str
    kind: str
    conditions: tuple[Clause, ...]
    aggregate: str
    key: str
    records_phrase: str
    key_phrase: str
    window_field: str
    value_type: str
    question: str
    answer_format: str
    records_singular: str = ""

    def __post_init__(self) -> None:
        if self.aggregate not in ("count", "members", "span"):
            raise ValueError(f"template {self.name}: aggregate {self.aggregate!r} not sampled")
        if self.pair in FIXED_PAIRS:
            raise ValueError(f"template {self.name} shares its source and condition with SIX")

    @property
    def pair(self) -> ConditionPair:
        return condition_pair(self.source, self.conditions)

    def definition(
        self, item_id: str, version: int, window: int, threshold: int | None
    ) -> Definition:
        return Definition(
            self.name,
            item_id,
            version,
            self.title,
            self.source,
            self.kind,
            self.conditions,
            self.aggregate,
            self.key,
            self.records_phrase,
            key_phrase=self.key_phrase,
            window_days=window,
            window_field=self.window_field,
            threshold=threshold,
            records_singular=self.records_singular,
        )


_NAMES = "List full names."
_MEETINGS = "of the user's one-off calendar meetings"
_NOT_NEWSLETTER = Clause("category", "ne", "newsletter", "other than newsletters")


def _people(name: str, title: str, question: str, **parts: Any) -> Template:
    return Template(
        name=name,
        title=title,
        value_type="entity_set",
        question=question,
        answer_format=_NAMES,
        aggregate="count",
        **parts,
    )


def _titles(name: str, title: str, question: str, fmt: str, **parts: Any) -> Template:
    return Template(
        name=name,
        title=title,
        value_type="entity_set",
        question=question,
        answer_format=fmt,
        aggregate="members",
        **parts,
    )


# Only fields the generator writes (world/prose.py, calendar.py, tasks.py, notes.py). Meetings'
# organizer is always the user and chat records carry no start or end, so neither an organizer
# count nor a chat span is a template.
TEMPLATES: tuple[Template, ...] = (
    _people(
        "work_correspondent",
        "The user's work correspondents",
        "Who are the user's work correspondents",
        source="email",
        kind="message",
        conditions=(Clause("category", "eq", "work", ""),),
        key="sender",
        records_phrase="work e-mails",
        records_singular="work e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    _people(
        "personal_correspondent",
        "The user's personal correspondents",
        "Who are the user's personal correspondents",
        source="email",
        kind="message",
        conditions=(Clause("category", "eq", "personal", ""),),
        key="sender",
        records_phrase="personal e-mails",
        records_singular="personal e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    _people(
        "update_sender",
        "The user's update senders",
        "Who are the user's update senders",
        source="email",
        kind="message",
        conditions=(Clause("category", "eq", "updates", ""),),
        key="sender",
        records_phrase="routine update e-mails (reminders, status updates, expense reports)",
        records_singular="routine update e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    Template(
        "regular_newsletter",
        "The user's regular newsletters",
        "email",
        "message",
        (Clause("category", "eq", "newsletter", ""),),
        "count",
        "sender",
        "newsletter issues",
        "newsletters that sent the user",
        "sent",
        "entity_set",
        "Which newsletters are the user's regular newsletters",
        "List the newsletters' sender names.",
        records_singular="newsletter issue",
    ),
    _people(
        "regular_correspondent",
        "The user's regular correspondents",
        "Who are the user's regular correspondents",
        source="email",
        kind="message",
        conditions=(_NOT_NEWSLETTER,),
        key="sender",
        records_phrase="e-mails",
        records_singular="e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    _people(
        "weekend_correspondent",
        "The user's weekend correspondents",
        "Who are the user's weekend correspondents",
        source="email",
        kind="message",
        conditions=(_NOT_NEWSLETTER, worded(Clause("sent", "weekend"))),
        key="sender",
        records_phrase="e-mails",
        records_singular="e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    _people(
        "main_correspondent",
        "The user's main correspondents",
        "Who are the user's main correspondents",
        source="email",
        kind="message",
        conditions=(
            Clause("category", "in", ("personal", "work"), "filed as personal or work mail"),
        ),
        key="sender",
        records_phrase="e-mails",
        records_singular="e-mail",
        key_phrase="people who sent the user",
        window_field="sent",
    ),
    _titles(
        "personal_mail_topic",
        "The user's recent personal mail topics",
        "What are the user's recent personal mail topics",
        "List the subjects.",
        source="email",
        kind="message",
        conditions=(Clause("category", "eq", "personal", ""),),
        key="subject",
        records_phrase="personal e-mails sent to the user",
        key_phrase="subjects",
        window_field="sent",
    ),
    _people(
        "close_colleague",
        "The user's close colleagues",
        "Who are the user's close colleagues",
        source="chat",
        kind="message",
        conditions=(Clause("channel_kind", "eq", "work", ""),),
        key="sender",
        records_phrase="messages in work chat channels",
        records_singular="message in a work chat channel",
        key_phrase="people who wrote",
        window_field="sent",
    ),
    _people(
        "weekend_chat_partner",
        "The user's weekend chat partners",
        "Who are the user's weekend chat partners",
        source="chat",
        kind="message",
        conditions=(worded(Clause("sent", "weekend")),),
        key="partner",
        records_phrase="direct messages with the user",
        records_singular="direct message with the user",
        key_phrase="people who exchanged",
        window_field="sent",
    ),
    Template(
        "busy_channel",
        "The user's busy work channels",
        "chat",
        "message",
        (Clause("channel_kind", "eq", "work", ""),),
        "count",
        "channel",
        "messages",
        "work chat channels with",
        "sent",
        "entity_set",
        "Which work chat channels are the user's busy work channels",
        "List channel names.",
        records_singular="message",
    ),
    _people(
        "weekend_meeting_partner",
        "The user's weekend meeting partners",
        "Who are the user's weekend meeting partners",
        source="calendar",
        kind="meeting",
        conditions=(worded(Clause("start", "weekend")),),
        key="attendees",
        records_phrase=_MEETINGS,
        key_phrase="people who attended",
        window_field="start",
    ),
    _people(
        "friday_meeting_partner",
        "The user's Friday meeting partners",
        "Who are the user's Friday meeting partners",
        source="calendar",
        kind="meeting",
        conditions=(Clause("weekday", "eq", "Friday", "held on a Friday"),),
        key="attendees",
        records_phrase=_MEETINGS,
        key_phrase="people who attended",
        window_field="start",
    ),
    _people(
        "early_week_partner",
        "The user's early-week meeting partners",
        "Who are the user's early-week meeting partners",
        source="calendar",
        kind="meeting",
        conditions=(Clause("weekday", "in", ("Monday", "Tuesday"), "held on a Monday or Tuesday"),),
        key="attendees",
        records_phrase=_MEETINGS,
        key_phrase="people who attended",
        window_field="start",
    ),
    _people(
        "midweek_partner",
        "The user's midweek meeting partners",
        "Who are the user's midweek meeting partners",
        source="calendar",
        kind="meeting",
        conditions=(
            Clause(
                "weekday",
                "in",
                ("Tuesday", "Wednesday", "Thursday"),
                "held on a Tuesday, Wednesday or Thursday",
            ),
        ),
        key="attendees",
        records_phrase=_MEETINGS,
        key_phrase="people who attended",
        window_field="start",
    ),
    Template(
        "friday_hours",
        "The user's Friday hours",
        "calendar",
        "meeting",
        (Clause("weekday", "eq", "Friday", "held on a Friday"),),
        "span",
        "start",
        "the user's one-off calendar meetings",
        "",
        "start",
        "time_range",
        "What are the user's Friday hours",
        "Give a time range HH:MM-HH:MM.",
    ),
    Template(
        "weekend_hours",
        "The user's weekend hours",
        "calendar",
        "meeting",
        (worded(Clause("start", "weekend")),),
        "span",
        "start",
        "the user's one-off calendar meetings",
        "",
        "start",
        "time_range",
        "What are the user's weekend hours",
        "Give a time range HH:MM-HH:MM.",
    ),
    _titles(
        "care_provider",
        "The user's recent care providers",
        "Who are the user's recent care providers",
        _NAMES,
        source="calendar",
        kind="appointment",
        conditions=(Clause("status", "eq", "booked", ""),),
        key="provider",
        records_phrase="booked appointments that started",
        key_phrase="providers",
        window_field="start",
    ),
    _titles(
        "completed_task",
        "The user's recently completed tasks",
        "Which tasks has the user recently completed",
        "List task titles.",
        source="tasks",
        kind="task",
        conditions=(Clause("status", "eq", "done", ""),),
        key="title",
        records_phrase="tasks marked done and last changed",
        key_phrase="titles",
        window_field="updated",
    ),
    Template(
        "productive_project",
        "The user's productive projects",
        "tasks",
        "task",
        (Clause("status", "eq", "done", ""),),
        "count",
        "project",
        "tasks marked done and last changed",
        "projects with",
        "updated",
        "entity_set",
        "Which projects are the user's productive projects",
        "List project names.",
        records_singular="task marked done and last changed",
    ),
    _titles(
        "upcoming_task",
        "The user's upcoming tasks",
        "Which of the user's tasks are upcoming",
        "List task titles.",
        source="tasks",
        kind="task",
        conditions=(Clause("status", "eq", "open", ""), Clause("due", "due_within_days", 14, "")),
        key="title",
        records_phrase="open tasks due within the next 14 days that were created",
        key_phrase="titles",
        window_field="created",
    ),
    Template(
        "pressing_project",
        "The user's pressing projects",
        "tasks",
        "task",
        (Clause("status", "eq", "open", ""), Clause("due", "due_within_days", 14, "")),
        "count",
        "project",
        "open tasks due within the next 14 days that were created",
        "projects with",
        "created",
        "entity_set",
        "Which projects are the user's pressing projects",
        "List project names.",
        records_singular="open task due within the next 14 days that was created",
    ),
    _titles(
        "journal_topic",
        "The user's recent journal topics",
        "What are the user's recent journal topics",
        "List the note titles.",
        source="notes",
        kind="note",
        conditions=(Clause("topic", "eq", "journal", ""),),
        key="title",
        records_phrase="journal notes written",
        key_phrase="titles",
        window_field="created",
    ),
    _titles(
        "recent_note",
        "The user's recent everyday notes",
        "What are the user's recent everyday notes",
        "List the note titles.",
        source="notes",
        kind="note",
        conditions=(Clause("topic", "eq", "everyday", ""),),
        key="title",
        records_phrase="everyday notes written",
        key_phrase="titles",
        window_field="created",
    ),
    _titles(
        "weekend_note",
        "The user's weekend notes",
        "What are the user's weekend notes",
        "List the note titles.",
        source="notes",
        kind="note",
        conditions=(worded(Clause("created", "weekend")),),
        key="title",
        records_phrase="notes",
        key_phrase="titles",
        window_field="created",
    ),
)
TEMPLATE_BY_NAME: dict[str, Template] = {t.name: t for t in TEMPLATES}


class Spec(NamedTuple):
    """One version's parameters: a template, a window and (for a count) a threshold."""

    template: str
    window: int
    threshold: int | None

    @property
    def key(self) -> str:
        threshold = "-" if self.threshold is None else str(self.threshold)
        return f"{self.template}/w{self.window}/t{threshold}"

    def definition(self, item_id: str, version: int) -> Definition:
        return TEMPLATE_BY_NAME[self.template].definition(
            item_id, version, self.window, self.threshold
        )


@dataclass(frozen=True)
class Candidate:
    """A sampled definition: v1 and v2 of one template, differing in window or threshold."""

    v1: Spec
    v2: Spec

    def __post_init__(self) -> None:
        if self.v1.template != self.v2.template:
            raise ValueError("a candidate's versions come from one template")
        if (self.v1.window != self.v2.window) == (self.v1.threshold != self.v2.threshold):
            raise ValueError(f"v2 must change exactly one of window and threshold: {self}")

    @property
    def template(self) -> str:
        return self.v1.template

    @property
    def change(self) -> str:
        return "window" if self.v1.window != self.v2.window else "threshold"


@dataclass(frozen=True)
class FilterStats:
    """Counts over the post-fork item-times of the dev worlds (see the module docstring)."""

    item_times: int
    changed: int
    changed_vs_fork: int
    changed_vs_previous: int
    empty: int

    @property
    def changed_share(self) -> float:
        return self.changed / self.item_times if self.item_times else 0.0

    @property
    def empty_share(self) -> float:
        return self.empty / self.item_times if self.item_times else 1.0

    def accepted(self, min_changed: float = MIN_CHANGED, max_empty: float = MAX_EMPTY) -> bool:
        return (
            self.item_times > 0
            and self.changed_share >= min_changed
            and self.empty_share <= max_empty
        )

    def to_json(self, min_changed: float, max_empty: float) -> dict[str, Any]:
        return {
            "item_times": self.item_times,
            "changed": self.changed,
            "changed_vs_fork": self.changed_vs_fork,
            "changed_vs_previous": self.changed_vs_previous,
            "empty": self.empty,
            "changed_share": round(self.changed_share, 4),
            "empty_share": round(self.empty_share, 4),
            "accepted": self.accepted(min_changed, max_empty),
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> FilterStats:
        return FilterStats(
            raw["item_times"],
            raw["changed"],
            raw["changed_vs_fork"],
            raw["changed_vs_previous"],
            raw["empty"],
        )


def changed_flags(outcomes: Sequence[Outcome]) -> list[bool]:
    """For the checkpoints after the fork (index 1 on; index 0 is the fork): whether the outcome
    differs from the previous checkpoint's or from the fork's."""
    return [
        outcomes[k] != outcomes[k - 1] or outcomes[k] != outcomes[0]
        for k in range(1, len(outcomes))
    ]


def is_empty(outcome: Outcome) -> bool:
    status, value = outcome
    return status != ANSWER or value is None or value == "" or value == ()


def filter_stats(sequences: Iterable[Sequence[Outcome]]) -> FilterStats:
    """The filter's counts over worlds, each given as its outcomes at the fork and after it."""
    n = changed = vs_fork = vs_previous = empty = 0
    for outcomes in sequences:
        for k, moved in enumerate(changed_flags(outcomes), start=1):
            n += 1
            changed += moved
            vs_fork += outcomes[k] != outcomes[0]
            vs_previous += outcomes[k] != outcomes[k - 1]
            empty += is_empty(outcomes[k])
    return FilterStats(n, changed, vs_fork, vs_previous, empty)


def passes(
    stats: FilterStats, min_changed: float = MIN_CHANGED, max_empty: float = MAX_EMPTY
) -> bool:
    return stats.accepted(min_changed, max_empty)


@dataclass(frozen=True)
class DevWorld:
    """One world's records by source at each probe checkpoint, on the unshifted branch."""

    seed: int
    times: tuple[datetime, ...]
    pools: tuple[dict[str, list[Record]], ...]


def dev_world(seed: int) -> DevWorld:
    world = generate_world(seed)
    times = world.timeline.checkpoints
    pools = []
    for state in snapshots(list(world.events), list(times)):
        grouped: dict[str, list[Record]] = {}
        for record in state.records.values():
            grouped.setdefault(record.source, []).append(record)
        pools.append(grouped)
    return DevWorld(seed, tuple(times), tuple(pools))


def outcomes(d: Definition, world: DevWorld) -> list[Outcome]:
    return [
        apply_definition(d, pool.get(d.source, []), t).outcome
        for pool, t in zip(world.pools, world.times, strict=True)
    ]


def definition_stats(d: Definition, worlds: Sequence[DevWorld]) -> FilterStats:
    return filter_stats(outcomes(d, w) for w in worlds)


def template_pools(template: Template, worlds: Sequence[DevWorld]) -> list[DevWorld]:
    """The worlds cut to the records the template can select under its widest window. Every
    spec of the template selects a subset of these, so its gold on them is its gold on the
    whole world; the cut only saves time."""
    widest = template.definition("def.stats", 1, max(WINDOWS), 1)
    return [
        DevWorld(
            w.seed,
            w.times,
            tuple(
                {widest.source: in_scope(widest, pool.get(widest.source, []), t)}
                for pool, t in zip(w.pools, w.times, strict=True)
            ),
        )
        for w in worlds
    ]


def _keys(record: Record, key: str) -> list[str]:
    raw = record.fields.get(key)
    keys = raw if isinstance(raw, list) else [raw]
    return [k for k in keys if k]


def key_counts(template: Template, window: int, worlds: Sequence[DevWorld]) -> list[int]:
    """Per-key record counts inside the window at every probe checkpoint of every dev world."""
    d = template.definition("def.stats", 1, window, 1)
    counts: list[int] = []
    for w in worlds:
        for pool, t in zip(w.pools, w.times, strict=True):
            per_key: Counter[str] = Counter()
            for r in in_scope(d, pool.get(d.source, []), t):
                per_key.update(_keys(r, d.key))
            counts.extend(per_key.values())
    return counts


def quantile_thresholds(counts: Sequence[int]) -> tuple[int, ...]:
    if not counts:
        return ()
    qs = np.quantile(np.asarray(counts), QUANTILES, method="inverted_cdf")
    return tuple(sorted({max(1, int(q)) for q in qs}))


@dataclass(frozen=True)
class Statistics:
    """Everything the sampler reads: gold statistics of the dev worlds, nothing else."""

    seeds: tuple[int, ...]
    thresholds: dict[tuple[str, int], tuple[int, ...]]
    specs: dict[Spec, FilterStats]
    fixed: dict[str, FilterStats]
    min_changed: float = MIN_CHANGED
    max_empty: float = MAX_EMPTY

    def accepted(self, spec: Spec) -> bool:
        return self.specs[spec].accepted(self.min_changed, self.max_empty)


def grammar_specs(
    template: Template, thresholds: dict[tuple[str, int], tuple[int, ...]]
) -> list[Spec]:
    """The v1 specs the grammar forms: each window, with each of that window's thresholds."""
    if template.aggregate != "count":
        return [Spec(template.name, w, None) for w in WINDOWS]
    return [Spec(template.name, w, t) for w in WINDOWS for t in thresholds[(template.name, w)]]


def v2_specs(v1: Spec, thresholds: dict[tuple[str, int], tuple[int, ...]]) -> list[Spec]:
    """v1 moved to another window at the same threshold, or to another of its window's
    thresholds."""
    moved = [Spec(v1.template, w, v1.threshold) for w in WINDOWS if w != v1.window]
    if v1.threshold is None:
        return moved
    other = [
        Spec(v1.template, v1.window, t)
        for t in thresholds[(v1.template, v1.window)]
        if t != v1.threshold
    ]
    return moved + other


def candidates(stats: Statistics) -> list[Candidate]:
    """Every candidate the grammar can form, in a fixed order."""
    return [
        Candidate(v1, v2)
        for t in TEMPLATES
        for v1 in grammar_specs(t, stats.thresholds)
        for v2 in v2_specs(v1, stats.thresholds)
    ]


def compute_statistics(
    seeds: Sequence[int] = DEV_SEEDS,
    *,
    min_changed: float = MIN_CHANGED,
    max_empty: float = MAX_EMPTY,
) -> Statistics:
    """Thresholds and the filter's counts of every spec the grammar can form, and of the six
    fixed definitions, from the dev worlds' gold on the unshifted branch."""
    worlds = [dev_world(s) for s in seeds]
    thresholds: dict[tuple[str, int], tuple[int, ...]] = {}
    specs: dict[Spec, FilterStats] = {}
    for t in TEMPLATES:
        cut = template_pools(t, worlds)
        if t.aggregate == "count":
            for w in WINDOWS:
                thresholds[(t.name, w)] = quantile_thresholds(key_counts(t, w, cut))
        for v1 in grammar_specs(t, thresholds):
            for spec in (v1, *v2_specs(v1, thresholds)):
                if spec not in specs:
                    specs[spec] = definition_stats(spec.definition("def.stats", 1), cut)
    fixed = {d.label: definition_stats(d, worlds) for d in SIX}
    return Statistics(tuple(seeds), thresholds, specs, fixed, min_changed, max_empty)


def accepted_candidates(stats: Statistics) -> dict[str, list[Candidate]]:
    """The candidates the filter keeps, by template (templates with none are left out)."""
    kept: dict[str, list[Candidate]] = {}
    for c in candidates(stats):
        if stats.accepted(c.v1) and stats.accepted(c.v2):
            kept.setdefault(c.template, []).append(c)
    return kept


@dataclass(frozen=True)
class HeldOut:
    """One drawn definition: item `def.h{draw}_{k}` with its two versions."""

    draw: int
    k: int
    candidate: Candidate

    @property
    def item_id(self) -> str:
        return f"def.h{self.draw}_{self.k}"

    @property
    def set_name(self) -> str:
        return HELDOUT_SETS[self.draw - 1]

    @property
    def template(self) -> Template:
        return TEMPLATE_BY_NAME[self.candidate.template]

    @property
    def v1(self) -> Definition:
        return self.candidate.v1.definition(self.item_id, 1)

    @property
    def v2(self) -> Definition:
        return self.candidate.v2.definition(self.item_id, 2)


def sample_draws(stats: Statistics, seed: int = SAMPLER_SEED) -> tuple[tuple[HeldOut, ...], ...]:
    """Three draws of six accepted candidates: six distinct templates per draw, no template in
    two draws, and one accepted candidate of each, uniformly."""
    kept = accepted_candidates(stats)
    used: set[str] = set()
    draws: list[tuple[HeldOut, ...]] = []
    for draw in range(1, DRAWS + 1):
        rng = stream(seed, f"heldout/{draw}")
        pool = [name for name in kept if name not in used]
        if len(pool) < PER_DRAW:
            raise ValueError(
                f"draw {draw} needs {PER_DRAW} unused templates with an accepted candidate; "
                f"{len(pool)} are left"
            )
        picks = []
        for k, index in enumerate(rng.permutation(len(pool))[:PER_DRAW], start=1):
            options = kept[pool[int(index)]]
            picks.append(HeldOut(draw, k, options[int(rng.integers(len(options)))]))
            used.add(pool[int(index)])
        draws.append(tuple(picks))
    return tuple(draws)


def _spec_json(spec: Spec, fs: FilterStats, stats: Statistics) -> dict[str, Any]:
    return {
        "template": spec.template,
        "window": spec.window,
        "threshold": spec.threshold,
        **fs.to_json(stats.min_changed, stats.max_empty),
    }


def _template_json(t: Template) -> dict[str, Any]:
    return {
        "source": t.source,
        "kind": t.kind,
        "conditions": [
            {
                "field": c.field,
                "op": c.op,
                "value": list(c.value) if isinstance(c.value, tuple) else c.value,
            }
            for c in t.conditions
        ],
        "aggregate": t.aggregate,
        "key": t.key,
        "window_field": t.window_field,
    }


def heldout_payload(stats: Statistics, seed: int = SAMPLER_SEED) -> dict[str, Any]:
    """The pinned file's content: the draws, their items' formats, and every statistic the
    draws were made from."""
    draws = sample_draws(stats, seed)
    kept = accepted_candidates(stats)
    all_candidates = candidates(stats)
    return {
        "format": FORMAT,
        "generator_version": GENERATOR_VERSION,
        "dev_seeds": list(stats.seeds),
        "branch": UNSHIFTED,
        "checkpoint_weeks": list(CHECKPOINT_WEEKS),
        "sampler_seed": seed,
        "filter": {
            "min_changed_share": stats.min_changed,
            "max_empty_share": stats.max_empty,
            "changed": "post-fork checkpoint k: outcome != outcome at k-1, or != outcome at "
            "the fork",
            "empty": "status is not 'answer', or the value is null, '' or []",
            "candidate_accepted": "both versions accepted",
        },
        "grammar": {
            "windows": list(WINDOWS),
            "quantiles": list(QUANTILES),
            "templates": {t.name: _template_json(t) for t in TEMPLATES},
        },
        "thresholds": {
            name: {
                str(w): list(stats.thresholds[(name, w)])
                for w in WINDOWS
                if (name, w) in stats.thresholds
            }
            for name in (t.name for t in TEMPLATES if t.aggregate == "count")
        },
        "specs": {spec.key: _spec_json(spec, fs, stats) for spec, fs in stats.specs.items()},
        "fixed": {
            label: fs.to_json(stats.min_changed, stats.max_empty)
            for label, fs in stats.fixed.items()
        },
        "candidates": {
            "total": len(all_candidates),
            "accepted": sum(len(v) for v in kept.values()),
            "accepted_by_template": {t.name: len(kept.get(t.name, [])) for t in TEMPLATES},
        },
        "draws": {
            HELDOUT_SETS[i]: [
                {
                    "item_id": h.item_id,
                    "template": h.candidate.template,
                    "v1": h.candidate.v1.key,
                    "v2": h.candidate.v2.key,
                    "change": h.candidate.change,
                }
                for h in draw
            ]
            for i, draw in enumerate(draws)
        },
        "sets": {
            HELDOUT_SETS[i]: [definition_to_json(d) for h in draw for d in (h.v1, h.v2)]
            for i, draw in enumerate(draws)
        },
        "items": {
            h.item_id: {
                "set": h.set_name,
                "template": h.candidate.template,
                "label": h.template.title[0].lower() + h.template.title[1:],
                "value_type": h.template.value_type,
                "question": h.template.question,
                "answer_format": h.template.answer_format,
            }
            for draw in draws
            for h in draw
        },
    }


def render_payload(payload: dict[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def statistics_from_payload(payload: dict[str, Any]) -> Statistics:
    """The statistics a pinned file was drawn from, so the sampler can run again without
    generating the dev worlds."""
    flt = payload["filter"]
    thresholds = {
        (name, int(w)): tuple(ts)
        for name, by_window in payload["thresholds"].items()
        for w, ts in by_window.items()
    }
    specs = {
        Spec(raw["template"], raw["window"], raw["threshold"]): FilterStats.from_json(raw)
        for raw in payload["specs"].values()
    }
    fixed = {label: FilterStats.from_json(raw) for label, raw in payload["fixed"].items()}
    return Statistics(
        tuple(payload["dev_seeds"]),
        thresholds,
        specs,
        fixed,
        flt["min_changed_share"],
        flt["max_empty_share"],
    )


def read_pinned(path: Path = HELDOUT_PATH) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return payload


def write_heldout(
    path: Path = HELDOUT_PATH,
    *,
    seeds: Sequence[int] = DEV_SEEDS,
    seed: int = SAMPLER_SEED,
    min_changed: float = MIN_CHANGED,
    max_empty: float = MAX_EMPTY,
) -> dict[str, Any]:
    stats = compute_statistics(seeds, min_changed=min_changed, max_empty=max_empty)
    payload = heldout_payload(stats, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_payload(payload), encoding="utf-8")
    return payload


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memshift.gold.heldout_definitions",
        description="Sample the held-out definitions and write the pinned file.",
    )
    parser.add_argument("--out", type=Path, default=HELDOUT_PATH)
    parser.add_argument("--seed", type=int, default=SAMPLER_SEED)
    parser.add_argument("--min-changed", type=float, default=MIN_CHANGED)
    parser.add_argument("--max-empty", type=float, default=MAX_EMPTY)
    parser.add_argument(
        "--check", action="store_true", help="compare with --out instead of writing it"
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    stats = compute_statistics(min_changed=args.min_changed, max_empty=args.max_empty)
    text = render_payload(heldout_payload(stats, args.seed))
    elapsed = time.perf_counter() - began
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'differs'} ({elapsed:.1f} s)")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
