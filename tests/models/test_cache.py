"""The response cache: what goes into a key, what does not, and how entries are stored."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from pathlib import Path

import pytest

from memshift.models import prompts
from memshift.models.anthropic_backend import request_body as anthropic_body
from memshift.models.cache import CachedReply, ResponseCache, canonical, explain
from memshift.models.check import check_requests
from memshift.models.client import key_meta, request_key
from memshift.models.openai_backend import request_body as openai_body
from memshift.models.profiles import Profile
from memshift.models.reply_schemas import SCHEMAS

OPENAI = Profile(
    "p", "openai", model="m", revision="abc", base_url="http://h/v1",
    decoding={"temperature": 0.0, "top_p": 1.0, "max_tokens": 100, "seed": 0},
    extra_body={"chat_template_kwargs": {"enable_thinking": False}},
)  # fmt: skip
ANTHROPIC = Profile("a", "anthropic", model="c", base_url="http://h", decoding={"max_tokens": 10})


@pytest.fixture(scope="module")
def writer_request():
    return check_requests()[0]


def key(profile, request, *, schema=None, messages=None, structured="json_schema"):
    messages = messages or prompts.build(request)
    schema = schema or SCHEMAS[request.role]
    if profile.backend == "openai":
        body = openai_body(profile, request.role, messages, schema)
    else:
        body = anthropic_body(profile, request.role, messages, schema, structured)
    return request_key(profile, body)[0]


OUTPUT_CHANGES = {
    "model": {"model": "m2"},
    "revision": {"revision": "def"},
    "base_url": {"base_url": "http://other/v1"},
    "temperature": {"decoding": {**OPENAI.decoding, "temperature": 0.7}},
    "top_p": {"decoding": {**OPENAI.decoding, "top_p": 0.9}},
    "max_tokens": {"decoding": {**OPENAI.decoding, "max_tokens": 101}},
    "seed": {"decoding": {**OPENAI.decoding, "seed": 1}},
    "extra_body": {"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}},
    "role override": {"roles": {"writer": {"decoding": {"max_tokens": 5}}}},
}
NO_OUTPUT_CHANGES = {
    "name": {"name": "renamed"},
    "concurrency": {"concurrency": 3},
    "timeout": {"timeout_s": 5.0},
    "attempts": {"max_attempts": 2},
    "api key variable": {"api_key_env": "SOME_KEY"},
    "description": {"description": "words"},
    "another role's override": {"roles": {"reader": {"decoding": {"max_tokens": 5}}}},
}


@pytest.mark.parametrize("field", OUTPUT_CHANGES)
def test_an_output_affecting_field_changes_the_key(writer_request, field):
    changed = dataclasses.replace(OPENAI, **OUTPUT_CHANGES[field])
    assert key(changed, writer_request) != key(OPENAI, writer_request)


@pytest.mark.parametrize("field", NO_OUTPUT_CHANGES)
def test_a_field_that_cannot_change_output_leaves_the_key(writer_request, field):
    changed = dataclasses.replace(OPENAI, **NO_OUTPUT_CHANGES[field])
    assert key(changed, writer_request) == key(OPENAI, writer_request)


def test_messages_schema_and_backend_are_in_the_key(writer_request):
    base = key(OPENAI, writer_request)
    messages = prompts.build(writer_request)
    edited = [messages[0], {**messages[1], "content": messages[1]["content"] + " "}]
    assert key(OPENAI, writer_request, messages=edited) != base
    assert key(OPENAI, writer_request, schema={**SCHEMAS["writer"], "title": "x"}) != base
    as_anthropic = dataclasses.replace(OPENAI, backend="anthropic")
    assert key(as_anthropic, writer_request) != base
    assert key(ANTHROPIC, writer_request) != key(ANTHROPIC, writer_request, structured="tool")
    thinking = dataclasses.replace(ANTHROPIC, thinking={"type": "enabled", "budget_tokens": 5})
    assert key(thinking, writer_request) != key(ANTHROPIC, writer_request)


def test_the_request_context_is_not_in_the_key(writer_request):
    from memshift.models.requests import CallContext

    other = dataclasses.replace(writer_request, context=CallContext(run="r", world=3, item="x"))
    assert key(OPENAI, other) == key(OPENAI, writer_request)


def put(store, profile=OPENAI, body=None, content='{"value": null}'):
    """Store one reply for `body` and return its key."""
    k, body_json = request_key(profile, body if body is not None else {"x": 1})
    store.put(k, key_meta(profile), body_json, CachedReply(content, "stop", 12, 3))
    return k


def test_entries_round_trip_and_explain_names_the_differing_field(tmp_path):
    store = ResponseCache(tmp_path)
    body = openai_body(OPENAI, "writer", [{"role": "user", "content": "hi"}], {})
    k = request_key(OPENAI, body)[0]
    assert store.get(k) is None
    assert put(store, body=body) == k
    assert store.get(k) == CachedReply('{"value": null}', "stop", 12, 3)
    assert ResponseCache(tmp_path).get(k) == store.get(k), "another process reads it too"
    k2 = put(store, dataclasses.replace(OPENAI, revision="zzz"), body)
    assert store.components(k)["body"] == body
    assert explain(store.components(k), store.components(k2)) == ['revision: "abc" != "zzz"']
    assert any(line.startswith("body.messages[0].content") for line in explain(store.components(k)))
    assert canonical({"b": 1, "a": 2}) == '{"a":2,"b":1}'


def test_one_process_writes_one_pack_and_one_index_whatever_the_number_of_entries(tmp_path):
    store = ResponseCache(tmp_path)
    keys = [put(store, body={"n": n}) for n in range(50)]
    store.close()
    files = sorted(p.suffix for p in tmp_path.rglob("*") if p.is_file())
    assert files == [".index", ".pack"]
    assert ResponseCache(tmp_path).stored_keys() == set(keys)


def only(folder, suffix):
    (path,) = folder.glob(f"*{suffix}")
    return path


def test_a_damaged_entry_is_a_miss_and_its_next_copy_serves(tmp_path):
    store = ResponseCache(tmp_path)
    k = put(store)
    store.close()
    pack = only(store.packs, ".pack")
    pack.write_bytes(b"{half" + pack.read_bytes()[5:])
    fresh = ResponseCache(tmp_path)
    assert fresh.get(k) is None
    put(fresh, content='{"value": 2}')
    assert fresh.get(k).content == '{"value": 2}'
    assert ResponseCache(tmp_path).get(k).content == '{"value": 2}', "skips the damaged copy"


def test_a_torn_last_line_is_skipped_and_the_rest_still_serves(tmp_path):
    """What a process killed in the middle of a write leaves: part of an entry, or an entry
    and part of its index line."""
    store = ResponseCache(tmp_path)
    kept = [put(store, body={"n": n}) for n in range(3)]
    torn = put(store, body={"n": "torn"})
    store.close()
    index = only(store.packs, ".index")
    lines = index.read_bytes().splitlines(keepends=True)
    index.write_bytes(b"".join(lines[:-1]) + lines[-1][:70])
    pack = only(store.packs, ".pack")
    pack.write_bytes(pack.read_bytes()[:-20])
    reader = ResponseCache(tmp_path)
    assert reader.stored_keys() == set(kept)
    assert reader.get(torn) is None
    assert all(reader.get(k) is not None for k in kept)


def test_index_lines_of_any_other_shape_are_skipped(tmp_path):
    store = ResponseCache(tmp_path)
    k = put(store)
    store.close()
    index = only(store.packs, ".index")
    junk = [b"\xff" * 64 + b" 0 10", b"short 0 10", b"a" * 64 + b" x 10", b"a" * 64 + b" 0", b""]
    index.write_bytes(b"\n".join(junk) + b"\n" + index.read_bytes())
    reader = ResponseCache(tmp_path)
    assert reader.stored_keys() == {k}
    assert reader.get(k) is not None


def test_an_index_line_pointing_past_its_pack_is_a_miss(tmp_path):
    store = ResponseCache(tmp_path)
    k = put(store)
    store.close()
    pack = only(store.packs, ".pack")
    pack.write_bytes(pack.read_bytes()[:-1])
    assert ResponseCache(tmp_path).get(k) is None


def test_entries_of_the_first_layout_are_still_read(tmp_path):
    """A cache written before packs (one JSON file per key) keeps serving its replies."""
    body = {"x": "legacy"}
    k = request_key(OPENAI, body)[0]
    old = ResponseCache(tmp_path).legacy_path(k)
    old.parent.mkdir(parents=True)
    reply = {"content": "{}", "finish_reason": "stop", "tokens_in": 4, "tokens_out": 1}
    meta = {"format": "memshift-cache-1", **key_meta(OPENAI)}
    old.write_text(canonical({"key": k, "meta": meta, "reply": reply, "body": body}))
    store = ResponseCache(tmp_path)
    assert store.get(k) == CachedReply("{}", "stop", 4, 1)
    assert store.components(k)["body"] == body
    assert store.stored_keys() == {k}


def test_entries_another_process_adds_later_are_seen_after_a_refresh(tmp_path):
    reader = ResponseCache(tmp_path)
    assert reader.stored_keys() == set()
    k = put(ResponseCache(tmp_path))
    assert reader.get(k) is None, "the index as first read"
    reader.refresh()
    assert reader.get(k) is not None


def test_a_key_stored_twice_resolves_to_the_same_entry_in_every_process(tmp_path):
    for content in ('{"value": 1}', '{"value": 2}', '{"value": 3}'):
        k = put(ResponseCache(tmp_path), content=content)
    first = sorted(ResponseCache(tmp_path).packs.glob("*.pack"))[0]
    expected = json.loads(first.read_bytes())["reply"]["content"]
    assert {ResponseCache(tmp_path).get(k).content for _ in range(3)} == {expected}


def _writer(root, start, count):
    store = ResponseCache(Path(root))
    for n in range(start, start + count):
        put(store, body={"n": n}, content=json.dumps({"value": n}))


def test_many_processes_writing_at_once_lose_and_mix_up_nothing(tmp_path):
    # Overlapping ranges: some keys are written by two processes, as racing jobs would.
    spans = [(0, 300), (200, 300), (400, 300), (600, 300)]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(tmp_path), *s)) for s in spans]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0] * len(workers)
    store = ResponseCache(tmp_path)
    assert len(list(store.packs.glob("*.pack"))) == len(spans)
    for n in range(900):
        reply = store.get(request_key(OPENAI, {"n": n})[0])
        assert reply is not None and json.loads(reply.content) == {"value": n}


def test_a_forked_child_appends_to_a_pack_of_its_own(tmp_path):
    store = ResponseCache(tmp_path)
    put(store, body={"n": "parent"})
    child = multiprocessing.get_context("fork").Process(
        target=lambda: put(store, body={"n": "child"})
    )
    child.start()
    child.join(30)
    assert child.exitcode == 0
    put(store, body={"n": "parent again"})
    assert len(list(store.packs.glob("*.pack"))) == 2
    assert ResponseCache(tmp_path).stored_keys() == {
        request_key(OPENAI, {"n": n})[0] for n in ("parent", "child", "parent again")
    }
