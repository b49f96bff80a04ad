"""Class 11: a reply whose gzip coding cannot be undone is a transport fault, retried like a
dropped connection; a whole one is read; none is unpacked past the reply limit."""

from __future__ import annotations

import asyncio
import gzip
import time
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp import web
from batchwork import openai_profile, reader_batch

from conftest import finishes
from memshift.models.backends import status_failure
from memshift.models.client import ModelClient
from memshift.models.content_coding import BodyDecoder, DecodingFailed
from memshift.models.http import HttpTransport
from memshift.models.profiles import Profile
from memshift.models.retry import ReplyTooLarge, RetryPolicy, TransportFailure
from memshift_tools.book import RequestBook
from memshift_tools.localfaults import gzipped
from memshift_tools.localserver import FaultRule, LocalServer

DAMAGED = ("cut", "damaged", "not_gzip", "trailing", "empty")
WHOLE = ("whole", "members")
NO_WAIT = RetryPolicy(max_attempts=3, base_delay=0.0)
BODY = b'{"choices": [{"message": {"content": "x"}}], "pad": "' + b"ab" * 4000 + b'"}'


@pytest.fixture(scope="module")
def batch():
    return reader_batch(3)


def anthropic_profile(url: str) -> Profile:
    return Profile("claude-local", "anthropic", model="claude-local", base_url=url,
                   timeout_s=10.0, max_attempts=3, decoding={"max_tokens": 512})  # fmt: skip


def profile_for(backend: str, url: str, **changes: Any) -> Profile:
    if backend == "openai":
        return openai_profile(url, timeout_s=10.0, max_attempts=3, **changes)
    return anthropic_profile(url)


def served(batch, rules: list[FaultRule], backend: str = "openai", **changes: Any):
    """The batch's replies from the local server under `rules`, and the server's stats."""
    with LocalServer(RequestBook(batch).answer, faults=rules) as server:
        client = ModelClient(profile_for(backend, server.url, **changes), retry=NO_WAIT)
        replies = finishes(lambda: client.generate(batch))
        return replies, server.stats()


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
@pytest.mark.parametrize("variant", DAMAGED)
def test_a_damaged_gzip_reply_is_asked_for_again_and_answered(batch, variant, backend):
    replies, stats = served(batch, [FaultRule("gzip", attempts=1, variant=variant)], backend)
    assert all(r.ok for r in replies), [r.detail for r in replies]
    assert [r.attempts for r in replies] == [2] * len(batch)
    assert stats["requests"] == 2 * len(batch) and stats["faults"] == {"gzip": len(batch)}


@pytest.mark.parametrize("variant", DAMAGED)
def test_a_reply_damaged_every_time_ends_as_a_transport_failure_naming_gzip(batch, variant):
    replies, stats = served(batch[:1], [FaultRule("gzip", attempts=None, variant=variant)])
    (reply,) = replies
    assert not reply.ok and reply.failure == "transport_error" and reply.attempts == 3
    assert "gzip body" in reply.detail and "\n" not in reply.detail
    assert stats["requests"] == 3


@pytest.mark.parametrize("variant", WHOLE)
def test_a_whole_gzip_reply_is_read_at_the_first_attempt(batch, variant):
    replies, stats = served(batch, [FaultRule("gzip", attempts=None, variant=variant)])
    assert all(r.ok and r.attempts == 1 for r in replies), [r.detail for r in replies]
    assert stats["requests"] == len(batch)


def test_a_gzip_reply_unpacking_past_the_limit_is_too_large_and_not_unpacked_whole(batch):
    # 64 MiB of padding in about 64 KB of gzip, against a 64 KiB limit
    bomb = FaultRule("gzip", attempts=None, variant="bomb")
    start = time.perf_counter()
    replies, _ = served(batch[:1], [bomb], max_reply_bytes=64 * 1024)
    (reply,) = replies
    assert reply.failure == "reply_too_large" and reply.attempts == 1
    assert time.perf_counter() - start < 30


def test_a_reply_just_under_the_limit_when_unpacked_is_read(batch):
    padded = FaultRule("gzip", attempts=None, variant="bomb", size=32 * 1024)
    replies, _ = served(batch[:1], [padded], max_reply_bytes=64 * 1024)
    assert replies[0].ok, replies[0].detail


# --- The transport against raw servers --------------------------------------------------------


async def _post_to(handler: Callable[[web.Request], Any], limit: int = 1 << 20):
    app = web.Application()
    app.router.add_post("/x", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    transport = HttpTransport(10.0, limit)
    try:
        return await transport.post(f"http://127.0.0.1:{port}/x", b"{}", {})
    finally:
        await transport.aclose()
        await runner.cleanup()


def post_to(handler: Callable[[web.Request], Any], limit: int = 1 << 20):
    return finishes(lambda: asyncio.run(_post_to(handler, limit)))


def replying(status: int, body: bytes, coding: str, chunked: bool = False):
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(status=status, headers={"Content-Encoding": coding})
        if chunked:
            response.enable_chunked_encoding()
        else:
            response.content_length = len(body)
        await response.prepare(request)
        for start in range(0, len(body), 1000):
            await response.write(body[start : start + 1000])
        await response.write_eof()
        return response

    return handler


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("variant", DAMAGED)
def test_the_transport_refuses_a_damaged_coded_body_as_a_retryable_fault(variant, chunked):
    with pytest.raises(TransportFailure) as caught:
        post_to(replying(200, gzipped(BODY, variant, 0), "gzip", chunked))
    assert caught.value.retryable and "gzip body" in caught.value.detail


@pytest.mark.parametrize("chunked", [False, True])
def test_the_transport_reads_gzip_deflate_and_raw_deflate(chunked):
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    for body, coding in (
        (gzip.compress(BODY), "gzip"),
        (gzip.compress(BODY), "x-gzip"),
        (zlib.compress(BODY), "deflate"),
        (raw.compress(BODY) + raw.flush(), "deflate"),
        (BODY, "identity"),
    ):
        assert post_to(replying(200, body, coding, chunked)).body == BODY, coding


def test_the_transport_asks_only_for_the_codings_it_undoes():
    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=request.headers.get("Accept-Encoding", "").encode())

    assert post_to(handler).body == b"gzip, deflate"


@pytest.mark.parametrize("coding", ["br", "zstd", "compress", "gzip, gzip"])
def test_a_coding_not_asked_for_is_a_retryable_fault(coding):
    with pytest.raises(TransportFailure, match="not asked for") as caught:
        post_to(replying(200, BODY, coding))
    assert caught.value.retryable


@pytest.mark.parametrize(("status", "retried"), [(500, True), (503, True), (400, False)])
def test_an_error_reply_with_a_damaged_body_keeps_its_status(status, retried):
    reply = post_to(replying(status, gzip.compress(b'{"error": "busy"}')[:-6], "gzip"))
    assert reply.status == status and reply.body.startswith(b'{"error"')
    assert RetryPolicy().retries(status_failure(reply, ())) is retried


def test_a_deflate_bomb_is_cut_at_the_limit():
    bomb = zlib.compress(b" " * (256 * 1024 * 1024), 9)
    with pytest.raises(ReplyTooLarge):
        post_to(replying(200, bomb, "deflate", chunked=True), limit=64 * 1024)


def test_the_decoder_never_gives_more_than_the_room_asked_for():
    decoder = BodyDecoder("gzip")
    out = decoder.feed(gzip.compress(b"a" * 10_000_000), 4097)
    assert len(out) == 4097


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_the_decoder_refuses_a_stream_fed_in_pieces_that_stops_early(coding):
    packed = gzip.compress(BODY) if coding == "gzip" else zlib.compress(BODY)
    cut = packed[:-3]
    decoder = BodyDecoder(coding)
    out = b"".join(decoder.feed(cut[n : n + 7], 1 << 20) for n in range(0, len(cut), 7))
    assert BODY.startswith(out)
    with pytest.raises(DecodingFailed, match="ends before"):
        decoder.finish()
