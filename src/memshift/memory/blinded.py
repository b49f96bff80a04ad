"""Asking a system under test (a custom system): it follows the branch and is asked every public
probe (`memshift.probes.public`) under its public id, in public order; the shared reader then
answers the probes the measures count, in their own order and under their own ids, from the
evidence the system gave their public twins. The cover probes cost the system a `query` each
and no reader call, so the answers, the reader's calls and every measure are those of the
same system asked the counted probes alone, whenever its evidence does not depend on what else
it was asked. What the system does wrong fails the questions it bears on, not the job
(`under_test`): a counted probe whose twin's question failed is a failed answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

import pyarrow as pa

from memshift.memory.interface import MemorySystem, Question
from memshift.memory.reading import answer, drive, names_version, questions
from memshift.memory.under_test import UnderTest, legible_to_rules
from memshift.models.client import ModelClient
from memshift.probes.public import PublicProbe, public_of
from memshift.world.items import Item
from memshift.world.records import PublicEvent


def asked_questions(
    shown: Sequence[PublicProbe], items: Sequence[Item]
) -> list[tuple[int, Question]]:
    """Each public probe as the system sees it, with its checkpoint, in the order asked."""
    by_id = {i.item_id: i for i in items}
    out = []
    for s in shown:
        p = s.probe
        # one row in the probes table's columns, so the version is named as for a counted probe
        row = {"kind": [p.kind], "item_id": [p.point.item.item_id],
               "definition_text": [p.definition_text]}  # fmt: skip
        version = p.point.gold.version if names_version(row, 0, by_id) else None
        question = Question(
            s.public_id,
            by_id[p.point.item.item_id],
            version,
            p.point.time,
            p.point.item.agent,
            p.question,
        )
        out.append((s.checkpoint, question))
    return out


def answer_blinded(
    memory: MemorySystem,
    events: Sequence[PublicEvent],
    checkpoints: Sequence[datetime],
    probes: pa.Table,
    shown: Sequence[PublicProbe],
    items: Sequence[Item],
    reader: ModelClient,
    *,
    world: int,
    branch: str,
    system: str,
    ingested: Callable[[int], None] | None = None,
) -> pa.Table:
    """`memory` follows the branch and is asked `shown`; the reader answers `probes` (the
    counted ones, each among `shown`), as `reading.answer_branch` would."""
    legible = legible_to_rules if reader.profile.backend == "rules" else None
    followed = drive(
        UnderTest(memory, system, legible),
        events,
        checkpoints,
        asked_questions(shown, items),
        reader.profile,
        ingested,
    )
    by_id = {a.question.probe_id: a for a in followed}
    twin = public_of(list(shown))
    # in the order `drive` would have asked them: checkpoint by checkpoint, as listed
    ordered = sorted(questions(probes, items), key=lambda asked: asked[0])
    counted = [
        replace(by_id[twin[question.probe_id]], question=question, checkpoint=k)
        for k, question in ordered
    ]
    return answer(
        counted, reader, world=world, branch=branch, system=system, run=reader.profile.name
    )
