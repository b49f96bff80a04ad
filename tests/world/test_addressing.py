"""Every rendered e-mail, chat message and note agrees with its own sender and readers."""

from __future__ import annotations

import pytest

from conftest import world
from memshift.branches import BRANCHES, make_branch
from memshift.world import phrasing
from memshift.world.addressing import chat_addressee, greeting, parties, problems, sign_off
from memshift.world.generate import World, generate_world
from memshift.world.parse import prose_body
from memshift.world.records import Event
from memshift.world.render import render
from memshift.world.timeline import Timeline

USER = "Kenji Sato"
SEEDS = [0, 1, 2, 1000, 1013]
PERSON_ATTRIBUTES = set(phrasing.ATTRIBUTES)


def _email(sender: str, to: list[str], body: str) -> str:
    address = sender.lower().replace(" ", ".") + "@mail.example"
    fields = {"sender": sender, "sender_address": address, "to": to, "sent": "2026-03-02 10:00"}
    return render("email", "message", {**fields, "subject": "Hello", "starred": False}, body)


def _chat(sender: str, body: str, partner: str | None = None) -> str:
    fields = {"channel": "#eng", "sender": sender, "partner": partner, "sent": "2026-03-02 10:00"}
    return render("chat", "message", fields, body)


def _note(body: str) -> str:
    return render("notes", "note", {"title": "Plans"}, body)


# --- reading the parties back -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("Hi Nadia, how are you?", "Nadia"),
        ("Dear Nadia,\n\nThanks.", "Nadia"),
        ("Nadia!\n\nGuess what.", "Nadia"),
        ("Hi all,\n\nAn update.", "all"),
        ("Hi,\n\nAn update.", None),
        ("Dear resident, the water is off.", None),
        ("Alarm, stretch, coffee.", None),
        ("Thank you for completing the survey.", None),
    ],
)
def test_greeting_is_the_name_a_body_opens_with(body: str, name: str | None) -> None:
    assert greeting(body) == name


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("Hi,\n\nAn update.\n\nCheers,\nPriya", "Priya"),
        ("Could we move our call? Best, Kenji", "Kenji"),
        ("Happy to bring dessert. Kenji", "Kenji"),
        ("The trip home takes a while. See you there, Kenji", "Kenji"),
        ("We apologise for the inconvenience. Property Management", "Property Management"),
        ("Welcome to the building!", None),
        ("Prices fell in Lisbon.", None),
    ],
)
def test_sign_off_is_the_name_a_body_ends_with(body: str, name: str | None) -> None:
    assert sign_off(body) == name


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("hey Nadia, the sunset was ridiculous.", "Nadia"),
        ("Nadia, big news: I moved.", "Nadia"),
        ("quick one Omar: who owns the review?", "Omar"),
        ("ok Nadia, random update: it rained.", "Nadia"),
        ("ugh, Zara Jovanovic wants the slides", None),
        ("The sunset was ridiculous.", None),
    ],
)
def test_chat_addressee_is_the_name_a_message_opens_with(body: str, name: str | None) -> None:
    assert chat_addressee(body) == name


def test_parties_come_from_the_rendered_text_alone() -> None:
    p = parties(_email("Nadia Berg", [USER], "Hi Kenji,\n\nHello.\n\nLove,\nNadia"))
    assert p is not None
    assert (p.source, p.sender, p.recipients) == ("email", "Nadia Berg", (USER,))
    assert p.body.startswith("Hi Kenji,")
    assert parties(render("contacts", "card", dict.fromkeys(
        ("name", "employer", "city", "address", "phone"), "x"))) is None  # fmt: skip


# --- finding every kind of disagreement -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_email(USER, ["Emil Farouk"], "Hi Kenji, you now report to Zara Jovanovic."), "greets"),
        (_email("Nadia Berg", [USER], "Hi Kenji,\n\nHello.\n\nLove,\nOmar"), "signed Omar"),
        (_email("Nadia Berg", [USER], "Hi all,\n\nAn update.\n\nBest,\nNadia"), "a group"),
        (_email("Nadia Berg", ["Omar Diaz"], "Hi Omar, hello."), "neither sent nor received"),
        (_email(USER, [USER], "A note to myself."), "its own sender"),
        (_email("Nadia Berg", [USER], "Hi Kenji, Nadia here again."), "names its own sender"),
        (_chat("Nadia Berg", "hey Nadia, it rained.", partner="Nadia Berg"), "addresses Nadia"),
        (_chat("Omar Diaz", "hey Kenji, it rained.", partner="Nadia Berg"), "writes in the"),
        (_chat(USER, "hi, it rained.", partner=USER), "user as the partner"),
        (_chat("Omar Diaz", "thanks Omar, merging now", partner=None), "its own sender"),
        (_note("Hi Nadia, buy olives."), "a note that greets"),
        (_note("Buy olives. Kenji"), "a note signed"),
    ],
)
def test_each_kind_of_disagreement_is_found(text: str, expected: str) -> None:
    found = problems(text, USER)
    assert any(expected in p for p in found), found


@pytest.mark.parametrize(
    "text",
    [
        _email("Nadia Berg", [USER], "Kenji!\n\nHello.\n\nLove,\nNadia"),
        _email(USER, ["Nadia Berg"], "Hi Nadia, count me in. Happy to bring dessert. Kenji"),
        _email("Zara Jovanovic", [USER], "Hi Kenji, I'm Zara Jovanovic, your new lead."),
        _email("Property Management", [USER], "Dear resident, no water. Property Management"),
        _chat("Nadia Berg", "hey Kenji, it rained.", partner="Nadia Berg"),
        _chat(USER, "Nadia, big news: I moved.", partner="Nadia Berg"),
        _chat("Omar Diaz", "thanks Priya, merging now"),
        _note("- apples\n- olives"),
    ],
)
def test_consistent_records_have_no_problems(text: str) -> None:
    assert problems(text, USER) == []


# --- every record of several worlds and every branch ------------------------------------------


def _prose_events(w: World) -> list[Event]:
    """Every prose event of the base world and of every branch's shift."""
    events = list(w.events)
    for name in BRANCHES[1:]:
        events += make_branch(w, name).shift_events
    return [e for e in events if e.source in ("email", "chat", "notes") and e.text]


def _inconsistent(w: World) -> dict[str, list[str]]:
    found = {e.event_id: problems(e.text, w.cast.user.full) for e in _prose_events(w)}
    return {event_id: p for event_id, p in found.items() if p}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_prose_record_of_every_branch_is_consistent(seed: int) -> None:
    assert len(_prose_events(world(seed))) > 1000
    assert _inconsistent(world(seed)) == {}


@pytest.mark.parametrize("months", [1, 3])
def test_short_histories_are_consistent_too(months: int) -> None:
    assert _inconsistent(generate_world(7, Timeline(months))) == {}


def _phrase_of(source: str, text: str) -> phrasing.Phrase:
    body = prose_body(source, text)
    (phrase,) = [p for p in phrasing.PHRASES if phrasing.compile_pattern(p).match(body)]
    return phrase


@pytest.mark.parametrize("seed", SEEDS)
def test_every_statement_comes_from_its_phrase_writer_to_its_reader(seed: int) -> None:
    cast = world(seed).cast
    friends = {p.full for p in cast.friends}
    colleagues = {p.full for p in cast.colleagues}
    stated = [e for e in _prose_events(world(seed)) if set(e.asserts) & PERSON_ATTRIBUTES]
    assert len(stated) >= 10
    for e in stated:
        phrase = _phrase_of(e.source, e.text)
        (value,) = e.asserts.values()
        if e.source == "notes":
            continue
        sender = e.fields["sender"]
        readers = e.fields.get("to") or [e.fields["partner"]]
        writer = {
            phrasing.USER: cast.user.full,
            phrasing.MANAGER: value,
        }.get(phrase.sender) or phrasing.OFFICES[phrase.sender].name
        assert sender == writer, e.text
        reader_pool = {
            phrasing.FRIEND: friends,
            phrasing.COLLEAGUE: colleagues,
            phrasing.USER: {cast.user.full},
        }[phrase.reader]
        assert set(readers) <= reader_pool, e.text
