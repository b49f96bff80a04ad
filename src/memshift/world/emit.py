"""Turns a component's decisions into events: ids, revisions, rendered text and token counts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memshift.tokens import count_tokens
from memshift.world.ids import opaque_id
from memshift.world.records import Event
from memshift.world.render import render


class Emitter:
    """Event factory for one component. Objects are named internally with the component's
    prefix, so no component's numbering depends on another's; the id a record carries is the
    opaque form of that name under the world's id salt (`memshift.world.ids`)."""

    def __init__(
        self, component: str, prefix: str, id_salt: str, revisions: dict[str, int] | None = None
    ) -> None:
        self.component = component
        self.prefix = prefix
        self.id_salt = id_salt
        self.events: list[Event] = []
        self._objects = 0
        self._revisions: dict[str, int] = dict(revisions or {})
        self._shape: dict[str, tuple[str, str, str, str]] = {}

    def new_object_id(self, source_prefix: str) -> str:
        self._objects += 1
        return opaque_id(self.id_salt, f"{self.prefix}-{self._objects:04d}", source_prefix)

    def _event(
        self,
        t: datetime,
        op: str,
        object_id: str,
        source: str,
        kind: str,
        cluster: str,
        fields: dict[str, Any],
        text: str,
        asserts: dict[str, Any] | None,
    ) -> Event:
        event = Event(
            event_id=f"{self.prefix}:{len(self.events) + 1:05d}",
            time=t,
            op=op,
            object_id=object_id,
            source=source,
            kind=kind,
            revision=self._revisions.get(object_id, 0),
            cluster=cluster,
            fields=fields,
            text=text,
            component=self.component,
            asserts=dict(asserts or {}),
            tokens=count_tokens(text),
        )
        self.events.append(event)
        return event

    def insert(
        self,
        t: datetime,
        object_id: str,
        source: str,
        kind: str,
        cluster: str,
        fields: dict[str, Any],
        body: str = "",
        asserts: dict[str, Any] | None = None,
    ) -> Event:
        if object_id in self._revisions:
            raise ValueError(f"object {object_id} inserted twice")
        self._revisions[object_id] = 1
        self._shape[object_id] = (source, kind, cluster, body)
        return self._event(
            t,
            "insert",
            object_id,
            source,
            kind,
            cluster,
            fields,
            render(source, kind, fields, body),
            asserts,
        )

    def update(
        self,
        t: datetime,
        object_id: str,
        fields: dict[str, Any],
        asserts: dict[str, Any] | None = None,
        *,
        shape: tuple[str, str, str, str] | None = None,
    ) -> Event:
        source, kind, cluster, body = shape or self._shape[object_id]
        self._revisions[object_id] += 1
        return self._event(
            t,
            "update",
            object_id,
            source,
            kind,
            cluster,
            fields,
            render(source, kind, fields, body),
            asserts,
        )

    def delete(self, t: datetime, object_id: str, source: str, kind: str, cluster: str) -> Event:
        self._revisions[object_id] += 1
        return self._event(t, "delete", object_id, source, kind, cluster, {}, "", None)

    def memory_event(self, t: datetime, op: str, fields: dict[str, Any]) -> Event:
        return self._event(t, op, "", "memory", op, "memory", fields, "", None)
