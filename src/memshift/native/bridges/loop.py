"""The JSON-lines loop of a library's process (`native/bridge.py` is the other end).

One request a line on stdin, `{"op": NAME, ...arguments}`, one reply a line on the protocol
stream: `{"ok": RESULT}`, or `{"failed": MESSAGE}` when the library raised (the adapter counts it
as a failed library call, the system's behaviour), or `{"refused": MESSAGE}` for a request this
end cannot take. The library's own printing, and anything written to file descriptor 1 by C code,
goes to stderr: the protocol stream is a copy of stdout taken before the library is imported."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TextIO

Handler = Callable[..., Any]
MAX_MESSAGE = 2000


def protocol_stream() -> TextIO:
    """A private copy of stdout for the replies; fd 1 and sys.stdout then point at stderr."""
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def _reply(stream: TextIO, reply: dict[str, Any]) -> None:
    stream.write(json.dumps(reply, ensure_ascii=True, allow_nan=False) + "\n")
    stream.flush()


def serve(handlers: dict[str, Handler], stream: TextIO) -> None:
    """Answer requests until stdin closes or a `close` request has been answered."""
    for line in sys.stdin:
        try:
            request = json.loads(line)
            op = request.pop("op")
            handler = handlers[op]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            _reply(stream, {"refused": f"not a request of this bridge: {exc!r}"[:MAX_MESSAGE]})
            continue
        try:
            result = handler(**request)
        except Exception as exc:  # the library's failure is the system's behaviour
            traceback.print_exc(file=sys.stderr)
            _reply(stream, {"failed": f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]})
            continue
        _reply(stream, {"ok": result})
        if op == "close":
            return


def run(library: Callable[[], object], ops: Sequence[str]) -> None:
    """A bridge module's `main`: the protocol stream taken, then the library's object made (so
    nothing it prints on import reaches the protocol) and its methods `ops` served."""
    stream = protocol_stream()
    made = library()
    serve({op: getattr(made, op) for op in ops}, stream)


def installed_version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)
