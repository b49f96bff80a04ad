from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from gold_free_text import (
    NEWS_NAMES,
    PERSON_NAMES,
    SENTENCE_END,
    assert_carries_no_gold,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.world import chatter, filler, pools

seeds = st.integers(0, 2**32 - 1)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _short_texts(seed: int) -> list[str]:
    """One output of every renderer except the newsletter, for one seed."""
    rng = _rng(seed)
    subject, body = filler.routine_mail(rng, sender_first="Priya", project="Comet Pipeline")
    personal_subject, personal_body = filler.personal_mail(rng, friend="Tobias", user="Elif")
    title, note = filler.note_text(rng)
    return [
        filler.small_talk(rng, friend="Nadia"),
        filler.work_chat(rng, colleague="Omar", project="Raven Cutover"),
        subject,
        body,
        personal_subject,
        personal_body,
        title,
        note,
    ]


# --- determinism ------------------------------------------------------------------------------

RENDERERS: dict[str, Callable[[np.random.Generator], object]] = {
    "small_talk": lambda rng: filler.small_talk(rng, friend="Nadia"),
    "work_chat": lambda rng: filler.work_chat(rng, colleague="Omar", project="Raven Cutover"),
    "routine_mail": lambda rng: filler.routine_mail(
        rng, sender_first="Priya", project="Comet Pipeline"
    ),
    "personal_mail": lambda rng: filler.personal_mail(rng, friend="Tobias", user="Elif"),
    "note_text": filler.note_text,
}


@pytest.mark.parametrize("name", sorted(RENDERERS))
@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_same_seed_gives_same_text(name: str, seed: int) -> None:
    render = RENDERERS[name]
    assert render(_rng(seed)) == render(_rng(seed))


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_different_seeds_give_varied_text(name: str) -> None:
    outputs = {repr(RENDERERS[name](_rng(seed))) for seed in range(40)}
    assert len(outputs) >= 10


def test_successive_calls_on_one_generator_move_on() -> None:
    rng = _rng(3)
    assert len({filler.small_talk(rng, friend="Nadia") for _ in range(20)}) >= 10


# --- short filler -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(seed=seeds)
def test_short_filler_carries_no_gold_and_names_no_place_or_company(seed: int) -> None:
    for text in _short_texts(seed):
        assert_carries_no_gold(text)
        assert not NEWS_NAMES.search(text), NEWS_NAMES.search(text)


def test_every_short_template_is_free_of_gold_words() -> None:
    """Every text a message piece can become (callers' names written as `Name`), and every note."""
    templates = list(filler.template_texts())
    for titles, lines in filler.NOTES:
        templates.extend((*titles, *lines))
    for template in templates:
        assert_carries_no_gold(template)
        assert not NEWS_NAMES.search(template), template
        assert _names_in(template) == set(), template


@settings(max_examples=60, deadline=None)
@given(seed=seeds, friend=st.sampled_from(pools.FIRST_NAMES))
def test_small_talk_is_one_to_three_sentences(seed: int, friend: str) -> None:
    """An opener, perhaps a detail on the same topic, perhaps a closer that fits it."""
    message = filler.small_talk(_rng(seed), friend=friend)
    assert "\n" not in message
    assert 1 <= len(SENTENCE_END.findall(message)) <= 3


@settings(max_examples=60, deadline=None)
@given(
    seed=seeds,
    colleague=st.sampled_from(pools.FIRST_NAMES),
    project=st.sampled_from(pools.PROJECT_NAMES),
)
def test_work_chat_names_the_project_and_the_colleague(
    seed: int, colleague: str, project: str
) -> None:
    message = filler.work_chat(_rng(seed), colleague=colleague, project=project)
    assert project in message and colleague in message
    assert "\n" not in message


def _middle(body: str) -> str:
    greeting, middle, sign_off = body.split("\n\n")
    assert greeting.endswith((",", "!"))
    assert sign_off.count("\n") == 1
    return middle


@settings(max_examples=60, deadline=None)
@given(seed=seeds, sender=st.sampled_from(pools.FIRST_NAMES))
def test_routine_mail_is_three_to_six_sentences_signed_by_the_sender(
    seed: int, sender: str
) -> None:
    subject, body = filler.routine_mail(_rng(seed), sender_first=sender, project="Nova Invoicing")
    assert subject and "{" not in subject and "{" not in body
    assert body.endswith("\n" + sender)
    assert 3 <= len(SENTENCE_END.findall(_middle(body))) <= 6


@settings(max_examples=60, deadline=None)
@given(seed=seeds, sender=st.sampled_from(pools.FIRST_NAMES))
def test_direct_work_mail_is_three_to_six_sentences_signed_by_the_sender(
    seed: int, sender: str
) -> None:
    subject, body = filler.routine_mail(
        _rng(seed),
        sender_first=sender,
        project="Nova Invoicing",
        to="Elif",
        kinds=filler.DIRECT_WORK_MAILS,
    )
    assert subject and "{" not in subject and "{" not in body
    assert body.endswith("\n" + sender)
    assert _names_in(body.split("\n\n")[0]) <= {"Elif"}
    assert 3 <= len(SENTENCE_END.findall(_middle(body))) <= 6


@settings(max_examples=60, deadline=None)
@given(seed=seeds, friend=st.sampled_from(pools.FIRST_NAMES))
def test_personal_mail_greets_the_user_and_is_signed_by_the_friend(seed: int, friend: str) -> None:
    subject, body = filler.personal_mail(_rng(seed), friend=friend, user="Elif")
    assert subject and "{" not in body
    assert body.split("\n\n")[0] in {g.format(user="Elif") for g in filler.PERSONAL_GREETINGS}
    assert body.endswith("\n" + friend)
    assert 3 <= len(SENTENCE_END.findall(_middle(body))) <= 6


@settings(max_examples=60, deadline=None)
@given(seed=seeds)
def test_note_is_a_titled_list_of_distinct_items(seed: int) -> None:
    title, body = filler.note_text(_rng(seed))
    lines = body.split("\n")
    assert title and "\n" not in title
    assert 4 <= len(lines) <= 8
    assert all(line.startswith("- ") for line in lines)
    assert len(set(lines)) == len(lines)


# --- who a message names ----------------------------------------------------------------------


def _names_in(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]+", text)) & PERSON_NAMES


@settings(max_examples=60, deadline=None)
@given(seed=seeds, to=st.sampled_from(pools.FIRST_NAMES))
def test_small_talk_names_only_the_one_it_is_written_to(seed: int, to: str) -> None:
    assert _names_in(filler.small_talk(_rng(seed), to=to)) <= {to}


def test_small_talk_to_someone_often_greets_them() -> None:
    rng = _rng(3)
    messages = [filler.small_talk(rng, to="Nadia") for _ in range(200)]
    assert 0.6 < sum("Nadia" in m for m in messages) / len(messages) < 0.95


@settings(max_examples=60, deadline=None)
@given(seed=seeds, friend=st.sampled_from(pools.FIRST_NAMES))
def test_small_talk_that_knows_only_the_channel_friend_names_nobody(seed: int, friend: str) -> None:
    message = filler.small_talk(_rng(seed), friend=friend)
    assert _names_in(message) == set()
    assert message[:1].isalpha()


@settings(max_examples=60, deadline=None)
@given(seed=seeds, to=st.sampled_from(pools.FIRST_NAMES))
def test_routine_mail_greets_its_reader_or_nobody_and_never_a_group(seed: int, to: str) -> None:
    _, addressed = filler.routine_mail(
        _rng(seed), sender_first="Priya", project="Nova Invoicing", to=to
    )
    _, unaddressed = filler.routine_mail(_rng(seed), sender_first="Priya", project="Nova Invoicing")
    assert _names_in(addressed.split("\n\n")[0]) <= {to}
    assert _names_in(unaddressed.split("\n\n")[0]) == set()
    for body in (addressed, unaddressed):
        assert not re.match(r"\w+ (?:all|team|everyone)\b", body)


# --- closers and repeats ----------------------------------------------------------------------


def test_a_closer_fits_what_its_message_does() -> None:
    """A question or an invitation closes by waiting for the answer, news by asking for a reaction:
    never a closer of another kind (no "Miss you" after a question)."""
    rng = _rng(11)
    for _ in range(500):
        parts = filler.small_talk_parts(rng, to="Nadia")
        if parts.closer is not None:
            assert parts.closer in chatter.DM_CLOSERS[parts.kind], parts
        if parts.kind in (chatter.QUESTION, chatter.PLAN):
            assert "?" in parts.opener, parts
        else:
            assert not parts.opener.endswith("?"), parts


def test_a_memory_keeps_any_sentence_from_a_fourth_use() -> None:
    """A year of one component's messages (about as many as a world writes, on fewer projects)
    and no long sentence a fourth time."""
    rng = _rng(5)
    projects = ("Comet Pipeline", "Nova Invoicing", "Raven Cutover", "Aurora Rollout")
    renderers: list[tuple[int, Callable[[int, filler.LineMemory], str]]] = [
        (450, lambda i, m: filler.small_talk(rng, to="Nadia", memory=m)),
        (
            150,
            lambda i, m: filler.work_chat(rng, colleague="Omar", project=projects[i % 4], memory=m),
        ),
        (
            150,
            lambda i, m: filler.routine_mail(
                rng, sender_first="Priya", project=projects[i % 4], to="Elif", memory=m
            )[1],
        ),
        (
            200,
            lambda i, m: filler.routine_mail(
                rng,
                sender_first="Priya",
                project=projects[i % 4],
                kinds=filler.DIRECT_WORK_MAILS,
                memory=m,
            )[1],
        ),
        (100, lambda i, m: filler.personal_mail(rng, friend="Tobias", user="Elif", memory=m)[1]),
    ]
    for n, render in renderers:
        memory = filler.LineMemory()
        counts = Counter(s for i in range(n) for s in filler.long_sentences(render(i, memory)))
        assert max(counts.values()) <= filler.REPEAT_LIMIT, counts.most_common(1)
