"""Prompts laid out for prefix caching: every role's fixed instructions first, the records or
evidence next, what is particular to the request last; Anthropic's cache breakpoints at the two
boundaries, and the prompt's tokens counted whether the cache served them or not."""

from __future__ import annotations

import dataclasses

import pytest
from batchwork import all_requests

from memshift.models import prompts
from memshift.models.anthropic_backend import CACHED, completion, request_body
from memshift.models.check import check_requests
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.reply_schemas import SCHEMAS, schema_name
from memshift.models.requests import AuditRequest, ReaderRequest, WriterRequest
from memshift.models.structured import asking_in_text
from memshift.simulator.backend import RulesBackend
from memshift.timeutil import fmt
from memshift_tools.book import RequestBook
from memshift_tools.localserver import LocalServer

ANTHROPIC = Profile("claude", "anthropic", model="claude", base_url="http://127.0.0.1:9",
                    decoding={"max_tokens": 64})  # fmt: skip


def own_texts(request) -> list[str]:
    """What only this request says, which must come after everything shared."""
    if isinstance(request, ReaderRequest):
        return [request.question]
    texts = [request.item.label]
    if isinstance(request, WriterRequest):
        texts.append(fmt(request.as_of))
    if isinstance(request, AuditRequest):
        texts += [request.statement, repr(request.value)]
    return texts


def delta_write(request: WriterRequest) -> WriterRequest:
    return dataclasses.replace(request, delta_since=request.as_of.replace(day=1))


def test_check_requests_cover_every_role_with_records():
    requests = check_requests()
    assert {r.role for r in requests} == {"writer", "reader", "program", "auditor"}
    writer = next(r for r in requests if isinstance(r, WriterRequest))
    assert writer.records  # so the records are seen to come before the item


@pytest.mark.parametrize("request_", check_requests(), ids=lambda r: r.role)
def test_what_a_request_alone_says_comes_last_and_never_in_the_system_text(request_):
    system, user = prompts.build(request_)
    assert (system["role"], user["role"]) == ("system", "user")
    shared, own = prompts.shared_part(user["content"])
    assert shared and shared + own == user["content"]
    for text in own_texts(request_):
        assert text not in system["content"] and text not in shared, text
        assert text in own, text


def test_requests_of_a_role_share_their_system_text():
    writer = next(r for r in check_requests() if isinstance(r, WriterRequest))
    other = dataclasses.replace(writer, item=writer.item, as_of=writer.as_of.replace(day=2))
    assert prompts.build(writer)[0] == prompts.build(other)[0]
    # a delta write states its extra step in the system text, the same for every delta write
    delta = prompts.build(delta_write(writer))
    assert delta[0]["content"].startswith(prompts.build(writer)[0]["content"])
    assert "bears_on_item" in delta[0]["content"] and "bears_on_item" not in delta[1]["content"]
    readers = [r for r in all_requests(5) if isinstance(r, ReaderRequest)]
    assert len({prompts.build(r)[0]["content"] for r in readers}) == 1


@pytest.mark.parametrize("structured", ["json_schema", "tool", "text"])
@pytest.mark.parametrize("request_", check_requests(), ids=lambda r: r.role)
def test_anthropic_marks_the_system_text_and_the_shared_records_for_its_cache(request_, structured):
    messages = prompts.build(request_)
    schema = SCHEMAS[schema_name(request_)]
    body = request_body(ANTHROPIC, request_.role, messages, schema, structured)
    assert body["system"] == [
        {"type": "text", "text": messages[0]["content"], "cache_control": {"type": "ephemeral"}}
    ]
    (user,) = body["messages"]
    shared, own = user["content"]
    assert shared["cache_control"] == CACHED and "cache_control" not in own
    # in the text form the request for JSON ends the last message: after the cut
    sent = asking_in_text(messages, schema) if structured == "text" else messages
    assert shared["text"] + own["text"] == sent[1]["content"]
    assert shared["text"] == prompts.shared_part(messages[1]["content"])[0]


def test_anthropic_counts_the_cached_prompt_tokens_as_prompt_tokens():
    reply = {
        "content": [{"type": "text", "text": "{}"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 2048,
            "output_tokens": 7,
        },
    }
    assert (completion(reply).usage.tokens_in, completion(reply).usage.tokens_out) == (2360, 7)
    del reply["usage"]["cache_read_input_tokens"], reply["usage"]["cache_creation_input_tokens"]
    assert completion(reply).usage.tokens_in == 12


@pytest.mark.parametrize("structured", ["json_schema", "tool"])
def test_the_cached_blocks_reach_a_server_as_the_same_prompt(structured):
    # The local server joins content blocks as the API does; its book finds every request by
    # its messages, so an answer from it is the rules backend's answer to the same prompt. (In
    # the text form the prompt also asks for JSON, which the book's messages do not.)
    requests = all_requests(4)
    rules = RulesBackend(Profile("rules", "rules"))
    with LocalServer(RequestBook(requests).answer) as server:
        profile = dataclasses.replace(ANTHROPIC, base_url=server.url, structured=structured)
        replies = ModelClient(profile).generate(requests)
    assert [r.value for r in replies] == [rules.answer(r) for r in requests]
