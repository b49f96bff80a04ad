"""A native library's own calls as rows of the call log (role `library`), so that the report
counts them and their failures beside the model calls (`analysis/failures.py`).

The libraries keep no log of their calls we could read, only the adapter's count of them
(`cost().calls`: Mem0's adds, LightRAG's chat calls) and the messages of those that failed. One
row per counted call: the failed ones first, each with its message as the detail, then the
others. A failure the adapter counts outside its calls (a Mem0 invalidation, a LightRAG document
not processed) counts as a call too, so the failed share never exceeds one. These rows carry no
tokens; the library's own model calls, with their tokens, are other rows (role `library-model`,
`metered_rows`), as the meter between the library and its server saw them (`native/meter.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from memshift import schemas
from memshift.native.meter import ROLE as METERED  # the library's own model calls, metered
from memshift.native.meter import MeteredCall

ROLE = "library"
# the failure reason of a library call that failed (model calls name theirs: models/replies.py)
FAILURE = "library_error"


def _base(
    *, run: str, world: int, branch: str, system: str, library: str, model: str
) -> dict[str, Any]:
    return {
        "run": run,
        "role": ROLE,
        "world": world,
        "branch": branch,
        "system": system,
        "item": "",
        "checkpoint": None,
        "backend": library,
        "model": model,
        "cache_key": "",
        "cache_hit": False,
        "attempts": 1,
        "tokens_in": 0,
        "tokens_out": 0,
        "latency_ms": 0.0,
        "finish_reason": "",
    }


def metered_rows(
    calls: Sequence[MeteredCall], *, embedder_model: str, **where: Any
) -> list[dict[str, Any]]:
    """The call-log rows (role `library-model`) of the library's own model calls, as the meter
    saw them: each with its tokens, failed when the server refused it or did not answer."""
    base = {**_base(**where), "role": METERED}
    return [
        {
            **base,
            "model": base["model"] if call.route == "chat" else embedder_model,
            "item": call.route,
            "tokens_in": call.tokens_in,
            "tokens_out": call.tokens_out,
            "latency_ms": call.latency_ms,
            "failure": call.failure,
            "detail": call.detail,
        }
        for call in calls
    ]


def library_rows(
    calls: int,
    failures: Sequence[str],
    *,
    run: str,
    world: int,
    branch: str,
    system: str,
    library: str,
    model: str,
) -> list[dict[str, Any]]:
    """The call-log rows of `calls` library calls of which `failures` (their messages) failed."""
    base = _base(run=run, world=world, branch=branch, system=system, library=library, model=model)
    failed = [{**base, "failure": FAILURE, "detail": message} for message in failures]
    done = [{**base, "failure": None, "detail": ""}] * max(0, calls - len(failures))
    return failed + done


def library_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """`rows` as a call-log table; a column the rows lack (one added to the log since) is
    empty text, or null where it is not text."""
    columns = {
        field.name: [
            row.get(field.name, "" if pa.types.is_string(field.type) else None) for row in rows
        ]
        for field in schemas.CALLS
    }
    return pa.Table.from_pydict(columns, schema=schemas.CALLS)
