"""The evidence contract of a custom system (docs/memory.md): `query` returns evidence the reader
can read. A memory written from the docs that returns its records with `evidence_line` is read
as the built-in systems' evidence is; one that returns plain text (which the rule-based reader
would skip, abstaining on every question) is refused on its first answer with the reason, before
the rest of its branch runs; so is a first answer of the wrong type."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from cellrun import public_events
from test_under_test import probed, reads

from conftest import world
from memshift.memory.interface import Question, evidence_line
from memshift.memory.under_test import ContractBroken, UnderTest, legible_to_rules
from memshift.models.requests import ReaderRequest
from memshift.simulator.reader import live_records, read
from memshift.world.parse import record_evidence
from memshift.world.records import LiveState
from pipeline.custom_memory import NewestRecords

SEED, BRANCH = 1002, "src"


class EveryLine(NewestRecords):
    """A memory as the docs describe one: it keeps the line of every event it was given
    (`evidence_line`) and answers with the newest lines of the item's sources."""

    def __init__(self, render=evidence_line) -> None:
        super().__init__()
        self.render = render
        self.lines: list[tuple[str, str]] = []  # (source, line)

    def ingest(self, events, now) -> None:
        super().ingest(events, now)
        self.lines += [
            (e.source, self.render(e)) for e in events if e.op in ("insert", "update", "delete")
        ]

    def query(self, question: Question) -> list[str]:
        super().query(question)
        return [line for source, line in self.lines if source in question.item.sources][-8:]


def plain_text(event) -> str:
    return event.text


def correct(answers: list[dict[str, Any]]) -> float:
    """The share of answers equal to the probe's gold (as the scorer reads an answer)."""
    branch_reads, _ = reads()
    gold = dict(
        zip(
            branch_reads.probes.column("probe_id").to_pylist(),
            zip(
                branch_reads.probes.column("gold_status").to_pylist(),
                branch_reads.probes.column("gold_value").to_pylist(),
                strict=True,
            ),
            strict=True,
        )
    )
    right = sum(
        (a["status"], a["value"]) == gold[a["probe_id"]] for a in answers if a["probe_id"] in gold
    )
    return right / len(answers)


def test_plain_text_is_refused_on_the_first_answer_naming_the_probe_and_the_text(tmp_path):
    memory = EveryLine(plain_text)
    with pytest.raises(ContractBroken) as refused:
        probed(memory, tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert "its first answer (query for probe " in message
    assert "none of its" in message and "evidence_line(event)" in message
    assert "docs/memory.md, The evidence contract" in message
    # refused at the first question, before the rest of the branch ran
    assert memory.asked == 1


def test_the_same_memory_with_the_helper_is_read_and_answers(tmp_path):
    answers, _ = probed(EveryLine(), tmp_path)
    # the old revisions and deletions it also returns do not make it worse than a memory of the
    # newest live records alone (which, read as plain text, would have abstained on everything)
    newest, _ = probed(NewestRecords(), tmp_path / "newest")
    assert correct(answers) >= correct(newest) - 0.05
    answered = sum(a["status"] == "answer" for a in answers)
    assert answered >= sum(a["status"] == "answer" for a in newest) > 0


@pytest.mark.parametrize(
    "reply, said",
    [
        ("a string", "query returned a str, not a list of strings or Blocked"),
        ([b"bytes"], "query returned item 0, a bytes, not a string"),
        (None, "query returned a NoneType"),
    ],
)
def test_a_first_answer_of_the_wrong_type_stops_the_job_naming_it(reply, said):
    class Wrong(NewestRecords):
        def query(self, question):
            return reply

    question = Question("p-1", world(SEED).items[0], 1, world(SEED).timeline.fork, "assistant", "?")
    with pytest.raises(ContractBroken, match=f"probe p-1\\) .*{re.escape(said)}"):
        UnderTest(Wrong(), "mine", legible_to_rules).query(question)


def test_a_model_reader_is_given_plain_text_and_later_faults_fail_alone():
    memory = EveryLine(plain_text)
    w = world(SEED)
    memory.ingest(
        [e for e in public_events(SEED, BRANCH) if e.time <= w.timeline.fork], w.timeline.fork
    )
    question = Question("p-1", w.items[0], 1, w.timeline.fork, "assistant", "?")
    # a language model reads any text: nothing is refused when the reader is not rule-based
    assert UnderTest(memory, "mine", None).query(question)
    # after a first answer of the right type, a wrong one fails its own question only
    checked = UnderTest(memory, "mine", legible_to_rules)
    memory.render = evidence_line
    memory.lines = []
    memory.ingest(
        [e for e in public_events(SEED, BRANCH) if e.time <= w.timeline.fork], w.timeline.fork
    )
    assert checked.query(question)
    memory.query = lambda q: "a string"
    assert "query returned a str" in checked.query(question).reason


def test_every_event_line_reads_as_the_live_records_do():
    """The reader keeps each record at its newest revision among the lines and drops a deleted
    one: a memory's full log of lines gives the answer its live records give."""
    w = world(SEED)
    events = [e for e in public_events(SEED, "del") if e.op in ("insert", "update", "delete")]
    for t in w.timeline.checkpoints:
        shown = [e for e in events if e.time <= t]
        state = LiveState()
        for e in shown:
            state.apply(e)
        for item in w.items:
            if item.is_definition:
                continue
            lines = [evidence_line(e) for e in shown if e.source in item.sources]
            live = [record_evidence(r) for r in state.records.values() if r.source in item.sources]
            asked = (item, None, t, item.question)
            assert read(ReaderRequest(*asked, tuple(lines))) == read(
                ReaderRequest(*asked, tuple(live))
            ), (item.item_id, t)


def test_live_records_keeps_the_newest_revision_and_drops_the_deleted():
    record = next(e for e in public_events(SEED, "del") if e.op == "update")
    first = next(
        e
        for e in public_events(SEED, "del")
        if e.object_id == record.object_id and e.op == "insert"
    )
    newer, older = evidence_line(record), evidence_line(first)
    assert [p.revision for p in live_records([newer, older])] == [record.revision]
    deleted = replace(record, op="delete", revision=record.revision + 1)
    assert live_records([older, newer, evidence_line(deleted)]) == []
    assert all(legible_to_rules(x) for x in (newer, evidence_line(deleted)))
    assert not legible_to_rules(record.text)
