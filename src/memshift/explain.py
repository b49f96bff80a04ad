"""One score, drilled into: the probe and its gold dependencies, what a HoldMem cell stored,
maintained and repaired for the item, the evidence the reader saw (recomputed and checked against
the stored hash), the answer and its score."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memshift import schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.memory.holdmem import MaintenanceRow
from memshift.memory.reading import drive, evidence_hash, questions
from memshift.scoring.scorer import score_answer
from memshift.stages import paths
from memshift.stages.probe import system_for
from memshift.world.records import public_view
from memshift.world.stored import load
from memshift.world.tables import table_to_events

SHORT_TEXT = 160
Row = Mapping[str, Any]


@dataclass(frozen=True)
class Target:
    world: int
    branch: str
    system: str
    item_id: str
    checkpoint: int
    premise: bool = False  # the premise probe of that item-time instead of the direct one

    @property
    def kind(self) -> str:
        return "premise" if self.premise else "direct"

    @property
    def where(self) -> str:
        return f"branch {self.branch} of world {self.world}"


@dataclass(frozen=True)
class Dependency:
    object_id: str
    revision: int
    text: str | None  # None: no insert or update in the events holds that revision


@dataclass(frozen=True)
class ProbeFacts:
    probe_id: str
    question: str
    agent: str
    time: datetime
    definition_version: int
    gold_status: str
    gold_value: str | None
    changed: bool
    caused_by_shift: bool
    clock_alone: bool
    last_change: int
    sampled: bool
    dependencies: tuple[Dependency, ...]
    premise_value: str | None = None


@dataclass(frozen=True)
class StoredWrite:
    write_id: str
    checkpoint: int
    kind: str
    value: str | None
    statement: str
    cited: tuple[tuple[str, int], ...]
    failure: str | None
    key: str | None  # the slot's key right after this write; None for the shared pre-fork write


@dataclass(frozen=True)
class Detection:
    first: int  # the window an invalidation must fall in to count for this item-time
    last: int
    at: int | None
    reason: str

    @property
    def detected(self) -> bool:
        return self.at is not None


@dataclass(frozen=True)
class StoreRow:
    position: int
    write_id: str
    origin: str
    check: str
    value: str | None
    text: str


@dataclass(frozen=True)
class HoldMemTrace:
    detection_system: str
    repair: str
    writes: tuple[StoredWrite, ...]
    served: tuple[str, ...]
    maintenance: tuple[MaintenanceRow, ...]
    detection: Detection
    store: tuple[StoreRow, ...]


@dataclass(frozen=True)
class EvidenceCheck:
    items: tuple[str, ...] | None  # None: not recomputed
    blocked: bool
    recomputed_hash: str | None
    stored_hash: str
    note: str  # why the evidence was not recomputed, or why it was blocked

    @property
    def matches(self) -> bool | None:
        return None if self.recomputed_hash is None else self.recomputed_hash == self.stored_hash


@dataclass(frozen=True)
class AnswerFacts:
    status: str
    value: str | None
    failure: str | None
    evidence_items: int
    evidence_tokens: int


@dataclass(frozen=True)
class ScoreFacts:
    correct: bool
    reason: str
    scored_now: str | None  # why the score was computed here instead of read from scores.parquet


@dataclass(frozen=True)
class AnswerAudit:
    """An audited system's view of one answer: the audited system's draft and the audit's
    proposals, gate decisions and verdict (no rows: nothing was sent to the auditor)."""

    audited: str
    draft: AnswerFacts
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Explanation:
    target: Target
    probe: ProbeFacts
    holdmem: HoldMemTrace | None
    evidence: EvidenceCheck
    answer: AnswerFacts
    score: ScoreFacts
    audit: AnswerAudit | None = None


# ---- gathering from the artifacts -------------------------------------------------------------


def explain(results: Path, llm: str, target: Target) -> Explanation:
    """Everything about one answer of one system, read from a study's artifacts under `results`
    (worlds/ and runs/<llm>/)."""
    world_dir = results / "worlds" / f"w{target.world}"
    if not world_dir.is_dir():
        raise MemshiftError(f"no world {target.world} under {results / 'worlds'}")
    run_world_dir = paths.run_world(results, llm, target.world)
    system_dir = paths.system_dir(run_world_dir, target.branch, target.system)
    if not system_dir.is_dir():
        raise MemshiftError(
            no_system(target, system_dir.parent, _answered_systems(system_dir.parent))
        )
    probes = _read(
        paths.probes(world_dir, target.branch), schemas.PROBES, f"probes on {target.where}"
    )
    probe = find_probe(probes.to_pylist(), target)
    gold = _read(paths.gold(world_dir, target.branch), schemas.GOLD, f"gold on {target.where}")
    gold_row = _one(
        _rows(gold, item_id=target.item_id, checkpoint=target.checkpoint),
        f"gold-{target.branch}.parquet has no row for {probe['probe_id']}",
    )
    events = _read(
        paths.events(world_dir, target.branch), schemas.EVENTS, f"events on {target.where}"
    )
    deps = [(d["object_id"], d["revision"]) for d in gold_row["deps"]]
    answer = _answer_row(system_dir, target.system, probe["probe_id"])
    # An audited system answers with its audited system's evidence, memory and draft.
    base = paths.audited_base(target.system)
    drafted = target if base is None else replace(target, system=base)
    audit = None
    if base is not None:
        base_dir = paths.system_dir(run_world_dir, target.branch, base)
        log = system_dir / "answer-audits.parquet"
        audit = AnswerAudit(
            base,
            answer_facts(_answer_row(base_dir, base, probe["probe_id"])),
            tuple(
                _rows(
                    _read(log, schemas.AUDITS, f"answer audit of {target.system}"),
                    probe_id=probe["probe_id"],
                )
            ),
        )
    return Explanation(
        target,
        probe_facts(probe, dependencies(deps, events)),
        _holdmem(run_world_dir, drafted, probe["last_change"]),
        _evidence(world_dir, run_world_dir, drafted, probes, events, answer["evidence_hash"]),
        answer_facts(answer),
        _score(results / "runs" / llm / "scores.parquet", probe, answer),
        audit,
    )


def _answer_row(system_dir: Path, system: str, probe_id: str) -> Row:
    path = system_dir / "answers.parquet"
    return _one(
        _rows(_read(path, schemas.ANSWERS, f"answers of {system}"), probe_id=probe_id),
        f"{path} has no answer to {probe_id}",
    )


def answer_facts(answer: Row) -> AnswerFacts:
    return AnswerFacts(
        answer["status"],
        answer["value"],
        answer["failure"],
        answer["evidence_items"],
        answer["evidence_tokens"],
    )


def _read(path: Path, schema: pa.Schema, what: str) -> pa.Table:
    if not path.exists():
        raise MemshiftError(f"no {what}: missing {path}")
    return read_table(path, schema)


def _where(table: pa.Table, **equal: object) -> pa.Table:
    """The rows whose columns equal the given values."""
    mask = None
    for column, value in equal.items():
        test = pc.equal(table.column(column), pa.scalar(value, table.schema.field(column).type))
        mask = test if mask is None else pc.and_(mask, test)
    return table if mask is None else table.filter(mask)


def _rows(table: pa.Table, **equal: object) -> list[dict[str, Any]]:
    return _where(table, **equal).to_pylist()


def _one(rows: Sequence[dict[str, Any]], missing: str) -> dict[str, Any]:
    if not rows:
        raise MemshiftError(missing)
    return rows[0]


def _answered_systems(branch_dir: Path) -> list[str]:
    if not branch_dir.is_dir():
        return []
    return sorted(p.name for p in branch_dir.iterdir() if (p / "answers.parquet").exists())


def _holdmem(run_world_dir: Path, target: Target, last_change: int) -> HoldMemTrace | None:
    cell = paths.cell_parts(target.system)
    if cell is None:
        return None
    repair, detection = cell
    detection_system = paths.detection_system(detection)
    source = paths.system_dir(run_world_dir, target.branch, detection_system)
    of = f"{detection_system} on {target.where}"
    item, k = target.item_id, target.checkpoint
    return holdmem_trace(
        detection_system,
        repair,
        _rows(_read(source / "writes.parquet", schemas.WRITES, f"writes of {of}"), item_id=item),
        _rows(
            _read(source / "maintenance.parquet", schemas.MAINTENANCE, f"maintenance of {of}"),
            item_id=item,
        ),
        _rows(
            _read(source / "served.parquet", schemas.SERVED, f"served items of {of}"),
            item_id=item,
            checkpoint=k,
        ),
        _rows(
            _read(
                paths.system_dir(run_world_dir, target.branch, target.system) / "store.parquet",
                schemas.STORE,
                f"repaired store of {target.system} on {target.where}",
            ),
            item_id=item,
            checkpoint=k,
        ),
        k,
        last_change,
    )


def _evidence(
    world_dir: Path,
    run_world_dir: Path,
    target: Target,
    probes: pa.Table,
    events: pa.Table,
    stored_hash: str,
) -> EvidenceCheck:
    """The probe asked again of the system as the probe stage builds it, fed the branch's events
    up to the probe's checkpoint: the evidence the reader was given, if nothing has changed."""
    why_not = not_recomputed(target.system)
    if why_not is not None:
        return EvidenceCheck(None, False, None, stored_hash, why_not)
    world = load(world_dir, with_events=False)
    memory = system_for(world, world_dir, run_world_dir, target.branch, target.system, None)
    one_probe = _where(
        probes, item_id=target.item_id, checkpoint=target.checkpoint, kind=target.kind
    )
    (asked,) = drive(
        memory,
        public_view(table_to_events(events)),
        world.timeline.checkpoints[: target.checkpoint + 1],
        questions(one_probe, world.items),
    )
    # The reader hashes a blocked probe's evidence as empty, so the comparison does too.
    shown = asked.evidence or ()
    blocked = asked.evidence is None
    note = "the system refused this agent the item (blocked), so the reader saw nothing"
    return EvidenceCheck(
        asked.evidence, blocked, evidence_hash(shown), stored_hash, note if blocked else ""
    )


def _score(scores_path: Path, probe: Row, answer: Row) -> ScoreFacts:
    if scores_path.exists():
        rows = _rows(
            read_table(scores_path, schemas.SCORES),
            probe_id=answer["probe_id"],
            system=answer["system"],
        )
        if rows:
            return ScoreFacts(rows[0]["correct"], rows[0]["reason"], None)
        why = f"{scores_path} has no row for this answer"
    else:
        why = f"{scores_path} is missing"
    result = score_answer(probe, answer)
    return ScoreFacts(result.correct, result.reason, why)


# ---- pure parts -------------------------------------------------------------------------------


def no_system(target: Target, branch_dir: Path, present: Sequence[str]) -> str:
    there = (
        f"; systems answered there: {', '.join(present)}"
        if present
        else f" ({branch_dir} has none)"
    )
    return f"no system {target.system} on {target.where}{there}"


def find_probe(probes: Sequence[Row], target: Target) -> Row:
    """The item's probe at the target checkpoint, or an error naming the checkpoints probed."""
    mine = [p for p in probes if p["item_id"] == target.item_id and p["kind"] == target.kind]
    for probe in mine:
        if probe["checkpoint"] == target.checkpoint:
            return probe
    if not mine:
        close = difflib.get_close_matches(target.item_id, sorted({p["item_id"] for p in probes}))
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise MemshiftError(
            f"no {target.kind} probe for item {target.item_id} on {target.where}{hint}"
        )
    probed = ", ".join(str(k) for k in sorted(p["checkpoint"] for p in mine))
    raise MemshiftError(
        f"no {target.kind} probe for item {target.item_id} at checkpoint {target.checkpoint} on "
        f"{target.where}; "
        f"probed checkpoints: {probed}"
    )


def dependencies(deps: Sequence[tuple[str, int]], events: pa.Table) -> tuple[Dependency, ...]:
    """Each dependency with its record's text at that revision."""
    wanted = set(deps)
    columns = (events.column(n).to_pylist() for n in ("object_id", "revision", "op", "text"))
    texts = {
        (oid, rev): text
        for oid, rev, op, text in zip(*columns, strict=True)
        # a deletion also takes a revision, with no text
        if (oid, rev) in wanted and op in ("insert", "update")
    }
    return tuple(Dependency(oid, rev, texts.get((oid, rev))) for oid, rev in deps)


def probe_facts(probe: Row, deps: tuple[Dependency, ...]) -> ProbeFacts:
    return ProbeFacts(
        probe["probe_id"],
        probe["question"],
        probe["agent"],
        probe["time"],
        probe["definition_version"],
        probe["gold_status"],
        probe["gold_value"],
        probe["changed"],
        probe["caused_by_shift"],
        probe["clock_alone"],
        probe["last_change"],
        probe["sampled"],
        deps,
        probe["premise_value"],
    )


def holdmem_trace(
    detection_system: str,
    repair: str,
    writes: Sequence[Row],
    maintenance: Sequence[Row],
    served: Sequence[Row],
    store: Sequence[Row],
    checkpoint: int,
    last_change: int,
) -> HoldMemTrace:
    """One item of a HoldMem cell up to a checkpoint; rows are already the item's."""
    keys = {m["write_id"]: m["key_after"] for m in maintenance if m["write_id"]}
    upto = [m for m in maintenance if m["checkpoint"] <= checkpoint]
    return HoldMemTrace(
        detection_system,
        repair,
        tuple(
            StoredWrite(
                w["write_id"],
                w["checkpoint"],
                w["kind"],
                w["value"],
                w["statement"],
                tuple((c["object_id"], c["revision"]) for c in w["citations"]),
                w["failure"],
                keys.get(w["write_id"]),
            )
            for w in sorted(writes, key=_by_checkpoint)
            if w["checkpoint"] <= checkpoint
        ),
        tuple(s["write_id"] for s in served),
        tuple(MaintenanceRow(**m) for m in sorted(upto, key=_by_checkpoint)),
        detect(upto, last_change, checkpoint),
        tuple(
            StoreRow(s["position"], s["write_id"], s["origin"], s["check"], s["value"], s["text"])
            for s in sorted(store, key=lambda s: s["position"])
        ),
    )


def _by_checkpoint(row: Row) -> int:
    return int(row["checkpoint"])


def detect(maintenance: Sequence[Row], last_change: int, checkpoint: int) -> Detection:
    """Detected for this item-time: invalidated at some checkpoint from its last change (the
    first checkpoint after the fork at the earliest) up to the probe's checkpoint."""
    first = max(last_change, 1)
    hits = sorted(
        (m for m in maintenance if m["invalidated"] and first <= m["checkpoint"] <= checkpoint),
        key=_by_checkpoint,
    )
    if not hits:
        return Detection(first, checkpoint, None, "")
    return Detection(first, checkpoint, hits[0]["checkpoint"], hits[0]["reason"])


def not_recomputed(system: str) -> str | None:
    """Why the evidence of `system` is not recomputed here, or None if it is."""
    if system in ("bm25", "oracle") or paths.cell_parts(system):
        return None
    if system == "rag":
        return "rag ranks records with a dense embedding model; its evidence is not recomputed here"
    return (
        f"{system} is a custom system whose class is not recorded beside its answers; "
        "its evidence is not recomputed here"
    )


# ---- rendering --------------------------------------------------------------------------------


def render(e: Explanation) -> str:
    t = e.target
    title = (
        f"memshift explain: world {t.world}, branch {t.branch}, system {t.system}, "
        f"item {t.item_id}, checkpoint {t.checkpoint}"
    )
    sections = [
        _section("Probe", _probe_lines(e.probe)),
        _section(f"Gold dependencies ({len(e.probe.dependencies)})", _dep_lines(e.probe)),
    ]
    if e.holdmem is not None:
        sections += _holdmem_sections(e.holdmem, t, e.probe.changed)
    sections += [
        _section(
            "Evidence the reader saw",
            _evidence_lines(e.evidence, e.probe.dependencies, records=e.holdmem is None),
        ),
    ]
    if e.audit is not None:
        sections.append(_section("Answer-level audit", _audit_lines(e.audit)))
    sections += [
        _section("Answer", _answer_lines(e.answer)),
        _section("Score", _score_lines(e.score)),
    ]
    return "\n\n".join([f"{title}\n{'=' * len(title)}", *sections]) + "\n"


def _section(title: str, lines: Sequence[str]) -> str:
    return "\n".join([title, "-" * len(title), *lines])


def short(text: str, width: int = SHORT_TEXT) -> str:
    """One line of at most `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _or_dash(value: object) -> str:
    return "-" if value is None or value == "" else str(value)


def _probe_lines(p: ProbeFacts) -> list[str]:
    return [
        f"probe       {p.probe_id}",
        f"question    {p.question}",
        f"agent       {p.agent}, definition version {p.definition_version}, time {p.time}",
        f"gold        {p.gold_status} {_or_dash(p.gold_value)}",
        f"changed {_yes(p.changed)}, caused by shift {_yes(p.caused_by_shift)}, "
        f"clock alone {_yes(p.clock_alone)}, last change at checkpoint {p.last_change}, "
        f"sampled {_yes(p.sampled)}",
        *([f"presupposes {p.premise_value} (the value at the fork)"] if p.premise_value else []),
    ]


def _dep_lines(p: ProbeFacts) -> list[str]:
    if not p.dependencies:
        return ["none (gold depends on no record)"]
    return [
        f"{d.object_id} r{d.revision}: "
        + ("(no insert or update holds this revision)" if d.text is None else short(d.text))
        for d in p.dependencies
    ]


def _write_lines(w: StoredWrite) -> list[str]:
    failure = f", failure {w.failure}" if w.failure else ""
    lines = [
        f"{w.write_id}  (checkpoint {w.checkpoint}, {w.kind}) value {_or_dash(w.value)}{failure}",
        f"    statement: {short(w.statement)}",
    ]
    if w.cited:
        lines.append(f"    cites: {', '.join(f'{o} r{r}' for o, r in w.cited)}")
    if w.key:
        lines.append(f"    key: {w.key}")
    return lines


def _maintenance_lines(m: MaintenanceRow) -> list[str]:
    parts = [f"invalidated {_yes(m.invalidated)}"]
    if m.reason:
        parts.append(f"reason: {m.reason}")
    parts.append(f"re-derived {_yes(m.rederived)}" + (f" ({m.write_id})" if m.write_id else ""))
    keys = (
        [f"    key unchanged: {m.key_after}"]
        if m.key_before == m.key_after
        else [f"    key before: {m.key_before}", f"    key after:  {m.key_after}"]
    )
    return [f"checkpoint {m.checkpoint}: {', '.join(parts)}", *keys]


def _detection_lines(d: Detection, checkpoint: int, changed: bool) -> list[str]:
    unchanged = [] if changed else ["(this item-time's gold is unchanged since the fork)"]
    if d.first > d.last:
        return [f"not detected: no checkpoint after the fork up to checkpoint {checkpoint}"]
    verdict = (
        f"detected: invalidated at checkpoint {d.at} ({d.reason})"
        if d.at is not None
        else f"not detected: not invalidated at checkpoints {d.first}..{d.last}"
    )
    return [
        verdict,
        f"(an invalidation counts from checkpoint max(last change, 1) = {d.first} to {d.last})",
        *unchanged,
    ]


def _store_lines(s: StoreRow) -> list[str]:
    return [
        f"[{s.position}] {s.write_id}  origin {s.origin}, check {s.check}, "
        f"value {_or_dash(s.value)}",
        f"    {s.text}",
    ]


def _holdmem_sections(h: HoldMemTrace, t: Target, changed: bool) -> list[str]:
    k = t.checkpoint
    return [
        _section(
            f"HoldMem writes up to checkpoint {k} ({h.detection_system}, shared by every D arm)",
            [line for w in h.writes for line in _write_lines(w)] or ["none"],
        ),
        _section(f"Served at checkpoint {k} before repair", [", ".join(h.served) or "nothing"]),
        _section(
            f"Maintenance up to checkpoint {k}",
            [line for m in h.maintenance for line in _maintenance_lines(m)]
            or ["none (checkpoint 0 is the fork)"],
        ),
        _section("Detection for this item-time", _detection_lines(h.detection, k, changed)),
        _section(
            f"Repaired store at checkpoint {k} ({t.system}, D={h.repair})",
            [line for s in h.store for line in _store_lines(s)] or ["nothing stored"],
        ),
    ]


def _evidence_lines(e: EvidenceCheck, deps: Sequence[Dependency], *, records: bool) -> list[str]:
    """`records`: the evidence items are records, so gold dependencies among them are marked."""
    if e.items is None and not e.blocked:
        return [f"not recomputed: {e.note}", f"stored hash      {e.stored_hash}"]
    verdict = (
        "yes, this is the evidence the reader saw"
        if e.matches
        else "NO: the recomputed evidence differs from what the reader saw; the artifacts "
        "or the code changed since the probe stage ran"
    )
    lines = [
        f"recomputed hash  {e.recomputed_hash}",
        f"stored hash      {e.stored_hash}",
        f"hashes match     {verdict}",
    ]
    if e.blocked:
        return [*lines, e.note]
    items = e.items or ()
    # Records in evidence start with their header `[object_id rN | time] ` (record_header).
    headers = {f"[{d.object_id} r{d.revision} |" for d in deps} if records else set()
    is_dep = [any(text.startswith(h) for h in headers) for text in items]
    among = f"; {sum(is_dep)} of {len(deps)} gold dependencies among them" if records else ""
    lines.append(f"{_count(len(items), 'item')}{among}")
    for n, (text, dep) in enumerate(zip(items, is_dep, strict=True), 1):
        lines.append(f"[{n}]{' (gold dependency)' if dep else ''}")
        lines += [f"    {line}" for line in text.splitlines()]
    return lines


def _answer_lines(a: AnswerFacts) -> list[str]:
    return [
        f"status      {a.status}",
        f"value       {_or_dash(a.value)}",
        f"failure     {_or_dash(a.failure)}",
        f"evidence    {_count(a.evidence_items, 'item')}, {_count(a.evidence_tokens, 'token')}",
    ]


def _audit_lines(a: AnswerAudit) -> list[str]:
    lines = [f"draft of {a.audited}: {a.draft.status} {_or_dash(a.draft.value)}"]
    if a.draft.status != "answer" or a.draft.value is None:
        return [*lines, "not audited: the draft has no value"]
    if not a.rows:
        return [
            *lines,
            "no transition: no record states the draft's value, none is newer, or "
            "the auditor proposed nothing; the draft stands",
        ]
    for r in a.rows:
        decided = "verified" if r["accepted"] else f"refused: {r['reason']}"
        lines.append(
            f"proposed {_or_dash(r['old_value'])} -> {_or_dash(r['new_value'])} "
            f"({r['old_entry'] or '?'} -> {r['new_entry'] or '?'}): {decided}"
        )
    verdict = a.rows[0]["verdict"]
    directive = {
        "STALE": "correct-and-inform: the answer becomes the newest verified value",
        "UNKNOWN": "verify: the draft stands and the user is asked",
    }.get(verdict, "none: the draft stands")
    return [*lines, f"verdict {verdict}; directive {directive}"]


def _score_lines(s: ScoreFacts) -> list[str]:
    verdict = f"{'correct' if s.correct else 'wrong'} ({s.reason})"
    where = "from scores.parquet" if s.scored_now is None else f"scored now: {s.scored_now}"
    return [verdict, where]
