"""Reply bodies in the content coding a server sent them (`Content-Encoding`), decoded here.

aiohttp decodes gzip itself, but takes a gzip stream that stops before its end (a proxy that cut
the reply, a connection closed early) as a whole one: the call then fails as a malformed reply,
which is never asked for again, where a cut reply is a fault of the transport, like a dropped
connection, and is retried. This decoder is told where the body ends and refuses a stream that
has not ended there, one that is damaged, and data after it; and it gives out no more than the
bytes asked for, so a small body that unpacks to gigabytes is never held whole.
"""

from __future__ import annotations

import zlib

# What the transport asks for (`Accept-Encoding`); a server that sends anything else is refused.
ACCEPTED = ("gzip", "deflate")
_GZIP_WBITS = 16 + zlib.MAX_WBITS


class DecodingFailed(Exception):
    """A body whose coding cannot be undone: damaged, cut short, followed by other data, or in
    a coding that was not asked for."""


class BodyDecoder:
    """Undoes one body's content coding, chunk by chunk as it arrives."""

    def __init__(self, encoding: str | None) -> None:
        coding = (encoding or "").strip().lower() or "identity"
        if coding == "x-gzip":
            coding = "gzip"
        if coding not in (*ACCEPTED, "identity"):
            raise DecodingFailed(f"the reply is in content coding {coding[:40]!r}, not asked for")
        self.coding = coding
        self._inflater: zlib._Decompress | None = None
        self._ended = False
        self._seen = False

    def feed(self, chunk: bytes, room: int) -> bytes:
        """The decoded bytes of `chunk`, at most `room` of them: a caller that receives `room`
        bytes has reached its limit, and the rest is not unpacked."""
        if self.coding == "identity":
            return chunk[:room]
        if not chunk:
            return b""
        out = b""
        data = chunk
        while data and len(out) < room:
            if self._ended:
                data = self._next_member(data)
            inflater = self._inflater_for(data)
            try:
                out += inflater.decompress(data, room - len(out))
            except zlib.error as exc:
                raise DecodingFailed(f"the reply's {self.coding} body is damaged ({exc})") from None
            self._ended = inflater.eof
            data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
        return out

    def finish(self) -> None:
        """Refuse a coded body that ended before its coded stream did."""
        if self.coding == "identity":
            return
        if not self._seen:
            raise DecodingFailed(f"the reply's {self.coding} body is empty")
        if not self._ended:
            raise DecodingFailed(f"the reply's {self.coding} body ends before its coded stream")

    def _inflater_for(self, data: bytes) -> zlib._Decompress:
        if self._inflater is None:
            self._seen = True
            self._inflater = zlib.decompressobj(self._wbits(data))
        return self._inflater

    def _wbits(self, data: bytes) -> int:
        if self.coding == "gzip":
            return _GZIP_WBITS
        # "deflate" is meant as zlib's format, but some servers send the raw stream without its
        # header, as browsers and aiohttp accept
        return zlib.MAX_WBITS if data[0] & 0x0F == 8 else -zlib.MAX_WBITS

    def _next_member(self, data: bytes) -> bytes:
        """gzip may hold several members one after another; anything else after the end of the
        stream is refused."""
        if self.coding != "gzip" or not data.startswith(b"\x1f\x8b"):
            raise DecodingFailed(f"the reply's {self.coding} body goes on after its coded stream")
        self._inflater = None
        self._ended = False
        return data
