"""A custom system that raises or returns what the reader cannot be given fails the questions it
bears on, not its probe job: every other answer is written as a well-behaved system's would be,
each failed question is a failed answer naming what the system did, and the report's failures
table counts it for the system."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from cellrun import RULES, public_events

from analysis.test_failures import scored, study
from conftest import data, world
from memshift import layout
from memshift.analysis.failures import counted
from memshift.gold.tables import gold_to_table
from memshift.memory.interface import Blocked
from memshift.memory.under_test import MAX_CHARACTERS, MAX_ITEMS
from memshift.probes.build import probes_to_table
from memshift.probes.public import public_probes
from memshift.stages.probe import BranchReads, answer_and_log
from pipeline.custom_memory import NewestRecords

SEED, BRANCH, SYSTEM = 1002, "src", "mine"


@cache
def reads() -> tuple[BranchReads, tuple]:
    w = world(SEED)
    probes = probes_to_table(data(SEED)[BRANCH].probes, world=SEED, branch=BRANCH)
    gold = gold_to_table(data(SEED)[BRANCH].gold.points, world=SEED, branch=BRANCH)
    shown = tuple(public_probes(gold, probes, w, BRANCH))
    return BranchReads(w, probes, public_events(SEED, BRANCH)), shown


def probed(memory: Any, out: Path) -> tuple[list[dict], list[dict]]:
    """The probe stage's answers and call log of `memory`, as written."""
    branch_reads, shown = reads()
    answer_and_log(memory, branch_reads, out, BRANCH, SYSTEM, RULES, None, shown=list(shown))
    folder = layout.system_dir(out, BRANCH, SYSTEM)
    answers = pq.read_table(layout.table(folder, layout.ANSWERS)).to_pylist()
    calls = pq.read_table(layout.table(folder, layout.READER_CALLS)).to_pylist()
    return answers, calls


@cache
def broken_item() -> str:
    """An item with counted probes at several checkpoints."""
    branch_reads, _ = reads()
    return branch_reads.probes.column("item_id")[0].as_py()


class Faulty(NewestRecords):
    """Answers like NewestRecords, but `reply` decides its reply to questions about one item."""

    def __init__(self, reply: Callable[[list[str]], Any]) -> None:
        super().__init__()
        self.reply = reply

    def query(self, question):
        evidence = super().query(question)
        return self.reply(evidence) if question.item.item_id == broken_item() else evidence


@pytest.fixture(scope="module")
def well_behaved(tmp_path_factory) -> list[dict]:
    answers, _ = probed(NewestRecords(), tmp_path_factory.mktemp("good"))
    return answers


def raising(exc: BaseException) -> Callable[[list[str]], Any]:
    def reply(evidence: list[str]) -> Any:
        raise exc

    return reply


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


class Unlistable(list):
    def __iter__(self):
        raise OSError("the store went away")


class Tagged(str):
    """A str subclass, as some libraries return: plain text to the reader."""

    def split(self, *args, **kwargs):
        raise AssertionError("the reader must see a plain str")


def deep(depth: int = 0) -> Any:
    return deep(depth + 1)


FAULTS: dict[str, tuple[Callable[[list[str]], Any], str]] = {
    "raises": (raising(ValueError("index corrupt")), "query raised ValueError: index corrupt"),
    "raises-unprintable": (raising(Unprintable()),
                           "query raised Unprintable: (its message cannot be shown)"),
    "raises-10-mb-message": (raising(ValueError("x\n" * 5_000_000)),
                             "query raised ValueError: x x x"),
    "recursion": (lambda e: deep(), "query raised RecursionError"),
    "memory": (raising(MemoryError()), "query raised MemoryError"),
    "none": (lambda e: None, "query returned a NoneType, not a list of strings or Blocked"),
    "a-string": (lambda e: "\n".join(e), "query returned a str, not a list"),
    "a-dict": (lambda e: {"evidence": e}, "query returned a dict, not a list"),
    "a-generator": (lambda e: (x for x in e), "query returned a generator, not a list"),
    "an-int-item": (lambda e: [7, *e], "query returned item 0, a int, not a string"),
    "a-bytes-item": (lambda e: [b"record"], "query returned item 0, a bytes, not a string"),
    "a-none-item": (lambda e: [None, *e], "query returned item 0, a NoneType, not a string"),
    "too-many-items": (lambda e: ["x"] * (MAX_ITEMS + 1),
                       f"query returned {MAX_ITEMS + 1:,} items; at most {MAX_ITEMS:,}"),
    "too-much-text": (lambda e: ["x" * (1 << 20)] * (MAX_CHARACTERS // (1 << 20) + 1),
                      f"query returned more than {MAX_CHARACTERS:,} characters"),
    "iteration-raises": (lambda e: Unlistable(e), "query raised OSError: the store went away"),
}  # fmt: skip


def check_failed(answers: list[dict], good: list[dict], reason: str) -> int:
    """Every answer about the broken item failed with `reason`; every other is the well-behaved
    system's, byte for byte; returns how many failed."""
    assert len(answers) == len(good)
    failed = 0
    for mine, theirs in zip(answers, good, strict=True):
        assert mine["probe_id"] == theirs["probe_id"]
        if mine["item_id"] == broken_item():
            failed += 1
            assert mine["status"] == "failed" and mine["value"] is None
            assert mine["failure"].startswith("query_error: " + reason), mine["failure"]
            assert "\n" not in mine["failure"] and len(mine["failure"]) <= 320
        else:
            assert mine == theirs
    assert 0 < failed < len(answers)
    return failed


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_failed_question_is_a_failed_answer_and_every_other_answer_is_kept(
    tmp_path, well_behaved, fault
):
    reply, reason = FAULTS[fault]
    answers, calls = probed(Faulty(reply), tmp_path)
    failed = check_failed(answers, well_behaved, reason)
    logged = [c for c in calls if c["failure"] == "query_error"]
    assert len(logged) == failed and {c["role"] for c in logged} == {"library"}
    assert all(c["detail"].startswith(reason) for c in logged)
    # the reader was asked every other question, and nothing else
    assert sum(c["role"] == "reader" for c in calls) == len(answers) - failed


def test_the_failures_table_counts_the_failed_questions_for_the_system(tmp_path, well_behaved):
    answers, calls = probed(Faulty(raising(ValueError("boom"))), tmp_path)
    failed = sum(a["status"] == "failed" for a in answers)
    con = study([scored(SYSTEM, BRANCH, SEED)], calls)
    (row,) = counted(con)
    assert (row.system, row.library_calls, row.library_failed) == (SYSTEM, failed, failed)
    # each failed question stands in place of the reader call it did not get
    assert row.calls == len(answers) and row.share == pytest.approx(failed / len(answers))


@pytest.mark.parametrize(
    ("evidence", "reason"),
    [
        (lambda e: [*e, "\ud83d"], "a lone surrogate (U+D83D"),
        (lambda e: ["Northwind \ud83d"], "query returned item 0 with a lone surrogate (U+D83D"),
        (lambda e: ["\ude00 and after"], "query returned item 0 with a lone surrogate (U+DE00"),
        (lambda e: ["ok", "ok", "\ude00\ud83d", "ok"], "query returned item 2 with a lone"),
        (lambda e: [Tagged("caf\u00e9 \udc80")], "query returned item 0 with a lone surrogate"),
    ],
    ids=["appended", "cut-emoji", "low-half", "reversed-pair-in-the-middle", "in-a-str-subclass"],
)
def test_a_lone_surrogate_in_a_statement_fails_that_question_alone(
    tmp_path, well_behaved, evidence, reason
):
    answers, calls = probed(Faulty(evidence), tmp_path)
    check_failed(answers, well_behaved, "")
    assert all(reason in a["failure"] for a in answers if a["item_id"] == broken_item())
    assert all("which UTF-8 cannot hold" in c["detail"] for c in calls if c["failure"])


def test_a_surrogate_in_an_exception_message_is_written_escaped(tmp_path, well_behaved):
    answers, _ = probed(Faulty(raising(ValueError("cut \ud83d here"))), tmp_path)
    check_failed(answers, well_behaved, "query raised ValueError: cut \\ud83d here")


def test_whole_emoji_and_str_subclasses_are_evidence(tmp_path, well_behaved):
    answers, calls = probed(Faulty(lambda e: [Tagged(t + " \U0001f600") for t in e]), tmp_path)
    mine = [a for a in answers if a["item_id"] == broken_item()]
    assert mine and all(a["failure"] is None for a in mine)
    assert not any(c["failure"] for c in calls)


def test_a_blocked_reply_stays_blocked_whatever_its_reason_holds(tmp_path, well_behaved):
    answers, _ = probed(Faulty(lambda e: Blocked("no \ud83d")), tmp_path)
    mine = [a for a in answers if a["item_id"] == broken_item()]
    assert mine and {a["status"] for a in mine} == {"blocked"}
    assert all(a["failure"] is None for a in mine)


class FailsToIngest(NewestRecords):
    """Raises on its third ingest (the second checkpoint after the fork)."""

    def __init__(self) -> None:
        super().__init__()
        self.ingested = 0

    def ingest(self, events, now) -> None:
        self.ingested += 1
        if self.ingested == 3:
            raise RuntimeError("disk full")
        super().ingest(events, now)


def test_an_ingest_that_raises_fails_every_later_question_and_keeps_the_earlier(
    tmp_path, well_behaved
):
    answers, calls = probed(FailsToIngest(), tmp_path)
    assert len(answers) == len(well_behaved)
    for mine, theirs in zip(answers, well_behaved, strict=True):
        if mine["checkpoint"] < 2:
            assert mine == theirs
        else:
            assert mine["status"] == "failed"
            assert mine["failure"].startswith("query_error: ingest at ")
            assert "raised RuntimeError: disk full; not asked since" in mine["failure"]
    later = sum(a["checkpoint"] >= 2 for a in answers)
    assert 0 < later < len(answers)
    assert sum(c["failure"] == "query_error" for c in calls) == later
