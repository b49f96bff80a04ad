"""One item through a writer switch, from the switch's artifacts: why the cell invalidated it,
what the old and the new writer wrote, what the repair arm made of the new write, and the fork
probe's answer before and after with its score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.explain.render import short
from memshift.layout import Study
from memshift.scoring.scorer import score_answer
from memshift.vocabulary import UNSHIFTED, cell_parts, detection_system


def _rows(path: Path, schema: Any, what: str, **equal: object) -> list[dict[str, Any]]:
    if not path.is_file():
        raise MemshiftError(f"no {what} at {path}: has the switch run?")
    return [
        row
        for row in read_table(path, schema).to_pylist()
        if all(row[k] == v for k, v in equal.items())
    ]


def explain_switch(study: Study, world: int, switch: str, system: str, item_id: str) -> str:
    parts = cell_parts(system)
    if parts is None:
        raise MemshiftError(f"{system!r} is not a HoldMem cell; a switch has only those")
    out = layout.switch_dir(study.run_world(world), switch)
    if not out.is_dir():
        raise MemshiftError(f"no switch {switch!r} for world {world} under {out.parent}")
    detection = out / detection_system(parts[1])
    maintenance = _rows(
        layout.table(detection, layout.MAINTENANCE),
        schemas.MAINTENANCE,
        "maintenance log",
        item_id=item_id,
        checkpoint=1,
    )
    if not maintenance:
        raise MemshiftError(f"item {item_id!r} is not an item of world {world}")
    writes = _rows(
        layout.table(detection, layout.WRITES), schemas.WRITES, "writes", item_id=item_id
    )
    checks = _rows(
        layout.table(out / system, layout.SWITCH_CHECKS),
        schemas.SWITCH_CHECKS,
        "repair checks",
        item_id=item_id,
    )
    probes = {
        p["probe_id"]: p
        for p in read_table(
            layout.probes(study.world(world), UNSHIFTED), schemas.PROBES
        ).to_pylist()
    }
    answers = {}
    for when, directory in (("before", out / layout.BEFORE), ("after", out / system)):
        found = _rows(
            layout.table(directory, layout.ANSWERS), schemas.ANSWERS, "answers", item_id=item_id
        )
        answers[when] = found[0] if found else None
    m = maintenance[0]
    lines = [
        f"memshift explain: world {world}, switch {switch}, system {system}, item {item_id}",
        "",
        "Maintenance at the switch",
        f"  invalidated: {'yes' if m['invalidated'] else 'no'}; reason: {m['reason'] or '-'}",
        f"  key before: {m['key_before']}",
        f"  key after:  {m['key_after']}",
        "",
        "Writes",
    ]
    for w in writes:
        who = "old writer, before the fork" if w["checkpoint"] == 0 else "new writer, at the switch"
        lines.append(f"  {w['write_id']} ({who}): value {w['value']}; {short(w['statement'])}")
    lines += ["", "Repair arm"]
    if checks:
        c = checks[0]
        lines.append(f"  check: {c['check']}; served: {'yes' if c['served'] else 'no'}")
    else:
        lines.append("  nothing re-derived: the cell serves what the old writer wrote")
    lines += ["", "Fork probe"]
    correct: dict[str, bool] = {}
    for when, answer in answers.items():
        if answer is None:
            lines.append(f"  {when}: no answer")
            continue
        verdict = score_answer(probes[answer["probe_id"]], answer)
        correct[when] = verdict.correct
        lines.append(
            f"  {when}: {answer['status']} {answer['value']} -> "
            f"{'correct' if verdict.correct else 'wrong'} ({verdict.reason})"
        )
    if correct.get("before"):
        lines.append(f"  survived: {'yes' if correct.get('after') else 'no'}")
    else:
        lines.append("  survival: undefined (wrong before the switch)")
    return "\n".join(lines) + "\n"
