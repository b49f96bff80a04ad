"""`memshift models check PROFILE`: one request per role, and what came back.

A check is asked interactively, so a server that cannot be reached ends it at once with one line
(no retries of a refused connection), and a request parameter the server refuses is named.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from memshift.errors import MemshiftError
from memshift.gold.evaluator import evaluate
from memshift.models import prompts
from memshift.models.backends import refused_parameter_in, sent_parameters
from memshift.models.client import ModelClient
from memshift.models.http import CONNECT_FAILED, connect_reason
from memshift.models.profiles import STRUCTURED_MODES, Profile
from memshift.models.replies import Reply
from memshift.models.reply_schemas import SCHEMAS, schema_name
from memshift.models.requests import AuditRequest, ProgramRequest, ReaderRequest, WriterRequest
from memshift.models.retry import RetryPolicy
from memshift.models.structured import schema_sentence
from memshift.statements import render
from memshift.tokens import count_tokens
from memshift.world.generate import World, generate_world
from memshift.world.items import Item
from memshift.world.parse import record_evidence
from memshift.world.records import Record, newest_within, state_at

CHECK_SEED = 0


@cache
def _check_world() -> World:
    """World 0, built once per process: a check builds its requests more than once (the
    profile's own forms, then the others it tries), and a world takes a second to build."""
    return generate_world(CHECK_SEED)


def _item(world: World, item_id: str) -> Item:
    return next(i for i in world.items if i.item_id == item_id)


def _live(world: World, sources: tuple[str, ...]) -> list[Record]:
    state = state_at(list(world.events), world.timeline.fork)
    records = [r for r in state.records.values() if r.source in sources]
    return sorted(records, key=lambda r: (r.updated, r.object_id))


def check_requests(
    world: World | None = None, budgets: Mapping[str, int] | None = None
) -> list[WriterRequest | ReaderRequest | ProgramRequest | AuditRequest]:
    """Small, fixed requests of every role, built from world 0 at its fork; with `budgets` (the
    evidence a study would give the writer and the auditor on a profile with a context window,
    `retrieval.budgets.check_budgets`), their records cut to the newest that fit."""
    budgets = budgets or {}
    world = world or _check_world()
    fork = world.timeline.fork
    contacts = _item(world, "def.important_contacts")
    recent = tuple(r for r in _live(world, ("calendar",)) if r.kind == "meeting")[-40:]
    meetings = _newest_within(recent, budgets.get("writer"))
    employer = _item(world, "person.employer")
    prose = _live(world, employer.sources)
    gold = evaluate(employer, prose, fork)
    holder = next(r for r in prose if r.object_id == gold.deps[0][0])
    evidence = (
        render(employer.label, fork.date(), gold.value, is_set=False),
        record_evidence(holder),
    )
    question = f"As of {fork:%Y-%m-%d %H:%M}: {employer.question}"
    friends = _item(world, "def.close_friends")
    fields = (("message", ("channel", "channel_kind", "sender", "partner", "sent")),)
    return [
        WriterRequest(contacts, 1, fork, meetings),
        ReaderRequest(employer, 1, fork, question, evidence),
        ProgramRequest(friends, 1, fields),
        AuditRequest(
            employer,
            1,
            evidence[0],
            gold.value,
            holder.updated,
            (holder,),
            _newest_within(
                prose[-5:],
                None if "auditor" not in budgets else budgets["auditor"] - _size(holder),
            ),
        ),
    ]


def _size(record: Record) -> int:
    return count_tokens(record_evidence(record))


def _newest_within(records: Sequence[Record], budget: int | None) -> tuple[Record, ...]:
    """The newest of `records` that fit `budget` (all of them with no budget)."""
    return tuple(records) if budget is None else newest_within(records, budget, _size)


def reader_requests(n: int, world: World | None = None) -> list[ReaderRequest]:
    """`n` distinct, small reader requests (for load tests and benchmarks)."""
    world = world or _check_world()
    items = [i for i in world.items if not i.is_definition]
    fork = world.timeline.fork
    return [
        ReaderRequest(
            items[k % len(items)], 1, fork,
            f"As of {fork:%Y-%m-%d %H:%M}: {items[k % len(items)].question} (#{k})", (),
        )
        for k in range(n)
    ]  # fmt: skip


class Unreachable(MemshiftError):
    """The profile's server could not be connected to at all."""


PROBE_TIMEOUT_S = 10.0


def probe(profile: Profile) -> None:
    """Raise `Unreachable` at once if no connection to the profile's server can be opened,
    before any request is built (a check of an HTTP profile is for a server that may be down)."""
    if profile.backend == "rules":
        return
    parts = urlsplit(profile.base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        asyncio.run(_connect(parts.hostname or "", port, min(profile.timeout_s, PROBE_TIMEOUT_S)))
    except OSError as exc:  # refused, no such host, or timed out
        where = f"{CONNECT_FAILED} {parts.hostname}:{port}"
        raise Unreachable(
            f"model profile {profile.name!r}: {where}: {connect_reason(exc)}"
        ) from exc


async def _connect(host: str, port: int, timeout: float) -> None:
    _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    writer.close()
    await writer.wait_closed()


CHECK_ATTEMPTS = 2
# how a transport failure's detail begins when the server answered with an error status
_ERROR_STATUS = re.compile(r"HTTP [45]\d\d\b")


@dataclass(frozen=True)
class Tried:
    """Another structured-output form tried for a role that failed in the profile's own."""

    role: str
    mode: str
    reply: Reply


def _with_mode(profile: Profile, role: str, mode: str) -> Profile:
    roles = {**profile.roles, role: {**profile.roles.get(role, {}), "structured": mode}}
    return dataclasses.replace(profile, roles=roles)


def _client(profile: Profile) -> ModelClient:
    retry = RetryPolicy(max_attempts=min(profile.max_attempts, CHECK_ATTEMPTS), retry_connect=False)
    return ModelClient(profile, cache_dir=None, retry=retry)


def run_check(profile: Profile, budgets: Mapping[str, int] | None = None) -> list[Reply]:
    probe(profile)
    replies = _client(profile).generate(check_requests(budgets=budgets))
    if replies and all(_unreachable(r) for r in replies):
        raise Unreachable(f"model profile {profile.name!r}: {replies[0].detail}")
    return replies


def try_other_forms(
    profile: Profile, replies: Sequence[Reply], budgets: Mapping[str, int] | None = None
) -> list[Tried]:
    """For every role whose failure may lie in its schema's form (`_worth_another_form`), the
    backend's other structured-output forms in their order, one request each until one works,
    so the check can say which form works."""
    tried: list[Tried] = []
    requests = {r.role: r for r in check_requests(budgets=budgets)}
    for reply in replies:
        if reply.ok or not _worth_another_form(reply):
            continue
        own = profile.structured_for(reply.role)
        for mode in STRUCTURED_MODES.get(profile.backend, ()):
            if mode == own:
                continue
            (other,) = _client(_with_mode(profile, reply.role, mode)).generate(
                [requests[reply.role]]
            )
            tried.append(Tried(reply.role, mode, other))
            if other.ok:
                break
    return tried


def token_ratio(
    measured: Sequence[tuple[Reply, str]], budgets: Mapping[str, int] | None = None
) -> float | None:
    """The server's prompt tokens over memshift's count of the same prompts (its `token_ratio`),
    over the (reply, structured form) pairs whose replies report their usage. A prompt in the
    `text` form holds the schema sentence and is counted with it; one in the `tool` form is
    left out, since each server renders a tool's parameters into the prompt in its own way."""
    requests = {r.role: r for r in check_requests(budgets=budgets)}
    counted = served = 0
    for reply, mode in measured:
        request = requests.get(reply.role)
        if not reply.usage.tokens_in or request is None or mode == "tool":
            continue
        messages = prompts.build(request)
        counted += sum(count_tokens(m["content"]) for m in messages)
        if mode == "text":
            counted += count_tokens(schema_sentence(SCHEMAS[schema_name(request)]))
        served += reply.usage.tokens_in
    return served / counted if counted else None


def _worth_another_form(reply: Reply) -> bool:
    """Whether the role's failure may lie in how its schema travelled: the server refused the
    request (naming a parameter or not) or answered without following the schema. A timeout, a
    cut reply or a prompt too long for the window fail the same way in every form."""
    if reply.failure in ("invalid_json", "schema_violation"):
        return True
    return reply.failure == "transport_error" and _ERROR_STATUS.match(reply.detail) is not None


def _unreachable(reply: Reply) -> bool:
    return reply.failure == "transport_error" and reply.detail.startswith(CONNECT_FAILED)


def _refused(profile: Profile, name: str) -> str:
    line = f"the server refused the parameter {name!r}"
    if name not in sent_parameters(profile):
        return line
    return (
        f"{line}: remove it from profile {profile.name}'s decoding or extra_body "
        "(a parameter a profile omits is not sent)"
    )


RAW_SHOWN = 200
_STATUS = re.compile(r"HTTP \d{3}")


def _outcome(reply: Reply) -> str:
    if reply.ok:
        return "ok"
    param = refused_parameter_in(reply.detail)
    status = _STATUS.match(reply.detail)
    if param is not None and status is not None:
        why = f"{status.group(0)}, the server refused the parameter {param!r}"
    else:
        why = f"{reply.failure}: {reply.detail}"
    said = f"; it said: {reply.raw[:RAW_SHOWN]!r}" if reply.raw else ""
    return f"FAILED ({why}{said})"


def _role_line(profile: Profile, reply: Reply, tried: Sequence[Tried]) -> str:
    """One line a role: its own form's outcome, each other form tried after it, and what the
    role's requests cost in all."""
    others = [t for t in tried if t.role == reply.role]
    forms = [f"{profile.structured_for(reply.role)} {_outcome(reply)}"]
    forms += [f"{t.mode} {_outcome(t.reply)}" for t in others]
    spent = [reply, *(t.reply for t in others)]
    cost = (
        f"{sum(r.attempts for r in spent)} attempt(s), {sum(r.latency_ms for r in spent):.0f} ms, "
        f"{sum(r.usage.tokens_in for r in spent)} tokens in, "
        f"{sum(r.usage.tokens_out for r in spent)} out"
    )
    return f"  {reply.role:<8} {'; '.join(forms)}; {cost}"


def report(
    profile: Profile,
    replies: list[Reply],
    tried: Sequence[Tried] = (),
    budgets: Mapping[str, int] | None = None,
) -> str:
    lines = [f"profile {profile.name}: backend {profile.backend}, model {profile.model}"]
    lines += [_role_line(profile, reply, tried) for reply in replies]
    everything = [*replies, *(t.reply for t in tried)]
    refused = sorted({p for r in everything if (p := refused_parameter_in(r.detail)) is not None})
    lines += [_refused(profile, name) for name in refused]
    working = {t.role: t.mode for t in tried if t.reply.ok}
    if working:
        settings = ", ".join(f"roles.{role}.structured: {mode}" for role, mode in working.items())
        if len(set(working.values())) == 1 and len(working) == len(replies):
            settings = f"structured: {next(iter(working.values()))}"
        lines.append(f"set in profile {profile.name}: {settings}")
    measured = [(r, profile.structured_for(r.role)) for r in replies]
    ratio = token_ratio(measured + [(t.reply, t.mode) for t in tried], budgets)
    if ratio is not None:
        lines.append(
            f"the server counted {ratio:.2f} of its tokens per token of memshift's count "
            f"(the profile's token_ratio: {profile.token_ratio:g})"
        )
    ok = sum(r.ok for r in replies)
    lines.append(f"{ok} of {len(replies)} roles work")
    return "\n".join(lines)
