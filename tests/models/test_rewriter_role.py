"""The rewriter as a model role: its request, prompt, schema and simulated role, the `Rewriter`
over `ModelClient`, and real HTTP replies from the local server, hostile ones included."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from functools import cache
from typing import Any

import pytest
from batchwork import openai_profile

from conftest import world
from memshift import registry
from memshift.models import prompts
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.replies import Reply
from memshift.models.reply_schemas import SCHEMAS, check_reply, schema_name
from memshift.models.requests import CallContext, RewriteRequest
from memshift.models.rewriter_client import CALL_FAILED, client_rewriter, reply_text
from memshift.simulator.rewriter import OfflineRewriter
from memshift.simulator.rewriter_role import UNPARSED, answer, simulated_rewriter
from memshift.stages.chain import build_world
from memshift.studies.rewritten import rewrite_stage as rewrite
from memshift.workflow.fingerprint import job_modules
from memshift.world.rewrite import (
    ACCEPTED,
    NOT_JSON,
    RETRIED,
    TEMPLATE,
    CachedRewrite,
    body_of,
    check_rewrite,
    protected_facts,
    rewrite_record,
)
from memshift.world.rewrite_batch import (
    Ask,
    FailedReply,
    checked,
    one_by_one,
    rewrite_contents,
)
from memshift.world.rewrite_prompt import REWRITE_SCHEMA, rewrite_messages
from memshift_tools.localserver import LocalServer, Messages

RULES = Profile("rules", "rules")
CONTEXT = CallContext(run="test", world=0, system="rewrite")
BODY = "Hi Elif,\n\nThe survey is open until 08:30. Please answer it.\n\nThanks,\nTobias"
PROTECTED = ("08:30",)
SEED = 1000
STAGE_BRANCHES = ("none", "src")


@cache
def _asks(n: int = 200) -> tuple[Ask, ...]:
    """The first `n` distinct bodies of world 0 with what each must keep."""
    found: dict[str, Ask] = {}
    for event in world(0).events:
        body = body_of(event)
        if body is not None and body.strip() and body not in found:
            found[body] = Ask(body, protected_facts(event))
        if len(found) == n:
            break
    return tuple(found.values())


# ---- the role ---------------------------------------------------------------------------------


def test_the_rewriter_is_a_role_with_its_prompt_schema_and_simulator():
    request = RewriteRequest(BODY, PROTECTED, ("missing protected fact",), CONTEXT)
    assert request.role == "rewriter" and schema_name(request) == "rewriter"
    assert SCHEMAS["rewriter"] is REWRITE_SCHEMA
    assert prompts.build(request) == rewrite_messages(BODY, PROTECTED, request.feedback)
    # the context says where a call belongs, never what it asks
    assert request == RewriteRequest(BODY, PROTECTED, ("missing protected fact",))
    assert callable(registry.load(registry.SIMULATED_ROLES["rewriter"]))
    # a rewrite job's code fingerprint holds the simulated role's module
    modules = job_modules(
        "memshift.studies.rewritten.rewrite_stage", backend="rules", roles=("rewriter",)
    )
    assert {"memshift.simulator.rewriter_role", "memshift.studies.rewritten.rewrite_stage"} <= set(
        modules
    )


def test_the_simulated_role_answers_what_the_offline_rewriter_says():
    offline = OfflineRewriter()
    role = simulated_rewriter(RULES)
    for ask in _asks(60):
        request = RewriteRequest(ask.body, ask.protected)
        text = offline(ask.body, ask.protected, ())
        value = role(request)
        assert set(value) == {"body"} or set(value) == {UNPARSED}
        if "body" in value:
            assert json.loads(text) == value
        else:
            assert value[UNPARSED] == text


def test_a_malformed_offline_reply_is_refused_by_the_clients_schema_check():
    always = OfflineRewriter(slip_rate=1.0)
    kinds = Counter()
    for ask in _asks(40):
        value = answer(always, RewriteRequest(ask.body, ask.protected))
        _, failure, _ = check_reply("rewriter", json.dumps(value))
        kinds[failure] += 1
        if failure is None:
            # the one slip that is valid JSON drops a protected fact: the rewrite checks catch it
            new, found = checked(json.dumps(value), ask)
            assert new is None and any(v.startswith("missing protected fact") for v in found)
    assert kinds["schema_violation"] > 0 and kinds[None] > 0


def test_the_rules_backend_through_the_client_gives_the_offline_rewriters_outcomes():
    asks = {str(i): a for i, a in enumerate(_asks())}
    via_client: dict[str, CachedRewrite] = {}
    client = ModelClient(RULES)
    calls = rewrite_contents(asks, client_rewriter(client, CONTEXT).batch, via_client)
    direct: dict[str, CachedRewrite] = {}
    rewrite_contents(asks, one_by_one(OfflineRewriter()), direct)
    assert [(c.outcome, c.body) for c in via_client.values()] == [
        (direct[k].outcome, direct[k].body) for k in via_client
    ]
    outcomes = Counter(c.outcome for c in via_client.values())
    assert outcomes[ACCEPTED] > 150 and outcomes[RETRIED] > 0
    failures = Counter(row["failure"] for row in client.log.rows)
    assert len(client.log) == calls and failures["schema_violation"] > 0
    assert {row["role"] for row in client.log.rows} == {"rewriter"}
    assert {row["system"] for row in client.log.rows} == {"rewrite"}


def test_a_client_rewriter_is_a_rewriter():
    rewriter = client_rewriter(ModelClient(RULES), CONTEXT)
    reply = rewriter(BODY, PROTECTED, ())
    assert set(json.loads(reply)) == {"body"} and "08:30" in json.loads(reply)["body"]
    event = next(e for e in world(0).events if body_of(e))
    store: dict[str, CachedRewrite] = {}
    new, row = rewrite_record(event, rewriter, store)
    assert row.calls in (1, 2) and new.text.startswith(event.text[: -len(body_of(event))])


def test_a_failed_call_is_a_failed_attempt_named_for_its_failure():
    failed = Reply("rewriter", None, "transport_error", "HTTP 500: boom", attempts=6)
    text = reply_text(failed)
    assert isinstance(text, FailedReply)
    assert text == f"{CALL_FAILED} (transport_error): HTTP 500: boom"
    assert checked(text, Ask(BODY, PROTECTED)) == (None, [str(text)])
    # a caller that knows nothing of failed calls rejects it as a reply that is no JSON
    new, found = check_rewrite(text, BODY, PROTECTED)
    assert new is None and found[0].startswith(NOT_JSON)
    ok = Reply("rewriter", {"body": "Grüße"})
    assert reply_text(ok) == '{"body": "Grüße"}' and not isinstance(reply_text(ok), FailedReply)


# ---- a real model over HTTP: the local server -------------------------------------------------

_BODY_AT = "Body (as a JSON string):\n"
_KEEP_AT = "capitalization and punctuation):\n"
_FEEDBACK_AT = "Your previous reply was rejected for these reasons:\n"


def _listed(text: str, after: str) -> tuple[str, ...]:
    """The JSON strings listed as "- ..." lines right after `after`."""
    if after not in text:
        return ()
    items = []
    for line in text.split(after, 1)[1].split("\n"):
        if not line.startswith("- "):
            break
        items.append(json.loads(line[2:]))
    return tuple(items)


def parse_rewrite_prompt(messages: Messages) -> Ask:
    """The ask a rewrite prompt (`rewrite_messages`) was built from, read back from its text."""
    user = messages[-1]["content"]
    body = json.loads(user.split(_BODY_AT, 1)[1].split("\n", 1)[0])
    return Ask(body, _listed(user, _KEEP_AT), _listed(user, _FEEDBACK_AT))


class ScriptedRewriter:
    """The local server's answer: the offline rewriter's reply text, raw (so its malformed slips
    reach the client as text), unless a body is scripted to get a hostile reply on its first
    attempt (`first`) or on every attempt (`always`)."""

    def __init__(
        self, first: dict[str, str] | None = None, always: dict[str, str] | None = None
    ) -> None:
        self.offline = OfflineRewriter()
        self.first = first or {}
        self.always = always or {}
        self.asked: list[Ask] = []

    def __call__(self, api: str, messages: Messages, schema: dict[str, Any] | None) -> str:
        assert schema == REWRITE_SCHEMA
        ask = parse_rewrite_prompt(messages)
        self.asked.append(ask)
        if ask.body in self.always:
            return self.always[ask.body]
        if ask.body in self.first and not ask.feedback:
            return self.first[ask.body]
        return self.offline(ask.body, ask.protected, ask.feedback)


def test_the_prompt_reads_back_as_its_ask():
    for ask in (*_asks(30), Ask(BODY, PROTECTED, ('added digit "7"', "empty body"))):
        messages = rewrite_messages(ask.body, ask.protected, ask.feedback)
        assert parse_rewrite_prompt(messages) == ask


def _with_digit(body: str) -> str:
    return json.dumps({"body": body.replace(".", " 7.", 1)})


def _hostile(asks: tuple[Ask, ...]) -> dict[str, tuple[str, str]]:
    """Per kind of hostile reply: the body it is given to, and the reply."""
    kinds = {
        "not json": lambda body: "Sure! Here is the rewrite: " + body,
        "fenced": lambda body: "```json\n" + json.dumps({"body": body}) + "\n```",
        "array": lambda body: json.dumps([{"body": body}]),
        "huge": lambda body: json.dumps({"body": body + " more" * 20_000}),
        "grown": lambda body: json.dumps({"body": body + " Also this." * 200}),
        "digit": _with_digit,
        "extra key": lambda body: json.dumps({"body": body, "note": "reworded"}),
    }
    # short bodies with a full stop and no 7, so that each reply fails for its own reason only
    chosen = [a for a in asks if "." in a.body and "7" not in a.body and len(a.body) < 400]
    pairs = zip(kinds.items(), chosen[: len(kinds)], strict=True)
    return {kind: (ask.body, make(ask.body)) for (kind, make), ask in pairs}


# what the rewrite log says of each hostile reply
EXPECTED = {
    "not json": "model call failed (invalid_json)",
    "fenced": "model call failed (invalid_json)",
    "array": "model call failed (schema_violation)",
    "huge": "reply is too long",
    "grown": "body grew from",
    "digit": 'added digit "7"',
    "extra key": "model call failed (schema_violation)",
}


@pytest.mark.parametrize("every_attempt", [False, True], ids=["first", "always"])
def test_hostile_replies_over_http_are_rejected_then_retried_or_kept(every_attempt, tmp_path):
    asks = _asks(60)
    hostile = _hostile(asks)
    script = {body: reply for body, reply in hostile.values()}
    answer_ = ScriptedRewriter(always=script) if every_attempt else ScriptedRewriter(first=script)
    keyed = {f"{i:03d}": a for i, a in enumerate(asks)}
    store: dict[str, CachedRewrite] = {}
    with LocalServer(answer_) as server:
        client = ModelClient(openai_profile(server.url), cache_dir=tmp_path)
        calls = rewrite_contents(keyed, client_rewriter(client, CONTEXT).batch, store)
    assert calls == len(answer_.asked) == len(client.log)
    by_body = {keyed[k].body: v for k, v in store.items()}
    for kind, (body, _) in hostile.items():
        result = by_body[body]
        assert EXPECTED[kind] in result.violations.split(" | ")[0], (kind, result.violations)
        if every_attempt:
            assert result.outcome == TEMPLATE and result.body == body
            assert EXPECTED[kind] in result.violations.split(" | ")[1]
        else:
            assert result.outcome in (RETRIED, TEMPLATE)
    # every retry told the model why its first reply was rejected
    retries = [a for a in answer_.asked if a.feedback]
    assert {a.body for a in retries} >= {body for body, _ in hostile.values()}
    # and every body was asked for once without feedback
    firsts = [a.body for a in answer_.asked if not a.feedback]
    assert sorted(firsts) == sorted(a.body for a in asks)


def test_the_offline_rewriters_raw_text_over_http_gives_the_rules_backends_rewrites(tmp_path):
    """One malformed reply (a code fence, a cut reply, words around the JSON) fails at the
    client as invalid JSON and is asked for again; the outcomes are the rules backend's."""
    keyed = {f"{i:03d}": a for i, a in enumerate(_asks())}
    scripted = ScriptedRewriter()
    over_http: dict[str, CachedRewrite] = {}
    with LocalServer(scripted) as server:
        client = ModelClient(openai_profile(server.url), cache_dir=tmp_path)
        calls = rewrite_contents(keyed, client_rewriter(client, CONTEXT).batch, over_http)
        failures = Counter(row["failure"] for row in client.log.rows)
        # a rerun is served from the response cache: the same rewrites, no request
        before = server.stats()["requests"]
        again: dict[str, CachedRewrite] = {}
        rewrite_contents(keyed, client_rewriter(client, CONTEXT).batch, again)
        assert server.stats()["requests"] - before == sum(
            1 for row in client.log.rows[calls:] if not row["cache_hit"]
        )
    by_rules: dict[str, CachedRewrite] = {}
    rewrite_contents(keyed, client_rewriter(ModelClient(RULES), CONTEXT).batch, by_rules)
    assert {k: (v.outcome, v.body) for k, v in over_http.items()} == {
        k: (v.outcome, v.body) for k, v in by_rules.items()
    }
    assert failures["invalid_json"] > 0 and calls > len(keyed)
    retried = [v for v in over_http.values() if v.outcome == RETRIED]
    assert any("model call failed (invalid_json)" in v.violations for v in retried)
    assert {k: (v.outcome, v.body) for k, v in again.items()} == {
        k: (v.outcome, v.body) for k, v in over_http.items()
    }


def test_the_stage_with_an_openai_profile_writes_the_rules_backends_world(tmp_path):
    build_world(SEED, tmp_path / "template", STAGE_BRANCHES)
    log = CallLog()
    with LocalServer(ScriptedRewriter()) as server:
        summary = rewrite.run(
            tmp_path / "template",
            tmp_path / "http",
            STAGE_BRANCHES,
            openai_profile(server.url),
            tmp_path / "cache",
            log=log,
        )
    by_rules = rewrite.run(tmp_path / "template", tmp_path / "rules", STAGE_BRANCHES, RULES, None)
    assert dataclasses.replace(summary, failed_calls=0) == dataclasses.replace(
        by_rules, failed_calls=0
    )
    assert summary.failed_calls == Counter(r["failure"] for r in log.rows)["invalid_json"] > 0
    for name in ("world.parquet", *(f"events-{b}.parquet" for b in STAGE_BRANCHES)):
        assert (tmp_path / "http" / name).read_bytes() == (tmp_path / "rules" / name).read_bytes()
