"""Stage `answer_audit`: one system's answers on a branch audited before scoring, written as the
answers of the system `<system>+audit`, with every proposed transition and gate decision."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.audit.answers import (
    Draft,
    answer_json,
    answers_requests,
    draft_value,
    evidence_at,
)
from memshift.audit.arbiter import REPAIR, AuditRow, audit_log, judge
from memshift.errors import MemshiftError
from memshift.gold.evaluator import Value
from memshift.memory.write_tables import audits_to_table
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.replies import Reply
from memshift.models.requests import AnswersAuditRequest, CallContext
from memshift.probes.build import HELD, UNNAMED, measured
from memshift.probes.sample import ProbeSample, sample_world
from memshift.probes.sampled import sample_probes
from memshift.retrieval.budgets import evidence_budget
from memshift.stages.specs import AnswerAuditJob
from memshift.vocabulary import audited_system, in_order
from memshift.world.items import Item
from memshift.world.stored import load, load_public_events

# A blocked answer (consent revoked) or a failed call is never audited: a repair would answer
# what the system may not, or hide the failure.
AUDITED_STATUSES = ("answer", "abstain")
UNAUDITED_KINDS = (UNNAMED, HELD)


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    profile: Profile,
    cache_dir: Path | None,
    variant: str = "full",
) -> tuple[int, int]:
    """Audit `system`'s answers on `branch` to the probes the measures count (a system that
    answers every unshifted item-time is audited on the same ones as any other), abstentions
    included (never a blocked or failed answer), under the audit `variant`; return (answers,
    repaired). An unnamed probe's answer is kept as given: its question names no definition,
    and the audit's request would have to name one; so is a held probe's, which repeats a
    direct probe for the failure-mode measures only."""
    return run_audits(world_dir, run_world_dir, branch, [(system, variant)], profile, cache_dir)[0]


def run_audits(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    audits: Sequence[tuple[str, str]],
    profile: Profile,
    cache_dir: Path | None,
    calls: CallLog | None = None,
    sample: ProbeSample | None = None,
    batch: int = 1,
) -> list[tuple[int, int]]:
    """`run` for each (system, variant) of `audits` on one branch: the branch is read once,
    each probe's evidence is selected once for every audit that drafts it, and the audits'
    calls about one item at one time go out side by side (`ModelClient.generate_side_by_side`).
    The calls go to `calls` where a job keeps one log, else to each audit's own. A sampled
    study audits the answers to the probes its sample asks. One call audits up to `batch` of a
    system's answers about one item at one time."""
    world = sample_world(load(world_dir, with_events=False), sample)
    items = {i.item_id: i for i in world.items}
    every = sample_probes(
        read_table(layout.probes(world_dir, branch), schemas.PROBES), world, branch, sample
    )
    probes = {p["probe_id"]: p for p in measured(every).to_pylist()}
    known = set(every.column("probe_id").to_pylist())
    drafted = [_drafts(world_dir, run_world_dir, branch, system, probes, known, items)
               for system, _ in audits]  # fmt: skip
    evidence = evidence_at(
        load_public_events(world_dir, branch),
        list({d.probe_id: d for _, drafts in drafted for d in drafts}.values()),
        evidence_budget(profile, "auditor", batch),
    )
    names = [audited_system(system, variant) for system, variant in audits]
    plans = [
        answers_requests(drafts, evidence, _context(profile, world.seed, branch, name), variant,
                         batch)
        for name, (_, variant), (_, drafts) in zip(names, audits, drafted, strict=True)
    ]  # fmt: skip
    log = calls if calls is not None else CallLog()
    auditor = ModelClient(profile, cache_dir=cache_dir, log=log)
    # the calls about one item as of one time read the same records
    replies = auditor.generate_side_by_side(
        [[request.sent for request, _ in plan] for plan in plans],
        lambda r: (r.item.item_id, r.version, r.as_of),  # type: ignore[attr-defined]
    )
    counts = [
        _write(run_world_dir, branch, name, variant, answers, drafts, plan, replies[a])
        for a, (name, (_, variant), (answers, drafts), plan) in enumerate(
            zip(names, audits, drafted, plans, strict=True)
        )
    ]
    if calls is None:
        for name in names:
            out = layout.system_dir(run_world_dir, branch, name)
            log.write(layout.table(out, layout.AUDITOR_CALLS), system=name)
    return counts


def _context(profile: Profile, seed: int, branch: str, name: str) -> Callable[[Draft], CallContext]:
    def context(draft: Draft) -> CallContext:
        return CallContext(profile.name, seed, branch, name, draft.item.item_id, draft.checkpoint)

    return context


def _drafts(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    probes: dict[str, dict[str, Any]],
    known: set[str],
    items: dict[str, Item],
) -> tuple[list[dict[str, Any]], list[Draft]]:
    """A system's answers to the measured probes, and the drafts the audit reviews."""
    answers_path = layout.table(layout.system_dir(run_world_dir, branch, system), layout.ANSWERS)
    answered = read_table(answers_path, schemas.ANSWERS).to_pylist()
    unknown = [a["probe_id"] for a in answered if a["probe_id"] not in known]
    if unknown:
        raise MemshiftError(
            f"{answers_path}: {len(unknown)} answer(s) to probes not in "
            f"{layout.probes(world_dir, branch)}, e.g. {unknown[0]}"
        )
    answers = [a for a in answered if a["probe_id"] in probes]
    drafts = [
        Draft(
            a["probe_id"],
            a["checkpoint"],
            probes[a["probe_id"]]["time"],
            items[a["item_id"]],
            probes[a["probe_id"]]["definition_version"],
            draft_value(a["value"] if a["status"] == "answer" else None),
            probes[a["probe_id"]]["question"],
        )
        for a in answers
        if a["status"] in AUDITED_STATUSES and probes[a["probe_id"]]["kind"] not in UNAUDITED_KINDS
    ]
    return answers, drafts


def _write(
    run_world_dir: Path,
    branch: str,
    name: str,
    variant: str,
    answers: list[dict[str, Any]],
    drafts: list[Draft],
    plan: Sequence[tuple[AnswersAuditRequest, tuple[str, ...]]],
    replies: Sequence[Reply],
) -> tuple[int, int]:
    """The audit `name` of one system's drafts, from the replies to its calls (by their place
    in `plan`), written as its answers and its audit log."""
    repaired: dict[str, Value] = {}
    logged: dict[str, list[AuditRow]] = {}
    for n, (request, probe_ids) in enumerate(plan):
        reply = replies[n]
        # a failed call leaves each of its answers unaudited, as drafted
        audits = request.audits(reply.value if reply.ok else None)
        for k, probe_id in enumerate(probe_ids):
            audit = judge(request.alone(k), audits[k])
            if audit.verdict.directive == REPAIR:
                repaired[probe_id] = audit.verdict.current
            logged[probe_id] = audit_log(
                request.item.item_id, request.context.checkpoint, audit, variant, probe_id
            )
    audit_rows = [row for d in drafts for row in logged.get(d.probe_id, [])]
    out = layout.system_dir(run_world_dir, branch, name)
    rows = [
        {**a, "system": name, **corrected(repaired[a["probe_id"]])}
        if a["probe_id"] in repaired
        else {**a, "system": name}
        for a in answers
    ]
    answers_table = pa.Table.from_pylist(rows, schema=schemas.ANSWERS)
    write_table(answers_table, schemas.ANSWERS, layout.table(out, layout.ANSWERS))
    write_table(
        audits_to_table(audit_rows), schemas.AUDITS, layout.table(out, layout.ANSWER_AUDITS)
    )
    return len(rows), len(repaired)


def corrected(value: Value) -> dict[str, str | None]:
    """A repaired answer: the current value, or an abstention where there is none."""
    if value is None:
        return {"status": "abstain", "value": None}
    return {"status": "answer", "value": answer_json(value)}


def run_job(job: AnswerAuditJob) -> None:
    """The answer audits of a world's branches (`AnswerAuditJob`), the auditor's calls in the
    job's one log, written once every branch is done."""
    auditor = job.access.profile("auditor")
    audits = job.audits()
    calls = CallLog()
    for branch in in_order(job.branches):
        counts = run_audits(
            job.world, job.run, branch, audits, auditor, job.access.cache, calls, job.sample,
            job.batch,
        )  # fmt: skip
        for (system, variant), (n, repaired) in zip(audits, counts, strict=True):
            name = audited_system(system, variant)
            print(f"{job.world.name} {branch} {name}: {n} answers, {repaired} repaired",
                  file=sys.stderr)  # fmt: skip
    calls.write(job.calls)
