"""Definitions in the user's own words: a program request states the person's phrasing where it
would state the grammar's sentence, and nothing else changes; the rule-based program writer reads
the codified structure, never either sentence, so its programs are the same."""

from __future__ import annotations

from dataclasses import replace

import pytest
from batchwork import openai_profile

from conftest import world
from memshift.definitions.catalog import SIX
from memshift.definitions.words import USER_WORDS, user_words
from memshift.memory.programs import PROGRAM_FIELDS
from memshift.models.client import request_key
from memshift.models.openai_backend import OpenAIBackend
from memshift.models.prompts import build
from memshift.models.reply_schemas import SCHEMAS
from memshift.models.requests import ProgramRequest
from memshift.simulator.programs import item_program

PROFILE = openai_profile("http://127.0.0.1:1")


def requests() -> list[tuple[ProgramRequest, ProgramRequest]]:
    items = {i.item_id: i for i in world(1000).items}
    pairs = []
    for d in SIX:
        item = items[d.item_id]
        fields = tuple(kv for s in item.sources for kv in PROGRAM_FIELDS[s])
        codified = ProgramRequest(item, d.version, fields)
        pairs.append((codified, replace(codified, wording="user")))
    return pairs


def test_every_fixed_definition_has_its_own_words_in_both_versions() -> None:
    assert set(USER_WORDS) == {(d.name, d.version) for d in SIX}
    assert len(set(USER_WORDS.values())) == len(USER_WORDS)
    for d in SIX:
        assert user_words(d) != d.text


def test_words_replace_only_the_definitions_statement_and_change_the_cache_key() -> None:
    backend = OpenAIBackend(PROFILE)
    for codified, user in requests():
        d = codified.definition
        assert d is not None
        before, after = build(codified), build(user)
        assert d.text in before[1]["content"] and d.text not in after[1]["content"]
        assert user_words(d) in after[1]["content"]
        assert before[1]["content"].replace(d.text, user_words(d)) == after[1]["content"]
        assert before[0] == after[0]
        keys = [
            request_key(PROFILE, backend.body("program", build(r), SCHEMAS["program"]))[0]
            for r in (codified, user)
        ]
        assert keys[0] != keys[1]


def test_the_rule_based_program_writer_ignores_the_wording() -> None:
    for codified, user in requests():
        assert item_program(codified) == item_program(user)


def test_a_held_out_definition_has_no_user_words() -> None:
    d = replace(SIX[0], name="weekend_partner")
    with pytest.raises(KeyError, match="only the fixed definitions"):
        user_words(d)
