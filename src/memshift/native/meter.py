"""The model calls a native library makes, metered between the library and its server.

The libraries call their OpenAI-compatible server with their own clients and keep no log of
those calls that we could read. The meter is a forwarding server on 127.0.0.1 that the library
is given as its server: a request to `<meter>/chat/v1/...` goes unchanged to the profile's
`base_url` (which ends in /v1) + `...`, one to `<meter>/embed/v1/...` to the embedder's, and
the reply comes back unchanged.
Each call is a row: which server, the HTTP status (or the connection failure), and the tokens
the server's `usage` reports (none when it reports none). The rows join the job's call log as
role `library-model`, so the report counts the library's own calls and tokens, and their
failures, beside the reader's (MemShift F.9: LLM calls and tokens per event)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ROLE = "library-model"
ROUTES = ("chat", "embed")
VERSION = "/v1"
MAX_BODY = 64 * 1024 * 1024
FORWARDED_HEADERS = ("Content-Type", "Authorization", "Accept", "api-key", "x-api-key")


@dataclass(frozen=True)
class MeteredCall:
    route: str  # chat | embed
    path: str  # the path after the route, e.g. /v1/chat/completions
    status: int  # the server's HTTP status; 0 when no reply came
    tokens_in: int
    tokens_out: int
    latency_ms: float
    failure: str | None  # None, http_error or transport_error
    detail: str


def usage_tokens(body: bytes) -> tuple[int, int]:
    """(prompt, completion) tokens of an OpenAI reply's `usage`; 0 where it reports none."""
    try:
        usage = json.loads(body).get("usage") or {}
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0, 0


class Meter:
    """A forwarding server for one library; use as a context manager."""

    def __init__(
        self,
        chat_upstream: str,
        embed_upstream: str,
        timeout_s: float = 600.0,
        on_call: Callable[[int, int], None] | None = None,
    ) -> None:
        """`on_call` is told the tokens in and out of each call as it ends (progress)."""
        self.upstreams = {"chat": chat_upstream.rstrip("/"), "embed": embed_upstream.rstrip("/")}
        self.timeout_s = timeout_s
        self.on_call = on_call
        self.calls: list[MeteredCall] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, route: str) -> str:
        """What the library is given in place of the server's base URL. It ends in /v1 as the
        profiles' base URLs do: a library that adds /v1 to a base URL without it (Cognee's
        embedder does) then asks for the same paths."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/{route}{VERSION}"

    def __enter__(self) -> Meter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def tokens(self) -> tuple[int, int]:
        """The tokens in and out of every call so far."""
        with self._lock:
            return (
                sum(call.tokens_in for call in self.calls),
                sum(call.tokens_out for call in self.calls),
            )

    def _record(self, call: MeteredCall) -> None:
        with self._lock:
            self.calls.append(call)
            if self.on_call is not None:
                self.on_call(call.tokens_in, call.tokens_out)

    def forward(
        self, route: str, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes, str]:
        """(status, body, content type) of the upstream's reply; records the call."""
        start = time.perf_counter()
        request = urllib.request.Request(
            self.upstreams[route] + path, data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:
                status, data = reply.status, reply.read(MAX_BODY + 1)
                kind = reply.headers.get("Content-Type", "application/json")
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read(MAX_BODY + 1)
            kind = exc.headers.get("Content-Type", "application/json")
        except (OSError, ValueError) as exc:
            self._record(
                MeteredCall(route, path, 0, 0, 0, _ms(start), "transport_error", str(exc)[:300])
            )
            return (
                502,
                json.dumps({"error": {"message": f"meter: {exc}"}}).encode(),
                "application/json",
            )
        tokens_in, tokens_out = usage_tokens(data) if status == 200 else (0, 0)
        failure = None if status == 200 else "http_error"
        detail = (
            "" if failure is None else f"HTTP {status}: {data[:200].decode('utf-8', 'replace')}"
        )
        self._record(
            MeteredCall(route, path, status, tokens_in, tokens_out, _ms(start), failure, detail)
        )
        return status, data[:MAX_BODY], kind

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        meter = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                route, _, rest = self.path.lstrip("/").partition("/")
                length = int(self.headers.get("Content-Length") or 0)
                known = route in ROUTES and ("/" + rest).startswith(VERSION + "/")
                if not known or length > MAX_BODY:
                    self.send_error(404 if not known else 413)
                    return
                body = self.rfile.read(length)
                headers = {h: self.headers[h] for h in FORWARDED_HEADERS if self.headers.get(h)}
                path = ("/" + rest).removeprefix(VERSION)
                status, data, kind = meter.forward(route, path, body, headers)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _ms(start: float) -> float:
    return round(1000 * (time.perf_counter() - start), 3)
