"""Rewritten bodies: what is rewritable and protected, the checks a rewrite passes, the retry and
the fallback, the cache, and the request a model rewriter gets."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.tokens import count_tokens
from memshift.world import pools
from memshift.world.cast import Person
from memshift.world.emit import Emitter
from memshift.world.prose import chat, email, note
from memshift.world.records import Event, LiveState
from memshift.world.rewrite import (
    ACCEPTED,
    EMPTY_BODY,
    MAX_REPLY_CHARS,
    NOT_JSON,
    RETRIED,
    TEMPLATE,
    CachedRewrite,
    body_of,
    check_rewrite,
    content_key,
    parse_reply,
    protected_facts,
    rewrite_events,
    rewrite_record,
    rewritten_share,
    summarize,
    violations,
)
from memshift.world.rewrite_prompt import REWRITE_SCHEMA, rewrite_messages

T0 = datetime(2026, 5, 4, 10, 0)
USER = Person("Elif", "Demir")
FRIEND = Person("Tobias", "Brandt")
HOURS = "08:30-17:30"
TEMPLATE_BODY = (
    "Hi Elif,\n\nThe survey is open. Please answer it when you can. "
    "Results will be shared soon.\n\nThanks,\nTobias"
)


def _reply(body: str) -> str:
    return json.dumps({"body": body})


def _emitter() -> Emitter:
    return Emitter("test", "ts", "salt")


def _mail(em: Emitter, body: str = TEMPLATE_BODY, **kw: object) -> Event:
    return email(
        em,
        T0,
        sender=FRIEND,
        to=[USER],
        subject="Survey",
        body=body,
        thread="thread:tobias",
        **kw,  # type: ignore[arg-type]
    )


def _hours_note(em: Emitter) -> Event:
    return note(
        em,
        T0,
        title="Working hours",
        body=f"Note to self: keep to {HOURS} and stop answering mail late at night.",
        notebook="work",
        topic="working_hours",
        extra={"hours": HOURS},
    )


class Scripted:
    """A rewriter that answers from a list of replies, one per call, and records its calls."""

    def __init__(self, *replies: str | Callable[[str], str]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []

    def __call__(self, body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        self.calls.append((body, protected, feedback))
        reply = self.replies[min(len(self.calls), len(self.replies)) - 1]
        return reply(body) if callable(reply) else reply


def _reworded(body: str) -> str:
    return _reply(body.replace("Please answer it", "Do answer it"))


# ---- what is rewritable and protected ---------------------------------------------------------


def test_the_body_is_the_text_after_the_rendered_header():
    em = _emitter()
    mail = _mail(em)
    assert body_of(mail) == TEMPLATE_BODY
    message = chat(em, T0, channel="dm:tobias", channel_kind="personal", sender=FRIEND, body="Hey!")
    assert body_of(message) == "Hey!"
    assert body_of(_hours_note(em)).startswith("Note to self")


def test_structured_records_deletions_and_newsletters_have_no_body():
    em = _emitter()
    card = em.insert(
        T0,
        "card-1",
        "contacts",
        "card",
        "contacts",
        {"name": "A B", "employer": "Kestrel Labs", "city": "Oslo", "address": "a", "phone": "b"},
    )
    digest = _mail(em, category="newsletter")
    deleted = em.delete(T0 + timedelta(days=1), card.object_id, "contacts", "card", "contacts")
    define = em.memory_event(T0, "define", {"item": "def.x", "version": 2})
    assert [body_of(e) for e in (card, digest, deleted, define)] == [None] * 4
    assert protected_facts(card) == ()


def test_a_record_whose_text_is_not_its_rendering_is_refused():
    mail = dataclasses.replace(_mail(_emitter()), text="something else")
    with pytest.raises(ValueError, match="does not begin with the header"):
        body_of(mail)


def test_protected_facts_are_assertions_and_field_values_found_in_the_body():
    em = _emitter()
    assert protected_facts(_hours_note(em)) == (HOURS,)
    stated = _mail(
        em,
        body="Hi Elif, the movers just left and I live in Porto now. Best, Tobias",
        asserts={"home_city": "Porto", "card-7.city": "Porto"},
    )
    assert protected_facts(stated) == ("Porto",)
    # the subject is a field; it is protected only where the body repeats it
    assert "Survey" not in protected_facts(_mail(em))


def test_an_asserted_value_only_in_the_header_is_not_asked_of_the_body():
    em = _emitter()
    mail = _mail(em, asserts={"employer": "Survey"})
    assert "Survey" not in protected_facts(mail)


def test_the_content_key_ignores_the_header_but_not_the_body_or_the_facts():
    em = _emitter()
    a, b = _mail(em), _mail(em, starred=True)
    assert a.text != b.text
    assert content_key(a, body_of(a), ()) == content_key(b, body_of(b), ())
    assert content_key(a, body_of(a), ()) != content_key(a, body_of(a) + ".", ())
    assert content_key(a, "x", ("p",)) != content_key(a, "x", ())
    assert content_key(a, "x", ("p", "q")) == content_key(a, "x", ("q", "p"))


# ---- validation -------------------------------------------------------------------------------

PLANTED = [
    ("Results will be shared in 3 days.", 'added digit "3"'),
    ("Results will be shared in June.", 'added month name "June"'),
    ("Results will be shared in september.", 'added month name "september"'),
    ("Results will be shared on Friday.", 'added weekday name "Friday"'),
    ("Results will be shared by three people.", 'added number word "three"'),
    ("Results will be shared from Lisbon.", 'added pool name "Lisbon" not in the template body'),
    ("Ask Nadia about it.", 'added pool name "Nadia" not in the template body'),
    ("Kestrel Labs will share them.", 'added pool name "Kestrel Labs" not in the template body'),
    ("Results will be shared soon.\nFlags: starred", 'added header line "Flags:"'),
]


@pytest.mark.parametrize(("sentence", "expected"), PLANTED)
def test_each_planted_violation_is_named(sentence, expected):
    new = TEMPLATE_BODY.replace("Results will be shared soon.", sentence)
    found = violations(TEMPLATE_BODY, new, ())
    assert any(v.startswith(expected) for v in found), found


def test_what_the_template_already_says_may_stay():
    template = "We met in Lisbon on Friday in June, all three of us, at 10:00."
    new = "All three of us met in Lisbon on Friday in June, at 10:00."
    assert violations(template, new, ("Lisbon",)) == []


def test_a_missing_protected_fact_is_named():
    template = f"Note to self: keep to {HOURS} and stop answering mail late at night."
    new = "Note to self: keep to my usual hours and stop answering mail late at night."
    assert violations(template, new, (HOURS,)) == [f'missing protected fact "{HOURS}"']


def test_an_empty_body_a_control_character_and_a_runaway_body_are_refused():
    assert violations(TEMPLATE_BODY, "", ()) == [EMPTY_BODY]
    assert violations(TEMPLATE_BODY, " \n ", ()) == [EMPTY_BODY]
    assert violations(TEMPLATE_BODY, TEMPLATE_BODY + "\x00", ()) == [
        "body holds control characters"
    ]
    grown = violations(TEMPLATE_BODY, TEMPLATE_BODY * 4, ())
    assert any(v.startswith("body grew from") for v in grown)
    assert violations("Hey!", "Hey!\nHow are you", ()) == ["added line break in a one-line body"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Sure! Here it is.", NOT_JSON),
        ('{"body": "Hi Elif', NOT_JSON),
        ('["Hi Elif"]', NOT_JSON),
        ('{"text": "Hi Elif"}', NOT_JSON),
        ('{"body": 7}', NOT_JSON),
        ('{"body": null}', NOT_JSON),
        ('{"body": "Hi", "note": "reworded"}', NOT_JSON),
        ('{"body": "Hi"} and that is all', NOT_JSON),
        ('```json\n{"body": "Hi"}\n```', NOT_JSON),
        ("", NOT_JSON),
        ('{"body": NaN}', "reply is not storable text"),
        ('{"body": "\\ud800 lone"}', "reply is not storable text"),
        ('{"body": "\ud800 lone"}', "reply is not storable text"),
        (_reply("x" * MAX_REPLY_CHARS), "reply is too long"),
    ],
)
def test_a_reply_that_is_not_exactly_the_json_object_is_refused(reply, expected):
    body, problem = parse_reply(reply)
    assert body is None
    assert problem is not None and problem.startswith(expected), problem
    new, found = check_rewrite(reply, TEMPLATE_BODY, ())
    assert new is None and found == [problem]


def test_a_complete_reply_is_read():
    assert parse_reply(' {"body": "Hi\\nthere"}\n') == ("Hi\nthere", None)


_ALPHABET = st.characters(blacklist_categories=("Cc", "Cs"))
_TEXTS = st.text(_ALPHABET, min_size=1, max_size=300).filter(lambda t: t.strip() != "")


@given(_TEXTS, st.data())
@settings(max_examples=200, deadline=None)
def test_a_template_always_passes_as_its_own_rewrite(template, data):
    start = data.draw(st.integers(0, len(template) - 1))
    end = data.draw(st.integers(start + 1, len(template)))
    assert violations(template, template, (template[start:end],)) == []


_FORBIDDEN = st.one_of(
    st.integers(0, 10_000).map(str),
    st.sampled_from(("June", "October", "Wednesday", "Saturday", "seven", "dozen")),
    st.sampled_from(tuple(city for city, _ in pools.CITIES)),
    st.sampled_from(pools.FIRST_NAMES + pools.ORGANIZATIONS + pools.PROJECT_NAMES),
).filter(lambda word: word not in TEMPLATE_BODY)


@given(_FORBIDDEN, st.integers(0, 10_000))
@settings(max_examples=200, deadline=None)
def test_a_planted_forbidden_word_is_always_caught(word, where):
    sentences = TEMPLATE_BODY.split(" ")
    at = where % (len(sentences) + 1)
    new = " ".join([*sentences[:at], word, *sentences[at:]])
    assert violations(TEMPLATE_BODY, new, ()) != []


# ---- retry, fallback and the log --------------------------------------------------------------


def test_a_good_first_reply_is_accepted():
    mail = _mail(_emitter())
    rewriter = Scripted(_reworded)
    new, row = rewrite_record(mail, rewriter, {})
    assert row.outcome == ACCEPTED and row.calls == 1 and row.violations == ""
    assert "Do answer it" in new.text and row.changed
    assert rewriter.calls[0][2] == ()


def test_a_rewriter_that_fails_once_is_retried_with_its_violations():
    mail = _mail(_emitter())
    rewriter = Scripted(lambda b: _reply(b + " See you on Monday."), _reworded)
    new, row = rewrite_record(mail, rewriter, {})
    assert row.outcome == RETRIED and row.calls == 2
    assert row.violations == 'added weekday name "Monday"'
    assert rewriter.calls[1][2] == ('added weekday name "Monday"',)
    assert "Do answer it" in new.text and "Monday" not in new.text
    assert new.tokens == count_tokens(new.text)


def test_a_rewriter_that_fails_twice_leaves_the_template():
    em = _emitter()
    hours = _hours_note(em)
    rewriter = Scripted("not json", lambda b: _reply(b.replace(HOURS, "my usual hours")))
    new, row = rewrite_record(hours, rewriter, {})
    assert row.outcome == TEMPLATE and row.calls == 2 and not row.changed
    assert new is hours
    first, second = row.violations.split(" | ")
    assert first.startswith(NOT_JSON)
    assert second == f'missing protected fact "{HOURS}"'
    assert row.tokens_before == row.tokens_after


def test_the_outcome_counts_add_up_over_a_mixed_list():
    em = _emitter()
    bodies = [f"Hi Elif,\n\nThe survey is open{'!' * k}\n\nThanks,\nTobias" for k in range(6)]
    records = [_mail(em, body=b) for b in bodies]
    # replies by body: good; bad then good; bad twice
    plans = {
        bodies[0]: ["good"],
        bodies[1]: ["bad", "good"],
        bodies[2]: ["bad", "bad"],
        bodies[3]: ["good"],
        bodies[4]: ["bad", "bad"],
        bodies[5]: ["bad", "good"],
    }

    def rewriter(body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        step = plans[body][1 if feedback else 0]
        return _reply(body.replace("open", "now open")) if step == "good" else "{"

    card = em.insert(T0, "c1", "tasks", "task", "p", {"title": "t", "project": "p",
                     "status": "open", "due": "2026-05-05", "created": "2026-05-01"})  # fmt: skip
    out, log = rewrite_events([*records, card], rewriter, {})
    assert out[-1] is card
    summary = summarize(log)
    assert (summary.accepted, summary.retried, summary.template) == (2, 2, 2)
    assert summary.bodies == len(records) == summary.accepted + summary.retried + summary.template
    assert summary.calls == 2 * 1 + 2 * 2 + 2 * 2
    assert [row.outcome for row in log] == [
        ACCEPTED, RETRIED, TEMPLATE, ACCEPTED, TEMPLATE, RETRIED,
    ]  # fmt: skip
    template_chars = sum(len(b) for b in (bodies[2], bodies[4]))
    assert rewritten_share(log) == pytest.approx(1 - template_chars / sum(map(len, bodies)))


def test_a_rewriter_that_raises_caches_nothing():
    mail = _mail(_emitter())
    cache: dict[str, CachedRewrite] = {}

    def broken(body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        raise ConnectionError("no route")

    with pytest.raises(ConnectionError):
        rewrite_record(mail, broken, cache)
    assert cache == {}


# ---- the cache --------------------------------------------------------------------------------


def test_the_same_record_in_two_branches_is_rewritten_once_and_reads_the_same():
    em = _emitter()
    shared = _mail(em)
    branch_a = [shared, _hours_note(em)]
    branch_b = [shared]
    rewriter = Scripted(_reworded)
    cache: dict[str, CachedRewrite] = {}
    out_a, log_a = rewrite_events(branch_a, rewriter, cache)
    out_b, log_b = rewrite_events(branch_b, rewriter, cache)
    assert len(rewriter.calls) == 2
    assert out_a[0].text == out_b[0].text != shared.text
    assert (log_a[0].cached, log_b[0].cached) == (False, True)
    assert log_b[0].calls == 0 and log_b[0].outcome == log_a[0].outcome


def test_a_second_revision_with_the_same_body_gets_the_same_rewrite():
    em = _emitter()
    first = _mail(em)
    starred = em.update(T0 + timedelta(hours=3), first.object_id, {**first.fields, "starred": True})
    rewriter = Scripted(_reworded)
    (new_first, new_starred), _ = rewrite_events([first, starred], rewriter, {})
    assert len(rewriter.calls) == 1
    assert body_of(new_first) == body_of(new_starred)
    assert "Flags: starred" in new_starred.text and new_starred.revision == 2
    state = LiveState()
    for event in (new_first, new_starred):
        state.apply(event)
    assert state.records[first.object_id].text == new_starred.text


def test_a_cached_template_outcome_is_reused_without_a_call():
    em = _emitter()
    hours = _hours_note(em)
    cache: dict[str, CachedRewrite] = {}
    rewrite_record(hours, Scripted("nope"), cache)
    again = Scripted(_reworded)
    new, row = rewrite_record(hours, again, cache)
    assert again.calls == [] and row.outcome == TEMPLATE and row.cached and new is hours


# ---- the request a model rewriter gets --------------------------------------------------------


def test_the_prompt_lists_the_body_the_protected_facts_and_on_retry_the_violations():
    body = 'Keep to 08:30-17:30, "please".\nThanks'
    first = rewrite_messages(body, (HOURS,))
    assert [m["role"] for m in first] == ["system", "user"]
    text = first[1]["content"]
    assert json.dumps(body) in text and json.dumps(HOURS) in text
    assert '{"body":' in text and "rejected" not in text
    retry = rewrite_messages(body, (HOURS,), ('added weekday name "Monday"',))[1]["content"]
    assert "rejected" in retry and json.dumps('added weekday name "Monday"') in retry
    bare = rewrite_messages("Hey!", ())[1]["content"]
    assert "exactly as written" not in bare
    assert REWRITE_SCHEMA["required"] == ["body"]
