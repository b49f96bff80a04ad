"""Probes: the questions asked at the fork and at each checkpoint after it."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc

from memshift import schemas
from memshift.definitions.catalog import definition
from memshift.gold.compute import GoldPoint
from memshift.gold.tables import value_json
from memshift.probes.implicit import implicit_gold, implicit_question, relation_for
from memshift.rng import stream
from memshift.statements import value_text
from memshift.timeutil import fmt
from memshift.vocabulary import REDEFINITION, UNSHIFTED, UNSTATED
from memshift.world.items import Item

DIRECT, PREMISE, IMPLICIT, UNNAMED, HELD = "direct", "premise", "implicit", "unnamed", "held"
# the sentence that names the definition in effect, which an unnamed probe leaves out
NAMING = " Definition in effect: "


@dataclass(frozen=True)
class Probe:
    probe_id: str
    point: GoldPoint
    question: str
    definition_text: str | None
    sampled: bool
    kind: str = DIRECT
    premise: GoldPoint | None = None  # the fork's point whose value a premise probe presupposes


def question_text(item: Item, point: GoldPoint, *, named: bool = True) -> tuple[str, str | None]:
    """The question of an item-time and the definition text it names (None when it names
    none: not a definition item, or `named` false)."""
    head = f"As of {fmt(point.time)}: "
    if not item.is_definition:
        return head + item.question, None
    question = f"{head}{item.question} under the user's current definition? {item.answer_format}"
    if not named:
        return question, None
    text = definition(item.item_id, point.gold.version).text
    return f"{question}{NAMING}{text}", text


def premise_question(item: Item, point: GoldPoint, fork: GoldPoint, *, named: bool = True) -> str:
    """The probe's question, led by a clause that takes the fork's value as still true."""
    question, _ = question_text(item, point, named=named)
    head, _, rest = question.partition(": ")
    verb = "are" if item.value_type == "entity_set" else "is"
    assert fork.gold.value is not None
    stated = value_text(fork.gold.value)  # type: ignore[arg-type]
    return f"{head}: Given that {item.label} {verb} still {stated}, {rest[0].lower()}{rest[1:]}"


def premise_probes(
    probes: Sequence[Probe], fork: dict[str, GoldPoint], *, every: bool = False
) -> list[Probe]:
    """One premise probe per changed item-time after the fork whose fork value was an answer
    (with `every`, per item-time after the fork, changed or not): asked as if that value still
    held. Only the current value, or the right abstention, is correct."""
    out = []
    for probe in probes:
        p, before = probe.point, fork.get(probe.point.item.item_id)
        if p.checkpoint == 0 or not (p.changed or every):
            continue
        if before is None or before.gold.value is None:
            continue
        if before.gold.status != "answer":
            continue
        out.append(
            Probe(
                f"{probe.probe_id}-premise",
                p,
                premise_question(p.item, p, before, named=probe.definition_text is not None),
                probe.definition_text,
                False,
                PREMISE,
                before,
            )
        )
    return out


def implicit_point(point: GoldPoint, fork: GoldPoint) -> GoldPoint:
    """The item-time as an implicit-dependency question sees it: the answer's type and format,
    the gold mapped through the item's relation, changed when that differs from the fork's."""
    relation = relation_for(point.item)
    assert relation is not None
    item = replace(point.item, value_type=relation.value_type, answer_format=relation.answer_format)
    status, value = implicit_gold(point.item, point.gold.status, point.gold.value, point.time)
    before = implicit_gold(fork.item, fork.gold.status, fork.gold.value, fork.time)
    changed = (status, value) != before
    return replace(
        point,
        item=item,
        gold=replace(point.gold, status=status, value=value),
        changed=changed,
        caused_by_shift=changed and point.caused_by_shift,
        clock_alone=changed and (point.clock_alone or not point.changed),
    )


def implicit_probes(
    probes: Sequence[Probe], fork: dict[str, GoldPoint], *, every: bool = False
) -> list[Probe]:
    """One implicit-dependency probe (`memshift.probes.implicit`) beside each changed or sampled
    direct probe after the fork (with `every`, each direct probe after it) whose item has a
    relation: a question whose answer follows from the item without naming it."""
    out = []
    for probe in probes:
        p = probe.point
        counted = p.checkpoint > 0 and (p.changed or probe.sampled or every)
        if probe.kind != DIRECT or not counted or relation_for(p.item) is None:
            continue
        out.append(
            Probe(
                f"{probe.probe_id}-implicit",
                implicit_point(p, fork[p.item.item_id]),
                implicit_question(p.item, p.time),
                None,
                probe.sampled,
                IMPLICIT,
            )
        )
    return out


def unnamed_probes(probes: Sequence[Probe], *, every: bool = False) -> list[Probe]:
    """Beside each counted direct probe of a definition item after the fork (with `every`, each
    one after it), the same question without its last sentence, which names the definition in
    effect: the reader must know which definition is current from what the memory gives it
    (MemShift App. B, unnamed probes)."""
    out = []
    for probe in probes:
        p = probe.point
        counted = p.checkpoint > 0 and (p.changed or probe.sampled or every)
        if probe.kind != DIRECT or not counted or not p.item.is_definition:
            continue
        question, _, _ = probe.question.partition(NAMING)
        out.append(Probe(f"{probe.probe_id}-unnamed", p, question, None, probe.sampled, UNNAMED))
    return out


def held_probes(
    points: Sequence[GoldPoint], held: Collection[str], *, seed: int, branch: str
) -> list[Probe]:
    """Every item-time after the fork of the `held` items, changed or not: the fixed population
    of a failure-mode measure (MemShift F.10; `vocabulary.HELD_BRANCHES`), counted by no other
    measure."""
    out = []
    for p in points:
        if p.checkpoint == 0 or p.item.item_id not in held:
            continue
        question, text = question_text(p.item, p, named=branch != UNSTATED)
        probe_id = f"w{seed}-{branch}-c{p.checkpoint}-{p.item.item_id}-held"
        out.append(Probe(probe_id, p, question, text, False, HELD))
    return out


def direct_probe(p: GoldPoint, *, seed: int, branch: str, sampled: bool = False) -> Probe:
    question, text = question_text(p.item, p, named=branch != UNSTATED)
    probe_id = f"w{seed}-{branch}-c{p.checkpoint}-{p.item.item_id}"
    return Probe(probe_id, p, question, text, sampled)


def census_probes(
    points: Sequence[GoldPoint], *, seed: int, branch: str, held: Collection[str] = ()
) -> list[Probe]:
    """Every probe `select_probes` could draw on a branch, under the same ids and words: a direct
    probe at every item-time, and after the fork beside each a premise probe (where the fork's
    value was an answer), an implicit-dependency probe (where the item has a relation) and an
    unnamed probe (a definition item's, on every branch), and the held probes. What a system
    under test is asked (`memshift.probes.public`): the probes drawn are among them, and nothing
    in which are asked tells the drawn ones from the rest."""
    ordered = sorted(points, key=lambda p: (p.checkpoint, p.item.item_id))
    probes = [direct_probe(p, seed=seed, branch=branch) for p in ordered]
    fork = {p.item.item_id: p for p in ordered if p.checkpoint == 0}
    return (
        probes
        + premise_probes(probes, fork, every=True)
        + implicit_probes(probes, fork, every=True)
        + unnamed_probes(probes, every=True)
        + held_probes(points, held, seed=seed, branch=branch)
    )


def select_probes(
    points: Sequence[GoldPoint], *, seed: int, branch: str, held: Collection[str] = ()
) -> list[Probe]:
    """Every item at the fork; after it, every changed item-time plus as many unchanged ones
    drawn with a fixed stream (all of them if there are fewer), marked `sampled`; a premise
    probe for each changed item-time whose fork value it can presuppose; an
    implicit-dependency probe beside each of these after the fork whose item has a relation;
    on the redefinition branch an unnamed probe beside each definition item's; and a held probe
    at every item-time after the fork of the `held` items (`held_probes`). On the unstated
    redefinition's branch no question names the definition in effect: the person never said it
    changed. The
    unshifted branch also holds every other item-time (neither changed nor sampled), so that the
    item-times a
    shift changed can be paired with the same item-times without it; the measures count only
    the changed and sampled ones, as on every branch."""
    by_checkpoint: dict[int, list[GoldPoint]] = {}
    for p in points:
        by_checkpoint.setdefault(p.checkpoint, []).append(p)
    chosen: list[tuple[GoldPoint, bool]] = []
    for k in sorted(by_checkpoint):
        here = by_checkpoint[k]
        if k == 0:
            chosen += [(p, False) for p in here]
            continue
        changed = [p for p in here if p.changed]
        unchanged = [p for p in here if not p.changed]
        rng = stream(seed, f"probes/{branch}/{k}")
        picks = sorted(rng.permutation(len(unchanged))[: len(changed)])
        chosen += [(p, False) for p in changed] + [(unchanged[int(i)], True) for i in picks]
        if branch == UNSHIFTED:
            picked = {int(i) for i in picks}
            chosen += [(p, False) for i, p in enumerate(unchanged) if i not in picked]
    probes = []
    for p, sampled in sorted(chosen, key=lambda c: (c[0].checkpoint, c[0].item.item_id)):
        probes.append(direct_probe(p, seed=seed, branch=branch, sampled=sampled))
    fork = {p.item.item_id: p for p in by_checkpoint.get(0, [])}
    unnamed = unnamed_probes(probes) if branch == REDEFINITION else []
    fixed = held_probes(points, held, seed=seed, branch=branch)
    return probes + premise_probes(probes, fork) + implicit_probes(probes, fork) + unnamed + fixed


def measured(probes: pa.Table) -> pa.Table:
    """The probes the measures count: the fork, changed and sampled item-times, premise and
    implicit-dependency probes, without the unshifted branch's other item-times."""
    counted = pc.or_(
        pc.or_(pc.equal(probes.column("checkpoint"), 0), probes.column("changed")),
        pc.or_(probes.column("sampled"), pc.not_equal(probes.column("kind"), DIRECT)),
    )
    return probes.filter(counted)


def probes_to_table(probes: Sequence[Probe], *, world: int, branch: str) -> pa.Table:
    rows = schemas.empty_columns(schemas.PROBES)
    for probe in probes:
        p = probe.point
        rows["probe_id"].append(probe.probe_id)
        rows["world"].append(world)
        rows["branch"].append(branch)
        rows["checkpoint"].append(p.checkpoint)
        rows["time"].append(p.time)
        rows["item_id"].append(p.item.item_id)
        rows["item_class"].append(p.item.item_class)
        rows["value_type"].append(p.item.value_type)
        rows["free_text"].append(p.item.free_text)
        rows["agent"].append(p.item.agent)
        rows["question"].append(probe.question)
        rows["answer_format"].append(p.item.answer_format)
        rows["definition_version"].append(p.gold.version)
        rows["definition_text"].append(probe.definition_text)
        rows["gold_status"].append(p.gold.status)
        rows["gold_value"].append(value_json(p.gold.value))
        rows["changed"].append(p.changed)
        rows["caused_by_shift"].append(p.caused_by_shift)
        rows["clock_alone"].append(p.clock_alone)
        rows["last_change"].append(p.last_change)
        rows["sampled"].append(probe.sampled)
        rows["kind"].append(probe.kind)
        rows["premise_value"].append(
            None if probe.premise is None else value_json(probe.premise.gold.value)
        )
    return pa.Table.from_pydict(rows, schema=schemas.PROBES)
