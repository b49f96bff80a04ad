"""A lean HTTP transport for the API backends, on aiohttp.

The official client libraries cost about 0.85 ms of CPU per request on the reference machine
(parameter transformation, option copies, their JSON encoder), more than the whole per-call budget
of a client that must keep a model server saturated; the wire protocols themselves are two small
JSON POSTs. The backends therefore speak them directly; the tests check the local server that
stands in for the providers against the official `openai` and `anthropic` libraries.

A reply body is read up to the profile's `max_reply_bytes` and no further: a larger successful
reply is a `ReplyTooLarge` failure, a larger error body is cut at the limit. The limit counts the
body as decoded: gzip and deflate are undone here (`content_coding`), not by aiohttp, so a
successful reply whose coded body is damaged or cut short fails as the transport fault it is,
and is retried.
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp

from memshift.models.content_coding import ACCEPTED, BodyDecoder, DecodingFailed
from memshift.models.retry import ReplyTooLarge, TransportFailure

CONNECT_FAILED = "cannot connect to"


@dataclass(frozen=True)
class HttpReply:
    status: int
    body: bytes
    retry_after: str | None
    retry_after_ms: str | None = None


class HttpTransport:
    def __init__(self, timeout_s: float, max_reply_bytes: int) -> None:
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self.max_reply_bytes = max_reply_bytes
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30)
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=self.timeout, auto_decompress=False
            )
        return self._session

    async def post(self, url: str, data: bytes, headers: dict[str, str]) -> HttpReply:
        headers = {**headers, "Accept-Encoding": ", ".join(ACCEPTED)}
        try:
            async with self._open().post(url, data=data, headers=headers) as response:
                body = await self._body(response)
                return HttpReply(
                    response.status,
                    body,
                    response.headers.get("retry-after"),
                    response.headers.get("retry-after-ms"),
                )
        except TimeoutError as exc:
            raise TransportFailure(f"timed out after {self.timeout.total} s") from exc
        except DecodingFailed as exc:
            raise TransportFailure(str(exc)) from exc
        except aiohttp.ClientConnectorError as exc:
            raise TransportFailure(
                f"{CONNECT_FAILED} {exc.host}:{exc.port}: {connect_reason(exc.os_error)}",
                connect=True,
            ) from exc
        except aiohttp.ClientError as exc:
            raise TransportFailure(f"connection error: {type(exc).__name__}: {exc}") from exc

    async def _body(self, response: aiohttp.ClientResponse) -> bytes:
        limit = self.max_reply_bytes
        ok = response.status == 200
        declared = response.content_length
        if ok and declared is not None and declared > limit:
            raise ReplyTooLarge(too_large(limit, declared))
        decoder = _decoder(response.headers.get("Content-Encoding"), ok)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.content.iter_any():
            try:
                piece = decoder.feed(chunk, limit + 1 - size)
            except DecodingFailed:
                if ok:
                    raise
                break  # an error body is only quoted: as far as it decodes
            chunks.append(piece)
            size += len(piece)
            if size > limit:
                if ok:
                    raise ReplyTooLarge(too_large(limit))
                break  # an error body is only quoted, from its start
        if ok:
            decoder.finish()
        return b"".join(chunks)[:limit]

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _decoder(encoding: str | None, ok: bool) -> BodyDecoder:
    """The decoder of a body; an error body in a coding not asked for is quoted as it came."""
    try:
        return BodyDecoder(encoding)
    except DecodingFailed:
        if ok:
            raise
        return BodyDecoder(None)


def connect_reason(error: OSError) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused (is the server running?)"
    if isinstance(error, TimeoutError):
        return "timed out"
    return error.strerror or str(error) or type(error).__name__


def too_large(limit: int, declared: int | None = None) -> str:
    size = "" if declared is None else f" ({declared:,} bytes)"
    return f"reply too large{size}: over the limit of {limit:,} bytes (max_reply_bytes)"
