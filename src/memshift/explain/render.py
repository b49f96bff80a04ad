"""The text `memshift explain` prints for one gathered explanation."""

from __future__ import annotations

from collections.abc import Sequence

from memshift.explain.gather import (
    AnswerAudit,
    AnswerFacts,
    Dependency,
    Detection,
    EvidenceCheck,
    Explanation,
    HoldMemTrace,
    ModelCall,
    ProbeFacts,
    ScoreFacts,
    StoredWrite,
    StoreRow,
    Target,
)
from memshift.memory.holdmem import MaintenanceRow

SHORT_TEXT = 160


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
        _section(f"Model calls ({len(e.calls)})", _call_lines(e.calls)),
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


RAW_TEXT = 2000  # characters of a failed call's raw reply shown


def _call_lines(calls: Sequence[ModelCall]) -> list[str]:
    """Each call behind the answer; a failed one with its reason, detail and the raw text the
    model sent (what the parser refused is what explains the failure)."""
    if not calls:
        return ["none logged for this item-time"]
    lines = []
    for c in calls:
        at = "" if c.checkpoint is None else f" at checkpoint {c.checkpoint}"
        how = "cache hit" if c.cache_hit else "server"
        outcome = f"FAILED: {c.failure}" if c.failure else "ok"
        lines.append(
            f"{c.role} of {c.system}{at} ({how}, {c.tokens_in} in, {c.tokens_out} out): {outcome}"
        )
        if c.failure:
            lines.append(f"    detail: {_or_dash(c.detail)}")
            if c.raw:
                raw = c.raw if len(c.raw) <= RAW_TEXT else c.raw[: RAW_TEXT - 1] + "…"
                lines.append("    raw reply:")
                lines += [f"        {line}" for line in raw.splitlines()]
            else:
                lines.append("    raw reply: - (none kept)")
    return lines


_DIRECTIVES = {
    "repair": "correct-and-inform: the answer becomes the current value",
    "verify": "verify: the draft stands and the user is asked",
}


def _audit_lines(a: AnswerAudit) -> list[str]:
    lines = [f"draft of {a.audited}: {a.draft.status} {_or_dash(a.draft.value)}"]
    verdicts = [r for r in a.rows if r["row"] == "verdict"]
    if not verdicts:
        return [*lines, "not audited: no evidence at the probe's time; the draft stands"]
    for r in a.rows:
        if r["row"] == "premise":
            lines.append(
                f"premise ({r['found_by']} pass) {r['premise']}: {r['premise_verdict']}"
                f", current {_or_dash(r['current_value'])}"
                f"{'' if r['material'] else ', not material'}"
            )
        elif r["row"] == "transition":
            decided = "verified" if r["accepted"] else f"refused: {r['reason']}"
            lines.append(
                f"proposed ({r['found_by'] or '?'} pass) {_or_dash(r['old_value'])} -> "
                f"{_or_dash(r['new_value'])} ({r['old_entry'] or '?'} -> "
                f"{r['new_entry'] or '?'}): {decided}"
            )
    v = verdicts[0]
    directive = _DIRECTIVES.get(v["directive"], "none: the draft stands")
    return [
        *lines,
        f"verdict {v['verdict']} from {v['source']} ({v['reason']}); directive {directive}",
    ]


def _score_lines(s: ScoreFacts) -> list[str]:
    verdict = f"{'correct' if s.correct else 'wrong'} ({s.reason})"
    where = "from scores.parquet" if s.scored_now is None else f"scored now: {s.scored_now}"
    return [verdict, where]
