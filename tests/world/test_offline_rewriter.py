"""The offline rewriter: its phrase bank is clean, its paraphrases pass validation and keep every
protected paragraph, it is deterministic, and its slips fail validation as a model's would."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.simulator.rewriter import PHRASE_BANK, VAGUE, OfflineRewriter, paraphrase
from memshift.world import filler
from memshift.world.emit import Emitter
from memshift.world.prose import note
from memshift.world.records import Event
from memshift.world.rewrite import (
    RETRIED,
    TEMPLATE,
    check_rewrite,
    rewrite_record,
    violations,
)

CLEAN = OfflineRewriter(slip_rate=0.0, relapse_rate=0.0)
STATEMENT = "Hi Sana, if you are ever passing through Porto, my spare room is yours. Best, Elif"


def _bodies(seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [
        filler.routine_mail(rng, sender_first="Priya", project="Comet Pipeline", to="Elif")[1],
        filler.routine_mail(rng, sender_first="Omar", project="Raven Cutover")[1],
        filler.personal_mail(rng, friend="Tobias", user="Elif")[1],
        filler.small_talk(rng, to="Nadia"),
        filler.work_chat(rng, colleague="Omar", project="Raven Cutover"),
        filler.note_text(rng)[1],
    ]


def test_no_phrase_of_the_bank_adds_a_number_a_month_a_weekday_or_a_name():
    for phrase in (*PHRASE_BANK, *VAGUE):
        assert violations(" ", phrase, ()) == [], phrase


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_a_clean_paraphrase_always_passes_validation(seed):
    for body in _bodies(seed):
        reply = CLEAN(body, (), ())
        new, found = check_rewrite(reply, body, ())
        assert found == [] and new is not None


@given(st.integers(0, 2**32 - 1), st.sampled_from(["first", "last"]))
@settings(max_examples=60, deadline=None)
def test_a_paragraph_with_a_protected_fact_is_kept_verbatim(seed, where):
    body = _bodies(seed)[0]
    paragraphs = body.split("\n\n")
    paragraphs.insert(1 if where == "first" else len(paragraphs) - 1, STATEMENT)
    template = "\n\n".join(paragraphs)
    new, found = check_rewrite(CLEAN(template, ("Porto",), ()), template, ("Porto",))
    assert found == [] and new is not None
    assert STATEMENT in new.split("\n\n")


def test_it_changes_most_bodies_the_generator_writes():
    bodies = [b for seed in range(150) for b in _bodies(seed)]
    changed = [json.loads(CLEAN(b, (), ()))["body"] != b for b in bodies]
    assert sum(changed) / len(changed) > 0.6


def test_it_is_deterministic_per_content_and_attempt():
    body = _bodies(7)[0]
    rewriter = OfflineRewriter()
    assert rewriter(body, (), ()) == OfflineRewriter()(body, (), ())
    assert paraphrase(body, (), np.random.default_rng(1)) == paraphrase(
        body, (), np.random.default_rng(1)
    )


def test_greetings_and_sign_offs_keep_their_names():
    body = "Hi Elif,\n\nThe survey is open.\n\nKind regards,\nTobias"
    new = json.loads(CLEAN(body, (), ()))["body"]
    greeting, _, sign_off = new.split("\n\n")
    assert greeting.endswith(" Elif,") and greeting != "Hi Elif,"
    assert sign_off.endswith(",\nTobias") and sign_off != "Kind regards,\nTobias"
    assert json.loads(CLEAN("Thanks!", (), ()))["body"] == "Thanks!"


def _hours_note() -> Event:
    return note(
        Emitter("test", "ts", "salt"),
        datetime(2026, 5, 4, 9, 0),
        title="Working hours",
        body="Note to self: keep to 08:30-17:30 and stop answering mail late at night.",
        notebook="work",
        topic="working_hours",
        extra={"hours": "08:30-17:30"},
    )


def test_a_slip_is_caught_and_retried_and_a_relapse_keeps_the_template():
    record = _hours_note()
    _, row = rewrite_record(record, OfflineRewriter(slip_rate=1.0, relapse_rate=0.0), {})
    assert row.outcome == RETRIED and row.violations
    new, row = rewrite_record(record, OfflineRewriter(slip_rate=1.0, relapse_rate=1.0), {})
    assert row.outcome == TEMPLATE and new is record and " | " in row.violations


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_every_slip_fails_validation(seed):
    body = _bodies(seed)[0]
    slipping = OfflineRewriter(slip_rate=1.0)
    assert check_rewrite(slipping(body, (), ()), body, ())[0] is None
    protected = ("Comet Pipeline",)
    assert check_rewrite(slipping(body, protected, ()), body, protected)[0] is None
