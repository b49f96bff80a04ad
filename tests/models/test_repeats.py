"""A job sends each distinct request once: a request it makes again is served from the first
reply, counted as a cache hit, and kept out of the prefix-cache replay."""

from __future__ import annotations

import dataclasses
import functools

import pytest
from batchwork import openai_profile
from batchwork import reader_batch as new_batch

from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift_tools.book import RequestBook
from memshift_tools.localserver import FaultRule, LocalServer

RULES = Profile("rules", "rules")


@functools.cache
def reader_batch(n: int) -> list:
    """`n` distinct reader requests (built once: a world is generated for them)."""
    return new_batch(n)


def as_system(request, system: str):
    """The same request as another system of the job would make it: only the context differs,
    and the context is never sent."""
    return dataclasses.replace(request, context=CallContext("rules", 0, "none", system, "x", 1))


def test_a_repeated_request_is_served_from_the_first_reply_and_not_replayed():
    first, other = reader_batch(2)
    log = CallLog()
    replies = ModelClient(RULES, log=log).generate([first, other, as_system(first, "b")])
    assert [r.repeat for r in replies] == [False, False, True]
    assert replies[2].value == replies[0].value and replies[2].cache_hit
    assert replies[2].usage == replies[0].usage  # what the request would have cost
    rows = log.rows
    assert [r["cache_hit"] for r in rows] == [False, False, True]
    assert rows[2]["system"] == "b"  # logged where it belongs
    assert rows[0]["prompt_tokens"] and rows[2]["prompt_tokens"] is None


def test_clients_sharing_a_job_log_share_its_answers():
    (request,) = reader_batch(1)
    log = CallLog()
    ModelClient(RULES, log=log).generate([request])
    (again,) = ModelClient(RULES, log=log).generate([as_system(request, "other")])
    assert again.repeat
    (elsewhere,) = ModelClient(RULES, log=CallLog()).generate([request])
    assert not elsewhere.repeat and not elsewhere.cache_hit


def test_a_different_request_is_never_a_repeat():
    request = reader_batch(1)[0]
    changed = dataclasses.replace(request, question=request.question + " Really?")
    replies = ModelClient(RULES).generate([request, changed])
    assert not any(r.repeat for r in replies)
    assert replies[0].cache_key != replies[1].cache_key


@pytest.fixture
def book():
    requests = list(reader_batch(6))
    return requests, RequestBook(requests)


def test_repeats_in_flight_together_reach_the_server_once(book):
    requests, answers = book
    batch = [requests[0]] * 4 + requests[1:4] + [requests[1]] * 3
    with LocalServer(answers.answer) as server:
        replies = ModelClient(openai_profile(server.url, concurrency=4)).generate(batch)
        assert server.stats()["requests"] == 4
    expected = ModelClient(RULES).generate(batch)
    assert [r.value for r in replies] == [r.value for r in expected]
    assert sum(r.repeat for r in replies) == len(batch) - 4
    assert all(r.ok for r in replies)


def test_a_later_batch_of_the_job_sends_no_request_it_already_had_answered(book):
    requests, answers = book
    with LocalServer(answers.answer) as server:
        client = ModelClient(openai_profile(server.url))
        client.generate(requests[:3])
        later = client.generate(requests[:3] + requests[3:5])
        assert server.stats()["requests"] == 5
    assert [r.repeat for r in later] == [True, True, True, False, False]


def test_a_repeat_of_a_failed_call_makes_its_own_call(book):
    requests, answers = book
    with LocalServer(answers.answer) as server:
        # the first attempt of every distinct request is cut at the token limit
        server.set_faults([FaultRule("truncated", attempts=1)])
        profile = openai_profile(server.url, concurrency=1)
        replies = ModelClient(profile).generate([requests[0], requests[0]])
        assert server.stats()["requests"] == 2
    assert replies[0].failure == "truncated" and not replies[0].repeat
    assert replies[1].ok and not replies[1].repeat
