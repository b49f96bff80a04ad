"""Asking: every probe goes to the system, its evidence is packed into the reader's budget, and
one shared reader call answers it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa

from memshift import schemas
from memshift.memory.interface import Blocked, MemorySystem, Question
from memshift.memory.under_test import FAILURE as QUERY_FAILURE
from memshift.memory.under_test import QueryFailed, log_failed_question
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.replies import Reply
from memshift.models.requests import CallContext, ReaderRequest
from memshift.probes.build import UNNAMED
from memshift.retrieval.budgets import evidence_budget, label_tokens
from memshift.retrieval.selection import pack_evidence
from memshift.tokens import count_tokens
from memshift.world.items import Item
from memshift.world.records import PublicEvent


@dataclass(frozen=True)
class Asked:
    question: Question
    checkpoint: int
    evidence: tuple[str, ...] | None  # None: blocked, or the query failed
    failure: str | None = None  # why the query failed (`under_test.QueryFailed`)


def questions(probes: pa.Table, items: Sequence[Item]) -> list[tuple[int, Question]]:
    """Each probe as a memory and the reader see it; a question about a definition item that
    names no definition (an unnamed probe, any probe of an unstated redefinition) carries no
    version either."""
    by_id = {i.item_id: i for i in items}
    c = probes.to_pydict()
    return [
        (
            c["checkpoint"][n],
            Question(
                c["probe_id"][n],
                by_id[c["item_id"][n]],
                c["definition_version"][n] if names_version(c, n, by_id) else None,
                c["time"][n],
                c["agent"][n],
                c["question"][n],
            ),
        )
        for n in range(probes.num_rows)
    ]


def names_version(columns: dict[str, list], n: int, items: dict[str, Item]) -> bool:
    """Whether probe `n` of a probes table (as columns) names the definition version in effect."""
    if columns["kind"][n] == UNNAMED:
        return False
    return (
        not items[columns["item_id"][n]].is_definition or columns["definition_text"][n] is not None
    )


def events_fed(events: Sequence[PublicEvent], checkpoints: Sequence[datetime]) -> int:
    """How many of `events` `drive` feeds a system: those up to the last checkpoint."""
    return sum(1 for e in events if e.time <= checkpoints[-1]) if checkpoints else 0


def drive(
    system: MemorySystem,
    events: Sequence[PublicEvent],
    checkpoints: Sequence[datetime],
    asked: Sequence[tuple[int, Question]],
    reader: Profile | None = None,
    ingested: Callable[[int], None] | None = None,
) -> list[Asked]:
    """Feed the system each interval's events, then ask that checkpoint's probes; the evidence
    is packed into the budget of the `reader` that will read it. A system under test
    (`under_test.UnderTest`) may fail a question, which is then not read. `ingested` is told
    how many events each interval fed the system (progress)."""
    budget, per_item = evidence_budget(reader, "reader"), label_tokens(reader)
    out: list[Asked] = []
    previous: datetime | None = None
    for k, t in enumerate(checkpoints):
        interval = [e for e in events if (previous is None or e.time > previous) and e.time <= t]
        for e in interval:
            if e.op == "define":
                system.define(e.fields["item"], int(e.fields["version"]), e.fields["text"])
            elif e.op == "consent":
                system.consent(e.fields["agent"], e.fields["scope"], bool(e.fields["allowed"]))
        system.ingest(interval, t)
        if ingested is not None:
            ingested(len(interval))
        for checkpoint, question in asked:
            if checkpoint == k:
                reply = system.query(question)
                if isinstance(reply, QueryFailed):
                    out.append(Asked(question, k, None, reply.reason))
                    continue
                evidence = (
                    None if isinstance(reply, Blocked) else pack_evidence(reply, budget, per_item)
                )
                out.append(Asked(question, k, evidence))
        previous = t
    return out


def evidence_hash(evidence: Sequence[str]) -> str:
    return hashlib.sha256("\x1e".join(evidence).encode()).hexdigest()


def answer(
    asked: Sequence[Asked], reader: ModelClient, *, world: int, branch: str, system: str, run: str
) -> pa.Table:
    """Every question of `asked` read by `reader` (one batch): the system's answers."""
    requests = reader_requests(asked, world=world, branch=branch, system=system, run=run)
    replies = dict(zip(requests, reader.generate(list(requests.values())), strict=True))
    return answers_table(asked, replies, reader, world=world, branch=branch, system=system, run=run)


def reader_requests(
    asked: Sequence[Asked], *, world: int, branch: str, system: str, run: str
) -> dict[str, ReaderRequest]:
    """The reader's request for each question of `asked` that has evidence, by probe id, in
    order."""
    return {
        a.question.probe_id: ReaderRequest(
            a.question.item,
            a.question.version,
            a.question.time,
            a.question.question,
            a.evidence or (),
            CallContext(run, world, branch, system, a.question.item.item_id, a.checkpoint),
        )
        for a in asked
        if a.evidence is not None
    }


def answers_table(
    asked: Sequence[Asked],
    replies: Mapping[str, Reply],
    reader: ModelClient,
    *,
    world: int,
    branch: str,
    system: str,
    run: str,
) -> pa.Table:
    """The system's answers to `asked` from the reader's `replies` (by probe id); a question the
    system failed is logged in the reader's call log as such."""
    rows = schemas.empty_columns(schemas.ANSWERS)
    for a in asked:
        reply = replies.get(a.question.probe_id)
        if a.failure is not None:
            status, value, failure = "failed", None, f"{QUERY_FAILURE}: {a.failure}"
            context = CallContext(run, world, branch, system, a.question.item.item_id, a.checkpoint)
            log_failed_question(reader.log, context, a.failure)
        elif a.evidence is None:
            status, value, failure = "blocked", None, None
        elif reply is not None and reply.ok and reply.value is not None:
            status, value, failure = reply.value["status"], reply.value["value"], None
        else:
            status, value, failure = "failed", None, reply.failure if reply else "no reply"
        evidence = a.evidence or ()
        rows["probe_id"].append(a.question.probe_id)
        rows["world"].append(world)
        rows["branch"].append(branch)
        rows["system"].append(system)
        rows["checkpoint"].append(a.checkpoint)
        rows["item_id"].append(a.question.item.item_id)
        rows["status"].append(status)
        rows["value"].append(None if value is None else json.dumps(value))
        rows["failure"].append(failure)
        rows["evidence_items"].append(len(evidence))
        rows["evidence_tokens"].append(sum(count_tokens(t) for t in evidence))
        rows["evidence_hash"].append(evidence_hash(evidence))
    return pa.Table.from_pydict(rows, schema=schemas.ANSWERS)


def answer_branch(
    memory: MemorySystem,
    events: Sequence[PublicEvent],
    checkpoints: Sequence[datetime],
    probes: pa.Table,
    items: Sequence[Item],
    reader: ModelClient,
    *,
    world: int,
    branch: str,
    system: str,
    ingested: Callable[[int], None] | None = None,
) -> pa.Table:
    """Every probe of a branch asked of `memory` as it follows the branch (`ingested`: `drive`'s),
    answered by `reader`."""
    asked = drive(memory, events, checkpoints, questions(probes, items), reader.profile, ingested)
    return answer(asked, reader, world=world, branch=branch, system=system, run=reader.profile.name)
