"""Progress of a batch of model calls: calls done of total, tokens/s and an ETA, one line every
few seconds of an injected clock, nothing when not asked for."""

from __future__ import annotations

import re

import pytest
from batchwork import openai_profile, reader_batch

from memshift.errors import ConfigError
from memshift.models import progress
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.progress import (
    JobTally,
    Progress,
    batch_progress,
    duration,
    progress_every,
)
from memshift_tools.book import RequestBook
from memshift_tools.localserver import LocalServer

LINE = re.compile(
    r"memshift: (?P<label>.+): (?P<done>[\d,]+) of (?P<total>[\d,]+) calls \(\d+%\), "
    r"(?P<rate_in>[\d,]+) tokens/s in, (?P<rate_out>[\d,]+) out, (?P<eta>ETA .+|done)$"
)


class Ticking:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def watched(every: float, step: float) -> tuple[list[str], object]:
    lines: list[str] = []

    def factory(label: str, total: int) -> Progress:
        return Progress(label, total, every, clock=Ticking(step), emit=lines.append)

    return lines, factory


class Stopped:
    """A clock that shows what the test sets."""

    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_few_seconds_with_calls_done_rate_and_eta():
    lines: list[str] = []
    clock = Stopped()
    progress = Progress("writer calls", 20, 5.0, clock=clock, emit=lines.append)
    for second in range(1, 21):  # one call ends each second, 300 tokens in and 20 out
        clock.now = float(second)
        progress.advance(300, 20)
    progress.finish()
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    # a line every 5 s while calls remain, and one at the end
    assert [int(m["done"]) for m in parsed] == [5, 10, 15, 20]
    assert parsed[-1]["eta"] == "done"
    for m in parsed[:-1]:
        done = int(m["done"])
        # a steady rate: what is left takes as long per call as what is done (1 s a call)
        assert m["eta"] == f"ETA {duration(20 - done)}"
        assert int(m["rate_in"]) == 300 and int(m["rate_out"]) == 20


def test_a_batch_shorter_than_the_interval_says_nothing():
    lines: list[str] = []
    progress = Progress("reader calls", 3, 60.0, clock=Ticking(1.0), emit=lines.append)
    for _ in range(3):
        progress.advance(10, 1)
    progress.finish()
    assert lines == []


TALLY = re.compile(
    r"memshift: (?P<label>.+): (?P<calls>[\d,]+) calls in (?P<batches>[\d,]+) batches so far "
    r"in this job, (?P<rate_in>[\d,]+) tokens/s in, (?P<rate_out>[\d,]+) out$"
)


def test_a_job_of_one_call_batches_is_tallied_every_few_seconds():
    lines: list[str] = []
    clock = Stopped()
    tally = JobTally("writer calls to qwen", 10.0, clock=clock, emit=lines.append)
    for second in range(1, 46):  # a one-call batch ends each second: 500 tokens in, 40 out
        clock.now = float(second - 1)
        batch = Progress(
            "writer calls to qwen", 1, 10.0, clock=clock, emit=lines.append, tally=tally
        )
        clock.now = float(second)
        batch.advance(500, 40)
        batch.finish()
    parsed = [TALLY.match(line) for line in lines]
    assert lines and all(parsed), lines
    # the first batch began at 0 s: a line at 10, 20, 30 and 40 s, with the calls so far
    assert [int(m["calls"]) for m in parsed] == [10, 20, 30, 40]
    assert [int(m["batches"]) for m in parsed] == [10, 20, 30, 40]
    assert {int(m["rate_in"]) for m in parsed} == {500} and {
        int(m["rate_out"]) for m in parsed
    } == {40}


def test_batches_that_speak_for_themselves_add_no_tally_line():
    lines: list[str] = []
    clock = Stopped()
    tally = JobTally("reader calls", 5.0, clock=clock, emit=lines.append)
    for _ in range(3):
        batch = Progress("reader calls", 20, 5.0, clock=clock, emit=lines.append, tally=tally)
        for _call in range(20):
            clock.now += 1.0
            batch.advance(100, 10)
        batch.finish()
    assert lines and all(LINE.match(line) for line in lines), lines
    assert tally.calls == 60 and tally.batches == 3
    # a step with nothing to ask is not a batch
    Progress("reader calls", 0, 5.0, clock=clock, emit=lines.append, tally=tally).finish()
    assert tally.batches == 3


def test_the_client_tallies_a_job_of_one_call_batches_from_the_environment(monkeypatch, capsys):
    monkeypatch.setenv("MEMSHIFT_PROGRESS", "0.000001")
    monkeypatch.setattr(progress, "_TALLIES", {})  # this job's, not an earlier test's
    client = ModelClient(Profile("rules", "rules"))
    for request in reader_batch(5):
        client.generate([request])
    said = [line for line in capsys.readouterr().err.splitlines() if "batches so far" in line]
    parsed = [TALLY.match(line) for line in said]
    assert said and all(parsed), said
    assert int(parsed[-1]["calls"]) == int(parsed[-1]["batches"]) == 5


@pytest.mark.parametrize("value", ["", "0", "  "])
def test_quiet_unless_the_environment_asks(value):
    assert progress_every({"MEMSHIFT_PROGRESS": value}) is None
    assert progress_every({}) is None
    assert batch_progress("x", 5, {"MEMSHIFT_PROGRESS": value}).every == float("inf")


def test_the_environment_sets_the_interval_and_refuses_nonsense_in_one_line():
    assert progress_every({"MEMSHIFT_PROGRESS": "2.5"}) == 2.5
    for bad in ("-1", "nan", "inf", "soon"):
        with pytest.raises(ConfigError) as caught:
            progress_every({"MEMSHIFT_PROGRESS": bad})
        assert "\n" not in str(caught.value) and "MEMSHIFT_PROGRESS" in str(caught.value)


def test_the_client_reports_every_call_of_the_rules_backend():
    lines, factory = watched(every=3.0, step=1.0)
    batch = reader_batch(12)
    replies = ModelClient(Profile("rules", "rules"), progress=factory).generate(batch)
    assert len(replies) == 12
    parsed = [LINE.match(line) for line in lines]
    assert lines and all(parsed), lines
    assert {m["total"] for m in parsed} == {"12"}
    assert parsed[-1]["done"] == "12" and "reader calls to rules" in parsed[-1]["label"]


def test_the_client_reports_calls_over_http(tmp_path):
    batch = reader_batch(10)
    lines, factory = watched(every=2.0, step=1.0)
    with LocalServer(RequestBook(batch).answer) as server:
        client = ModelClient(openai_profile(server.url, concurrency=2), progress=factory)
        replies = client.generate(batch)
    assert all(r.ok for r in replies)
    parsed = [LINE.match(line) for line in lines]
    assert lines and all(parsed), lines
    assert parsed[-1]["done"] == "10" and parsed[-1]["eta"] == "done"
    # the server's token counts are the rates' numerators
    assert int(parsed[-1]["rate_in"].replace(",", "")) > 0


def test_serve_study_asks_its_jobs_for_progress_unless_quiet(monkeypatch):
    from memshift.cli import study_environment

    monkeypatch.delenv("MEMSHIFT_PROGRESS", raising=False)
    assert progress_every(study_environment(quiet=False)) == 10
    assert progress_every(study_environment(quiet=True)) is None
    monkeypatch.setenv("MEMSHIFT_PROGRESS", "3")
    assert progress_every(study_environment(quiet=False)) == 3


def test_a_line_names_where_a_batch_comes_from_or_how_many_places_it_holds():
    """A job's one batch may hold several branches' and systems' calls: its line says how many,
    rather than naming the first call's as if it were all of them."""
    from dataclasses import replace

    from memshift.models.client import batch_label
    from memshift.models.requests import CallContext

    batch = reader_batch(2)

    def placed(branch: str, system: str):
        return [replace(r, context=CallContext("rules", 1000, branch, system)) for r in batch]

    rules = Profile("rules", "rules")
    one = batch_label(rules, placed("src", "bm25"))
    assert one == "reader calls to rules, world 1000 src bm25"
    mixed = placed("none", "bm25") + placed("src", "bm25") + placed("src", "rag")
    assert batch_label(rules, mixed) == "reader calls to rules, world 1000 2 branches 2 systems"
    assert batch_label(rules, batch) == "reader calls to rules"
