"""Records that carry prose: e-mails, chat messages and notes, built the same way by every
component and shift."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from memshift.timeutil import fmt
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.records import Event


class Correspondent(Protocol):
    """Anyone who can send mail: a person or an organization's mailbox."""

    @property
    def full(self) -> str: ...

    @property
    def email(self) -> str: ...

    @property
    def handle(self) -> str: ...


def dm_channel(friend: Person) -> str:
    return f"dm:{friend.handle}"


def email(
    em: Emitter,
    t: datetime,
    *,
    sender: Correspondent,
    to: list[Person],
    subject: str,
    body: str,
    thread: str,
    starred: bool = False,
    asserts: dict[str, Any] | None = None,
    category: str = "personal",
) -> Event:
    fields = {
        "sender": sender.full,
        "sender_address": sender.email,
        "to": [p.full for p in to],
        "sent": fmt(t),
        "subject": subject,
        "starred": starred,
        "category": category,
    }
    return em.insert(t, em.new_object_id("em"), "email", "message", thread, fields, body, asserts)


def chat(
    em: Emitter,
    t: datetime,
    *,
    channel: str,
    channel_kind: str,
    sender: Person,
    body: str,
    partner: Person | None = None,
    asserts: dict[str, Any] | None = None,
) -> Event:
    fields = {
        "channel": channel,
        "channel_kind": channel_kind,
        "sender": sender.full,
        "partner": partner.full if partner else None,
        "sent": fmt(t),
    }
    return em.insert(t, em.new_object_id("ch"), "chat", "message", channel, fields, body, asserts)


def note(
    em: Emitter,
    t: datetime,
    *,
    title: str,
    body: str,
    notebook: str,
    topic: str,
    extra: dict[str, Any] | None = None,
    asserts: dict[str, Any] | None = None,
) -> Event:
    fields = {"title": title, "topic": topic, **(extra or {})}
    return em.insert(
        t, em.new_object_id("nt"), "notes", "note", f"notebook:{notebook}", fields, body, asserts
    )


def statement(
    em: Emitter,
    t: datetime,
    cast: Cast,
    *,
    source: str,
    subject: str | None,
    body: str,
    sender: Correspondent,
    reader: Person | None,
    asserts: dict[str, Any],
    category: str = "personal",
) -> Event:
    """A prose record that states a fact (the assertion is gold-only): an e-mail from `sender`
    to `reader`, filed in the thread with whichever of them is not the user; a chat message from
    the user in the direct messages with `reader`; or a note in the user's journal."""
    if source == "email":
        if reader is None:
            raise ValueError("an e-mail statement needs a reader")
        counterpart = reader if sender == cast.user else sender
        return email(
            em,
            t,
            sender=sender,
            to=[reader],
            subject=subject or "Quick update",
            body=body,
            thread=f"thread:{counterpart.handle}",
            asserts=asserts,
            category=category,
        )
    if source == "chat":
        if reader is None or sender != cast.user:
            raise ValueError("a chat statement goes from the user to a friend")
        return chat(
            em,
            t,
            channel=dm_channel(reader),
            channel_kind="personal",
            sender=cast.user,
            partner=reader,
            body=body,
            asserts=asserts,
        )
    if source == "notes":
        return note(
            em,
            t,
            title=subject or "Journal",
            body=body,
            notebook="personal",
            topic="journal",
            asserts=asserts,
        )
    raise ValueError(f"a statement cannot be rendered in source {source!r}")
