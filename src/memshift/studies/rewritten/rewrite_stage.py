"""Stage `rewrite`: a built template world with its message bodies in other words, as a world of
its own directory.

The bodies of the base events and of every branch's events are rewritten with one cache keyed by
content (`rewrite.content_key`), so a record shared by branches reads the same in each, and each
distinct body is asked for once: every first attempt in one batch, the retries in a second
(`rewrite_batch`). Headers and typed fields keep their template values, so gold, which reads
only fields and assertions, cannot move; the stage makes sure of it rather than trusting it:
gold is recomputed from the rewritten events with the gold stage's own code (which also runs the
fidelity check, every gold fact verbatim in a record of its dependency set), and the world is
refused unless every branch's gold table equals the template's. Only then is anything written:
the rewritten events, the template's gold, probes and shift files byte for byte (they are the
same tables, so they must be the same files), world.json, the manifest and `rewrite-log.parquet`.
"""

from __future__ import annotations

import itertools
import shutil
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memshift import layout, schemas
from memshift.artifacts import read_json, read_table, write_table
from memshift.errors import MemshiftError
from memshift.files import write_atomically
from memshift.gold.branch import BranchGold, branch_gold
from memshift.gold.compute import outcomes
from memshift.gold.fidelity import FidelityError
from memshift.gold.tables import gold_to_table
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.models.rewriter_client import client_rewriter
from memshift.stages import manifest
from memshift.stages.gold import load_points
from memshift.stages.specs import RewriteJob
from memshift.vocabulary import UNSHIFTED, in_order
from memshift.world.generate import World
from memshift.world.records import Event
from memshift.world.rewrite import (
    ACCEPTED,
    POOL_NAMES,
    RETRIED,
    TEMPLATE,
    CachedRewrite,
    RewriteLogRow,
    body_of,
    content_key,
    protected_facts,
    rewrite_events,
)
from memshift.world.rewrite_batch import Ask, AskBatch, FailedReply, rewrite_contents
from memshift.world.rewrite_log import REWRITE_LOG, LogRow, log_to_table
from memshift.world.stored import load, load_events
from memshift.world.tables import events_to_table, table_to_events

# The name the world's own events carry (world.parquet's `branch` column, the log's `branches`).
BASE = "base"
# The call log's `system` for the rewriter's calls.
SYSTEM = "rewrite"


@dataclass(frozen=True)
class RewriteSummary:
    """A rewritten world in numbers. Outcomes count distinct contents (each rewritten once);
    `records` and `changed` count log rows (distinct object, revision and content). The shares
    are of template characters over the world's distinct events (base and branches, each event
    once): `body_share` of the rewritable bodies, `world_share` of all the text of every event
    (headers, structured records and digests included), which is the paper's measure."""

    world: int
    branches: tuple[str, ...]
    events: int
    records: int
    distinct: int
    calls: int
    failed_calls: int
    accepted: int
    retried: int
    template: int
    changed: int
    changed_chars: int
    body_chars: int
    text_chars: int
    tokens_before: int
    tokens_after: int
    facts_checked: int

    @property
    def body_share(self) -> float:
        return self.changed_chars / self.body_chars if self.body_chars else 0.0

    @property
    def world_share(self) -> float:
        return self.changed_chars / self.text_chars if self.text_chars else 0.0

    def line(self) -> str:
        return (
            f"{self.distinct} distinct bodies: {self.accepted} accepted, {self.retried} after a "
            f"retry, {self.template} kept as the template ({self.failed_calls} of {self.calls} "
            f"calls failed); {100 * self.world_share:.2f}% of the world's text rewritten"
        )


def run(
    template_world_dir: Path,
    out_world_dir: Path,
    branches: Sequence[str],
    profile: Profile,
    cache_dir: Path | None,
    *,
    log: CallLog | None = None,
    calls: Path | None = None,
) -> RewriteSummary:
    """Rewrite with the profile's `rewriter` role. `log` collects the calls (a new one if None);
    `calls`, if given, is where the call log is written, with the world or without it."""
    log = log if log is not None else CallLog()
    seed = int(read_json(layout.world_description(template_world_dir))["seed"])
    client = ModelClient(profile, cache_dir=cache_dir, log=log)
    context = CallContext(run=profile.name, world=seed, system=SYSTEM)
    try:
        return rewrite_world(
            template_world_dir, out_world_dir, branches, client_rewriter(client, context).batch
        )
    finally:
        if calls is not None:
            log.write(calls)


class _Counted:
    """The ask batch, counting the calls that failed outright."""

    def __init__(self, ask_batch: AskBatch) -> None:
        self.ask_batch = ask_batch
        self.failed = 0

    def __call__(self, asks: Sequence[Ask]) -> list[str]:
        replies = self.ask_batch(asks)
        self.failed += sum(isinstance(r, FailedReply) for r in replies)
        return replies


def _asked_already(body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
    # Every content is in the cache before any record is rebuilt, so nothing may ask again.
    raise AssertionError("a body was asked for after the batches")


def rewrite_world(
    template_world_dir: Path,
    out_world_dir: Path,
    branches: Sequence[str],
    ask_batch: AskBatch,
    *,
    pool_names: Sequence[str] = POOL_NAMES,
) -> RewriteSummary:
    """The stage with any rewriter: `ask_batch` answers a list of asks (`rewrite_batch.one_by_one`
    makes one of a plain `Rewriter`). Raises MemshiftError, writing nothing, if the rewritten
    world's gold differs from the template's or misses a fact."""
    names = tuple(branches)
    if not names or len(set(names)) != len(names):
        raise MemshiftError(f"rewrite: give each branch once, at least one; got {list(names)}")
    if Path(out_world_dir).resolve() == Path(template_world_dir).resolve():
        raise MemshiftError(f"rewrite: {out_world_dir} is the template world itself")
    world = load(template_world_dir, with_events=False)
    template: dict[str, list[Event]] = {
        BASE: table_to_events(read_table(layout.world_events(template_world_dir), schemas.EVENTS)),
        **{name: load_events(template_world_dir, name) for name in names},
    }

    asks: dict[str, Ask] = {}
    for events in template.values():
        for event in events:
            body = body_of(event)
            if body is not None:
                protected = protected_facts(event)
                asks.setdefault(content_key(event, body, protected), Ask(body, protected))
    cache: dict[str, CachedRewrite] = {}
    counted = _Counted(ask_batch)
    made = rewrite_contents(asks, counted, cache, pool_names=pool_names)
    rewritten: dict[str, tuple[list[Event], list[RewriteLogRow]]] = {
        name: rewrite_events(events, _asked_already, cache, pool_names=pool_names)
        for name, events in template.items()
    }

    facts = sum(
        _check_gold(template_world_dir, world, name, rewritten[name][0])
        for name in sorted(names, key=lambda n: n != UNSHIFTED)
    )
    rows = _log_rows(template, rewritten, cache)
    _write(template_world_dir, out_world_dir, world.seed, names, rewritten, rows)

    outcomes_ = Counter(result.outcome for result in cache.values())
    shares = _shares(template, {name: events for name, (events, _) in rewritten.items()})
    return RewriteSummary(
        world=world.seed,
        branches=names,
        events=shares["events"],
        records=len(rows),
        distinct=len(cache),
        calls=made,
        failed_calls=counted.failed,
        accepted=outcomes_[ACCEPTED],
        retried=outcomes_[RETRIED],
        template=outcomes_[TEMPLATE],
        changed=sum(row.changed for row in rows),
        changed_chars=shares["changed_chars"],
        body_chars=shares["body_chars"],
        text_chars=shares["text_chars"],
        tokens_before=shares["tokens_before"],
        tokens_after=shares["tokens_after"],
        facts_checked=facts,
    )


# ---- gold -------------------------------------------------------------------------------------


def _check_gold(template_dir: Path, world: World, branch: str, events: list[Event]) -> int:
    """Gold of the rewritten branch as the gold stage computes it; the facts checked."""
    # The gold stage classifies a shifted branch against the unshifted branch's stored gold.
    reference = (
        None if branch == UNSHIFTED else outcomes(load_points(template_dir, UNSHIFTED, world))
    )
    try:
        gold = branch_gold(world, events, branch, reference)
    except FidelityError as exc:
        raise MemshiftError(
            f"rewritten world {world.seed} branch {branch} loses a gold fact: {exc}"
        ) from exc
    _require_same_gold(template_dir, world.seed, branch, gold)
    return gold.fidelity.facts_checked


def _require_same_gold(template_dir: Path, seed: int, branch: str, gold: BranchGold) -> None:
    got = gold_to_table(gold.points, world=seed, branch=branch)
    want = read_table(layout.gold(template_dir, branch), schemas.GOLD)
    if got.equals(want):
        return
    pairs = list(itertools.zip_longest(want.to_pylist(), got.to_pylist()))
    differing = [(i, a, b) for i, (a, b) in enumerate(pairs) if a != b]
    i, before, after = differing[0]
    raise MemshiftError(
        f"rewritten world {seed} branch {branch}: the gold recomputed from the rewritten events "
        f"differs from the template world's in {len(differing)} of {len(pairs)} rows; first, "
        f"row {i}: {_row_difference(before, after)}"
    )


def _row_difference(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> str:
    if before is None or after is None:
        return "the template has no such row" if before is None else "the rewritten has none"
    columns = [c for c in schemas.GOLD.names if before.get(c) != after.get(c)]
    changes = "; ".join(f"{c} {before.get(c)!r} -> {after.get(c)!r}" for c in columns)
    return f"item {before['item_id']} checkpoint {before['checkpoint']}: {changes}"


# ---- the log and the shares -------------------------------------------------------------------


def _log_rows(
    template: Mapping[str, list[Event]],
    rewritten: Mapping[str, tuple[list[Event], list[RewriteLogRow]]],
    cache: Mapping[str, CachedRewrite],
) -> list[LogRow]:
    found: dict[tuple[str, int, str], tuple[Event, RewriteLogRow, list[str]]] = {}
    for name, events in template.items():
        # `rewrite_events` logs the records with a body, in order
        rows = iter(rewritten[name][1])
        for event in events:
            if body_of(event) is None:
                continue
            row = next(rows)
            key = (row.object_id, row.revision, row.content_hash)
            if key in found:
                found[key][2].append(name)
            else:
                found[key] = (event, row, [name])
    out: list[LogRow] = []
    seen: set[str] = set()
    for key in sorted(found):
        event, row, names = found[key]
        result = cache[row.content_hash]
        first = row.content_hash not in seen
        seen.add(row.content_hash)
        out.append(
            LogRow(
                object_id=row.object_id,
                revision=row.revision,
                source=event.source,
                kind=event.kind,
                branches=tuple(names),
                content_hash=row.content_hash,
                outcome=result.outcome,
                violations=result.violations,
                calls=result.calls if first else 0,
                cached=not first,
                changed=row.changed,
                chars_before=row.chars_before,
                chars_after=len(result.body),
                tokens_before=row.tokens_before,
                tokens_after=row.tokens_after,
            )
        )
    return out


def _shares(
    template: Mapping[str, list[Event]], rewritten: Mapping[str, list[Event]]
) -> dict[str, int]:
    """Character and token sums over the distinct events (by event id) of base and branches."""
    sums = Counter[str]()
    seen: set[str] = set()
    for name, events in template.items():
        for before, after in zip(events, rewritten[name], strict=True):
            if before.event_id in seen:
                continue
            seen.add(before.event_id)
            sums["events"] += 1
            sums["text_chars"] += len(before.text)
            sums["tokens_before"] += before.tokens
            sums["tokens_after"] += after.tokens
            body = body_of(before)
            if body is not None:
                sums["body_chars"] += len(body)
                sums["changed_chars"] += len(body) if after.text != before.text else 0
    return dict(sums)


# ---- writing ----------------------------------------------------------------------------------


def _copy(source: Path, target: Path) -> None:
    """A file byte for byte, atomically as every artifact is written."""
    write_atomically(target, lambda tmp: shutil.copyfile(source, tmp))


def _write(
    template_dir: Path,
    out_dir: Path,
    seed: int,
    names: tuple[str, ...],
    rewritten: Mapping[str, tuple[list[Event], list[RewriteLogRow]]],
    rows: Sequence[LogRow],
) -> None:
    write_table(
        events_to_table(rewritten[BASE][0], world=seed, branch=BASE),
        schemas.EVENTS,
        layout.world_events(out_dir),
    )
    _copy(layout.world_description(template_dir), layout.world_description(out_dir))
    for name in names:
        write_table(
            events_to_table(rewritten[name][0], world=seed, branch=name),
            schemas.EVENTS,
            layout.events(out_dir, name),
        )
        for path in (layout.shift, layout.gold, layout.probes):
            _copy(path(template_dir, name), path(out_dir, name))
    write_table(log_to_table(rows, world=seed), REWRITE_LOG, layout.rewrite_log(out_dir))
    # Last, as the world stages do: a world with its manifest is a whole one.
    manifest.run(out_dir, names)


def run_job(job: RewriteJob) -> None:
    """A rewritten world (`RewriteJob`), its calls logged beside it."""
    summary = run(
        job.template, job.out, list(in_order(job.branches)), job.access.named(job.rewriter),
        job.access.cache, calls=layout.rewriter_calls(job.out),
    )  # fmt: skip
    print(f"{job.template.name}: {summary.line()}", file=sys.stderr)
