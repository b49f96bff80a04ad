"""Who a prose record is from and to, read back from its rendered text alone, and whether its
greeting, sign-off and the names in it agree with that.

A reader sees only the text, so the text must never greet its own sender, sign with someone
else's name or speak in a direct-message channel as a third person. `problems` lists every such
disagreement in one rendered e-mail, chat message or note; records of other kinds carry no prose
and have none.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from memshift.world.parse import parse_text, prose_body
from memshift.world.pools import FIRST_NAMES

SALUTATIONS: tuple[str, ...] = ("Hi", "Hey", "Hello", "Dear")
GROUP_WORDS: tuple[str, ...] = ("all", "team", "everyone", "everybody")

_NAME = r"[A-Z][A-Za-z'-]+"
_SALUTED = re.compile(rf"^(?:{'|'.join(SALUTATIONS)})\s+(?P<name>{_NAME}|[a-z]+)[,!]")
_BARE_NAME = re.compile(rf"^(?P<name>{_NAME})[,!]")
_SIGN_OFF = re.compile(
    rf"(?:^|[.!?]\s+|\n)(?:[A-Z][a-z]+(?: [a-z]+)*,\s+)?(?P<name>{_NAME}(?: {_NAME})*)\s*$"
)
_CHAT_OPENER = re.compile(rf"^(?:[a-z]+\s+){{0,2}}(?P<name>{_NAME})(?=[\s,:!?])")


@dataclass(frozen=True)
class Parties:
    """The people of one prose record as its text shows them (full names)."""

    source: str
    sender: str | None
    recipients: tuple[str, ...]
    partner: str | None
    body: str


def parties(text: str) -> Parties | None:
    """The parties of a rendered e-mail, chat message or note; None for any other record."""
    shape = parse_text(text)
    if shape is None:
        return None
    source, kind, fields = shape
    if (source, kind) not in (("email", "message"), ("chat", "message"), ("notes", "note")):
        return None
    return Parties(
        source,
        fields.get("sender"),
        tuple(fields.get("to", ())),
        fields.get("partner"),
        prose_body(source, text),
    )


def first_name(full: str) -> str:
    return full.split(" ", 1)[0]


def greeting(body: str, names: Collection[str] = FIRST_NAMES) -> str | None:
    """The name (or group word, as in "Hi all,") a body opens by greeting ("Hi Nadia,",
    "Nadia!"), or None if it greets no one by name ("Hi,", "Dear resident,")."""
    saluted = _SALUTED.match(body)
    if saluted is not None:
        name = saluted.group("name")
        return name if name[0].isupper() or name in GROUP_WORDS else None
    bare = _BARE_NAME.match(body)
    return bare.group("name") if bare is not None and bare.group("name") in names else None


def sign_off(body: str) -> str | None:
    """The name a body is signed with: its last line or its unpunctuated last words."""
    match = _SIGN_OFF.search(body)
    return match.group("name") if match else None


def chat_addressee(body: str, names: Collection[str] = FIRST_NAMES) -> str | None:
    """The first name a chat message opens by addressing ("hey Nadia, ...", "Nadia, ...")."""
    match = _CHAT_OPENER.match(body)
    if match is None or match.group("name") not in names:
        return None
    return match.group("name")


def _names_self(body: str, sender: str) -> bool:
    """Whether a body names its own sender other than by their full name (as in "I'm ...")."""
    without_full_name = body.replace(sender, "")
    own_name = rf"(?<![\w'-]){re.escape(first_name(sender))}(?![\w'-])"
    return re.search(own_name, without_full_name) is not None


def _email_problems(p: Parties, user: str) -> list[str]:
    assert p.sender is not None
    problems = []
    readers = {first_name(r) for r in p.recipients}
    if not p.recipients:
        problems.append("an e-mail without recipients")
    if p.sender in p.recipients:
        problems.append("an e-mail to its own sender")
    if user != p.sender and user not in p.recipients:
        problems.append("an e-mail the user neither sent nor received")
    greeted = greeting(p.body)
    if greeted in GROUP_WORDS and len(p.recipients) < 2:
        problems.append(f"greets a group ({greeted}) but has one recipient")
    elif greeted is not None and greeted not in GROUP_WORDS and greeted not in readers:
        problems.append(f"greets {greeted}, who is not a recipient")
    signed = sign_off(p.body)
    if signed is not None and signed not in (p.sender, first_name(p.sender)):
        problems.append(f"signed {signed} but sent by {p.sender}")
    unsigned = p.body[: p.body.rfind(signed)] if signed else p.body
    if _names_self(unsigned, p.sender):
        problems.append(f"names its own sender {p.sender}")
    return problems


def _chat_problems(p: Parties, user: str) -> list[str]:
    assert p.sender is not None
    problems = []
    if p.partner is not None:
        if p.partner == user:
            problems.append("a direct-message channel with the user as the partner")
        if p.sender not in (user, p.partner):
            problems.append(f"{p.sender} writes in the direct messages with {p.partner}")
    addressed = chat_addressee(p.body)
    if p.partner is not None and addressed is not None:
        reader = p.partner if p.sender == user else user
        if addressed != first_name(reader):
            problems.append(f"addresses {addressed} in a channel read by {reader}")
    if _names_self(p.body, p.sender):
        problems.append(f"names its own sender {p.sender}")
    return problems


def _note_problems(p: Parties) -> list[str]:
    problems = []
    if greeting(p.body) is not None:
        problems.append(f"a note that greets {greeting(p.body)}")
    if sign_off(p.body) is not None:
        problems.append(f"a note signed {sign_off(p.body)}")
    return problems


def problems(text: str, user: str) -> list[str]:
    """Every disagreement between the parties of a rendered record and its prose; `user` is the
    full name of the person whose records these are."""
    p = parties(text)
    if p is None:
        return []
    if p.source == "email":
        return _email_problems(p, user)
    if p.source == "chat":
        return _chat_problems(p, user)
    return _note_problems(p)
