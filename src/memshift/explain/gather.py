"""Gathering one score's story from a study's artifacts into records: the probe and its gold
dependencies, what a HoldMem cell stored, maintained and repaired for the item, the evidence the
reader saw (recomputed and checked against the stored hash), the answer and its score."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.intake.reading import schema_field
from memshift.layout import Study
from memshift.memory.holdmem import MaintenanceRow
from memshift.memory.interface import SystemInputs
from memshift.memory.named import system_for
from memshift.memory.reading import drive, evidence_hash, questions
from memshift.scoring.scorer import score_answer
from memshift.vocabulary import BASELINES, HOLDMEM, audited_base, cell_parts, detection_system
from memshift.world.records import public_view
from memshift.world.stored import load
from memshift.world.tables import table_to_events

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Target:
    world: int
    branch: str
    system: str
    item_id: str
    checkpoint: int
    # the item-time's probe of that kind: "direct", "premise" or "implicit"
    kind: str = "direct"
    # the study's `consent.read_set`, with which the probe stage built a B=1 cell
    read_set: str = schema_field("consent.read_set")

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
class ModelCall:
    """One logged call the answer depends on (a row of a call log, `schemas.CALLS`)."""

    role: str
    system: str
    checkpoint: int | None
    cache_hit: bool
    tokens_in: int
    tokens_out: int
    failure: str | None
    detail: str
    raw: str  # the text the model sent, when the log keeps it


@dataclass(frozen=True)
class Explanation:
    target: Target
    probe: ProbeFacts
    holdmem: HoldMemTrace | None
    evidence: EvidenceCheck
    answer: AnswerFacts
    score: ScoreFacts
    audit: AnswerAudit | None = None
    calls: tuple[ModelCall, ...] = ()


# ---- gathering from the artifacts -------------------------------------------------------------


def explain(study: Study, target: Target) -> Explanation:
    """Everything about one answer of one system, read from a study's artifacts (its worlds and
    its run, `layout.py`)."""
    world_dir = study.world(target.world)
    if not world_dir.is_dir():
        raise MemshiftError(f"no world {target.world} under {study.worlds}")
    run_world_dir = study.run_world(target.world)
    system_dir = layout.system_dir(run_world_dir, target.branch, target.system)
    if not system_dir.is_dir():
        raise MemshiftError(
            no_system(target, run_world_dir, _answered_systems(run_world_dir, target.branch))
        )
    probes = _read(
        layout.probes(world_dir, target.branch), schemas.PROBES, f"probes on {target.where}"
    )
    probe = find_probe(probes.to_pylist(), target)
    gold = _read(layout.gold(world_dir, target.branch), schemas.GOLD, f"gold on {target.where}")
    gold_row = _one(
        _rows(gold, item_id=target.item_id, checkpoint=target.checkpoint),
        f"gold-{target.branch}.parquet has no row for {probe['probe_id']}",
    )
    events = _read(
        layout.events(world_dir, target.branch), schemas.EVENTS, f"events on {target.where}"
    )
    deps = [(d["object_id"], d["revision"]) for d in gold_row["deps"]]
    answer = _answer_row(system_dir, target.system, probe["probe_id"])
    # An audited system answers with its audited system's evidence, memory and draft.
    base = audited_base(target.system)
    drafted = target if base is None else replace(target, system=base)
    audit = None
    if base is not None:
        base_dir = layout.system_dir(run_world_dir, target.branch, base)
        log = layout.table(system_dir, layout.ANSWER_AUDITS)
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
        _score(study.scores, probe, answer),
        audit,
        tuple(item_calls(_call_rows(run_world_dir), target)),
    )


def _call_rows(run_world_dir: Path) -> list[dict[str, Any]]:
    """Every row of the call logs of a world's run (the pre-fork store's, each job's, each
    system's), not those of a writer switch or the sync study, whose calls serve other answers.
    A log written before a column was added lacks it."""
    other = {layout.switch_dir(run_world_dir, "-").parent, layout.sync_dir(run_world_dir)}
    rows: list[dict[str, Any]] = []
    for path in sorted(run_world_dir.rglob("calls*.parquet")):
        if not other & set(path.parents):
            rows += pq.read_table(path).to_pylist()
    return rows


def _answer_row(system_dir: Path, system: str, probe_id: str) -> Row:
    path = layout.table(system_dir, layout.ANSWERS)
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


def _answered_systems(run_world_dir: Path, branch: str) -> list[str]:
    """The systems with answers on a branch: in the jobs' folders and in their own."""
    return sorted(
        system.name
        for system in [*run_world_dir.glob(f"{branch}/*/"), *run_world_dir.glob(f"*/{branch}/*/")]
        if layout.system_dir(run_world_dir, branch, system.name) == system
        and layout.table(system, layout.ANSWERS).exists()
    )


def _holdmem(run_world_dir: Path, target: Target, last_change: int) -> HoldMemTrace | None:
    cell = cell_parts(target.system)
    if cell is None:
        return None
    repair, detection = cell
    writer = detection_system(detection)
    source = layout.detection_dir(run_world_dir, target.branch, writer)
    of = f"{writer} on {target.where}"
    item, k = target.item_id, target.checkpoint
    return holdmem_trace(
        writer,
        repair,
        _rows(
            _read(layout.table(source, layout.WRITES), schemas.WRITES, f"writes of {of}"),
            item_id=item,
        ),
        _rows(
            _read(
                layout.table(source, layout.MAINTENANCE),
                schemas.MAINTENANCE,
                f"maintenance of {of}",
            ),
            item_id=item,
        ),
        _rows(
            _read(layout.table(source, layout.SERVED), schemas.SERVED, f"served items of {of}"),
            item_id=item,
            checkpoint=k,
        ),
        _rows(
            _read(
                layout.cell_store(run_world_dir, target.branch, target.system),
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
    inputs = SystemInputs(
        world_dir,
        run_world_dir,
        target.branch,
        target.system,
        tuple(world.timeline.checkpoints),
        read_set=target.read_set,
    )
    memory = system_for(inputs, None)
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


def no_system(target: Target, run_world_dir: Path, present: Sequence[str]) -> str:
    there = (
        f"; systems answered there: {', '.join(present)}"
        if present
        else f" ({run_world_dir} has no answers on branch {target.branch})"
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


def answered_by(system: str) -> tuple[str, ...]:
    """The callers (call-log systems) whose calls an answer of `system` depends on, as the
    report's failures table counts them: its own; an audited system's audited system; a HoldMem
    cell's detection and the pre-fork store."""
    base = audited_base(system) or system
    callers = [system, base]
    cell = cell_parts(base)
    if cell is not None:
        callers += [detection_system(cell[1]), HOLDMEM]
    return tuple(dict.fromkeys(callers))


# the roles whose calls answer one item-time (the reader's and an answer-level audit's); other
# roles' calls on the item build what the answer reads, up to its checkpoint
ANSWERING = ("reader", "auditor")
# the order in which a checkpoint's calls happen: what is written, then the answer and its audit
CALL_ORDER = {"writer": 0, "program": 1, "reader": 2, "auditor": 3}


def item_calls(rows: Sequence[Row], target: Target) -> list[ModelCall]:
    """The logged calls behind one answer: on its item, by a caller it depends on, on its
    branch (the pre-fork store's on any), the answering roles' at its checkpoint and the
    others' up to it; by checkpoint, then in the order a checkpoint makes them."""
    callers = answered_by(target.system)
    picked = []
    for r in rows:
        k = r["checkpoint"]
        if (
            r["world"] != target.world
            or r["item"] != target.item_id
            or r["system"] not in callers
            or (r["branch"] != target.branch and r["system"] != HOLDMEM)
            or k is None
            or (k != target.checkpoint if r["role"] in ANSWERING else k > target.checkpoint)
        ):
            continue
        picked.append(
            ModelCall(
                r["role"],
                r["system"],
                k,
                bool(r["cache_hit"]),
                int(r["tokens_in"] or 0),
                int(r["tokens_out"] or 0),
                r["failure"] or None,
                r["detail"] or "",
                r.get("raw") or "",
            )
        )
    return sorted(picked, key=lambda c: (c.checkpoint or 0, CALL_ORDER.get(c.role, 0)))


def not_recomputed(system: str) -> str | None:
    """Why the evidence of `system` is not recomputed here, or None if it is."""
    if system in ("bm25", "oracle") or cell_parts(system):
        return None
    if system == "rag":
        return "rag ranks records with a dense embedding model; its evidence is not recomputed here"
    if system in BASELINES:
        return (
            f"{system} is a baseline whose evidence explain does not recompute (it recomputes "
            "bm25's, the oracle's and HoldMem cells')"
        )
    return (
        f"{system} is a custom system whose class is not recorded beside its answers; "
        "its evidence is not recomputed here"
    )
