"""Class 2: the cache never serves a wrong reply.

Entries carry the sha256 of their bytes; any damage (one changed byte anywhere in an entry, an
entry without a checksum, an index length no pack can hold, an undecodable or deeply nested
line) is a miss, the call is made again and a healed entry is written, which every process then
serves. An entry that is intact but no longer passes validation is passed over the same way.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

import pytest
from batchwork import openai_profile, reader_batch

from memshift.models.cache import CachedReply, ResponseCache, canonical, sealed
from memshift.models.client import ModelClient, key_meta, request_key
from memshift.models.profiles import Profile
from memshift_tools.book import RequestBook
from memshift_tools.localserver import LocalServer

PROFILE = Profile("p", "openai", model="m", base_url="http://h/v1", decoding={"max_tokens": 9})
REPLY = CachedReply('{"status": "answer", "value": "Lisbon"}', "stop", 12, 3)


def stored(root: Path, reply: CachedReply = REPLY, body: object = None) -> str:
    """Store one reply in a cache of its own under `root` and return its key."""
    key, body_json = request_key(PROFILE, body if body is not None else {"x": 1})
    store = ResponseCache(root)
    store.put(key, key_meta(PROFILE), body_json, reply)
    store.close()
    return key


def only(root: Path, suffix: str) -> Path:
    (path,) = (root / "packs").glob(f"*{suffix}")
    return path


def replace_in_pack(root: Path, old: bytes, new: bytes) -> None:
    pack = only(root, ".pack")
    data = pack.read_bytes()
    assert data.count(old) == 1, old
    pack.write_bytes(data.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"Lisbon", b"Lisbom"),  # one character of the content
        (b'"stop"', b'"stap"'),  # the finish reason
        (b'"tokens_in":12', b'"tokens_in":13'),  # a token count
        (b'"x":1', b'"x":2'),  # the request body
        (b'"model":"m"', b'"model":"n"'),  # what the key was computed from
        (b'"sha256":"', b'"sha256":"0'),  # the checksum itself (a byte more)
    ],
)
def test_one_changed_byte_anywhere_in_an_entry_is_a_miss(tmp_path, old, new):
    key = stored(tmp_path)
    replace_in_pack(tmp_path, old, new)
    assert ResponseCache(tmp_path).get(key) is None
    assert ResponseCache(tmp_path).components(key) is None


def test_a_changed_byte_of_the_same_length_inside_the_checksum_is_a_miss(tmp_path):
    key = stored(tmp_path)
    pack = only(tmp_path, ".pack")
    data = bytearray(pack.read_bytes())
    data[20] = ord("0") if data[20] != ord("0") else ord("1")
    pack.write_bytes(bytes(data))
    assert ResponseCache(tmp_path).get(key) is None


def test_an_entry_without_a_checksum_is_a_miss(tmp_path):
    """What an earlier version wrote, or a checksum field renamed by one character."""
    key = stored(tmp_path)
    replace_in_pack(tmp_path, b'"sha256"', b'"sha257"')
    assert ResponseCache(tmp_path).get(key) is None


def rewrite_index(root: Path, key: str, offset: str, length: str) -> None:
    only(root, ".index").write_text(f"{key} {offset} {length}\n")


@pytest.mark.parametrize(
    ("offset", "length"),
    [
        ("0", "9" * 15),  # a petabyte: no buffer is allocated for it
        ("0", "9" * 30),  # beyond any size pread takes
        ("0", "7" * 5000),  # beyond the digits Python converts
        ("9" * 30, "10"),  # an offset beyond any file
        ("0", str(2**31 - 1)),  # a length within bounds, but past the end of the pack
    ],
)
def test_an_index_line_with_an_absurd_offset_or_length_is_a_miss(tmp_path, offset, length):
    key = stored(tmp_path)
    rewrite_index(tmp_path, key, offset, length)
    reader = ResponseCache(tmp_path)
    assert reader.get(key) is None
    reader.refresh()


def test_an_entry_that_is_not_utf8_or_nested_too_deep_is_a_miss(tmp_path):
    key = stored(tmp_path)
    pack = only(tmp_path, ".pack")
    deep = b'{"key":"' + key.encode() + b'","reply":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    undecodable = b'{"key":"' + key.encode() + b'","reply":"\xff\xfe"}'
    for body in (deep, undecodable):
        line = sealed(body)
        pack.write_bytes(line)
        rewrite_index(tmp_path, key, "0", str(len(line)))
        assert ResponseCache(tmp_path).get(key) is None


@pytest.mark.parametrize(
    "reply",
    [
        {"content": 5, "finish_reason": "stop", "tokens_in": 1, "tokens_out": 1},
        {"content": "{}", "finish_reason": None, "tokens_in": 1, "tokens_out": 1},
        {"content": "{}", "finish_reason": "stop", "tokens_in": "1", "tokens_out": 1},
        {"content": "{}", "finish_reason": "stop", "tokens_in": 1},
        "not an object",
    ],
)
def test_an_intact_entry_whose_reply_has_the_wrong_types_is_a_miss(tmp_path, reply):
    key = request_key(PROFILE, {"x": 1})[0]
    line = sealed(canonical({"key": key, "meta": {}, "reply": reply, "body": {}}).encode())
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "h-1-a.pack").write_bytes(line)
    (tmp_path / "packs" / "h-1-a.index").write_text(f"{key} 0 {len(line)}\n")
    assert ResponseCache(tmp_path).get(key) is None


# --- Damage is followed by the call and a healed entry, which every process serves. ----------


@pytest.fixture(scope="module")
def batch():
    return reader_batch(4)


def damage_every_reply(root: Path) -> None:
    for pack in (root / "packs").glob("*.pack"):
        data = pack.read_bytes()
        pack.write_bytes(data.replace(b'\\"status\\"', b'\\"statuz\\"'))


def test_a_damaged_entry_is_called_again_and_healed_for_every_later_process(batch, tmp_path):
    with LocalServer(RequestBook(batch).answer) as server:
        profile = openai_profile(server.url)
        first = ModelClient(profile, cache_dir=tmp_path).generate(batch)
        damage_every_reply(tmp_path)
        server.reset()
        healed = ModelClient(profile, cache_dir=tmp_path).generate(batch)
        assert server.stats()["requests"] == len(batch), "every damaged entry is asked again"
        server.reset()
        later = ModelClient(profile, cache_dir=tmp_path).generate(batch)
        assert server.stats()["requests"] == 0, "the healed entries serve"
    assert [r.value for r in healed] == [r.value for r in later] == [r.value for r in first]
    assert not any(r.cache_hit for r in healed) and all(r.cache_hit for r in later)


def first_in_order(root: Path, replies: dict[str, CachedReply], profile: Profile) -> None:
    """Store `replies` in a pack whose name sorts before every other (so every process reads
    them first)."""
    store = ResponseCache(root / "scratch")
    for key, reply in replies.items():
        store.put(key, key_meta(profile), "{}", reply)
    store.close()
    (root / "packs").mkdir(exist_ok=True)
    for path in (root / "scratch" / "packs").iterdir():
        path.rename(root / "packs" / f"0-{path.name}")


def test_an_entry_that_fails_validation_is_replaced_once_not_asked_for_by_every_process(
    batch, tmp_path
):
    with LocalServer(RequestBook(batch).answer) as server:
        profile = openai_profile(server.url)
        keys = [r.cache_key for r in ModelClient(profile).generate(batch)]
        off_schema = CachedReply('{"unexpected": 1}', "stop", 1, 1)  # intact, but off the schema
        first_in_order(tmp_path, {key: off_schema for key in keys}, profile)
        server.reset()
        for _ in range(3):  # three later jobs, each a process of its own with a fresh cache
            assert all(r.ok for r in ModelClient(profile, cache_dir=tmp_path).generate(batch))
        assert server.stats()["requests"] == len(batch), "asked once, by the first job only"


def test_a_cached_reply_over_the_profiles_size_limit_is_not_served(batch, tmp_path):
    with LocalServer(RequestBook(batch).answer) as server:
        profile = openai_profile(server.url, max_reply_bytes=2048)
        (good,) = ModelClient(profile).generate(batch[:1])
        store = ResponseCache(tmp_path)
        padded = CachedReply(json.dumps(good.value) + " " * 5000, "stop", 1, 1)
        store.put(good.cache_key, key_meta(profile), "{}", padded)
        store.close()
        server.reset()
        (reply,) = ModelClient(profile, cache_dir=tmp_path).generate(batch[:1])
        assert server.stats()["requests"] == 1
    assert reply.ok and reply.value == good.value and not reply.cache_hit


def _heal(root: str, url: str, n: int) -> None:
    ModelClient(openai_profile(url), cache_dir=Path(root)).generate(reader_batch(n))


def test_many_processes_healing_at_once_each_serve_an_intact_reply(batch, tmp_path):
    """Concurrent writers stay safe: four processes find the same damaged entries, each calls
    and appends a healed copy to its own pack, and every later reader serves an intact one."""
    with LocalServer(RequestBook(reader_batch(8)).answer, latency=0.02) as server:
        ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(reader_batch(8))
        damage_every_reply(tmp_path)
        context = multiprocessing.get_context("spawn")
        workers = [
            context.Process(target=_heal, args=(str(tmp_path), server.url, 8)) for _ in range(4)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [0] * 4
        server.reset()
        replies = ModelClient(openai_profile(server.url), cache_dir=tmp_path).generate(
            reader_batch(8)
        )
        assert server.stats()["requests"] == 0
    assert all(r.ok and r.cache_hit for r in replies)


def test_the_checksum_covers_the_whole_line_after_it(tmp_path):
    key = stored(tmp_path)
    line = only(tmp_path, ".pack").read_bytes()
    head = b'{"sha256":"'
    digest = line[len(head) : len(head) + 64].decode()
    assert digest == hashlib.sha256(line[len(head) + 66 : -1]).hexdigest()
    assert json.loads(line)["key"] == key
