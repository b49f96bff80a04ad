"""What HoldMem's detection writes: one record per writer output and one maintenance row per item
and checkpoint. Repair reads them; neither needs the detection's code."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memshift.models.client import ModelClient
    from memshift.models.replies import Reply
    from memshift.models.requests import WriterRequest


@dataclass(frozen=True)
class WriteRecord:
    """One writer output: shared by every D arm of a cell."""

    write_id: str
    item_id: str
    checkpoint: int
    time: datetime
    version: int
    kind: str  # prefork | rederive | delta | refresh
    selection: tuple[tuple[str, int], ...]
    value: Any
    statement: str
    citations: tuple[dict[str, Any], ...]
    failure: str | None
    delta_since: datetime | None = None
    # False for a delta write whose writer found nothing in the delta on the item: asked, but no
    # item written
    new_item: bool = True


@dataclass(frozen=True)
class MaintenanceRow:
    item_id: str
    checkpoint: int
    invalidated: bool
    reason: str
    key_before: str
    key_after: str
    rederived: bool
    write_id: str


def writer_id(client: ModelClient) -> str:
    p = client.profile
    return f"{p.name}:{p.model}@{p.revision}"


def written(request: WriterRequest, reply: Reply, kind: str, checkpoint: int) -> WriteRecord:
    """The record of one writer reply to `request`, written at `checkpoint`."""
    value = reply.value or {}
    nothing_new = reply.ok and value.get("bears_on_item") is False
    return WriteRecord(
        write_id=f"{request.item.item_id}@{checkpoint}:{kind}",
        item_id=request.item.item_id,
        checkpoint=checkpoint,
        time=request.as_of,
        version=request.version,
        kind=kind,
        selection=tuple((r.object_id, r.revision) for r in request.records),
        value=value.get("value"),
        statement=value.get("statement", ""),
        citations=tuple(value.get("citations", ())),
        failure=reply.failure,
        delta_since=request.delta_since,
        new_item=not nothing_new,
    )
