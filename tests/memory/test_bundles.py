"""Importing a HoldMem bundle: anything but a bundle of this memory's items is refused in one
line naming the file and the problem."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from conftest import world
from memshift.errors import MemshiftError
from memshift.memory.holdmem_system import BUNDLE_FORMAT, HoldMem

SEED = 1001


@cache
def item_ids() -> tuple[str, ...]:
    return tuple(item.item_id for item in world(SEED).items)


def bundle_text(slots: str) -> str:
    return f'{{"format": "{BUNDLE_FORMAT}", "detection": "source", "slots": {slots}}}'


def refused(tmp_path: Path, content: str | bytes) -> str:
    path = tmp_path / "store.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    memory = HoldMem(world(SEED).items)
    with pytest.raises(MemshiftError) as info:
        memory.import_(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message, message
    assert memory.imported is None
    return message


def test_a_bundle_of_known_items_is_imported(tmp_path):
    first, second = item_ids()[:2]
    path = tmp_path / "store.json"
    path.write_text(bundle_text(json.dumps({first: ["a"], second: []})))
    memory = HoldMem(world(SEED).items)
    memory.import_(path)
    assert memory.imported == {first: ["a"], second: []}


def test_an_item_id_given_twice_is_refused(tmp_path):
    first = item_ids()[0]
    slots = f'{{"{first}": ["old"], "{first}": ["new"]}}'
    assert f"the key '{first}' appears twice in one object" in refused(tmp_path, bundle_text(slots))


def test_a_top_level_key_given_twice_is_refused(tmp_path):
    text = bundle_text("{}").replace('"detection"', '"format": "memshift-holdmem-1", "x"')
    assert "the key 'format' appears twice" in refused(tmp_path, text)


@pytest.mark.parametrize("unknown", ["contact99.city", "", "person.time_zone "])
def test_an_item_id_this_memory_lacks_is_refused(tmp_path, unknown):
    slots = json.dumps({item_ids()[0]: ["a"], unknown: ["b"]})
    message = refused(tmp_path, bundle_text(slots))
    assert f"names 1 item id(s) this memory does not have, first {unknown!r}" in message


def test_nesting_that_would_crash_the_parser_is_refused(tmp_path):
    slots = "{" + f'"{item_ids()[0]}": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert "deeper than 64 levels" in refused(tmp_path, bundle_text(slots))


def test_a_bundle_that_is_not_utf8_is_refused(tmp_path):
    content = bundle_text(json.dumps({item_ids()[0]: ["caf"]})).encode().replace(b"caf", b"caf\xe9")
    assert "is not UTF-8 text" in refused(tmp_path, content)


def test_an_oversized_bundle_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "store.json"
    with path.open("wb") as handle:
        handle.truncate(1 << 30)  # a sparse gigabyte: no disk used
    memory = HoldMem(world(SEED).items)
    with pytest.raises(MemshiftError, match="the limit is"):
        memory.import_(path)


@pytest.mark.parametrize(
    ("slots", "problem"),
    [
        ("[]", "'slots' must map item ids to lists of statements"),
        ('{"ID": "one statement"}', "'slots' must map item ids to lists of statements"),
        ('{"ID": [1, 2]}', "'slots' must map item ids to lists of statements"),
        ('{"ID": [NaN]}', "NaN is not a JSON number"),
        ('{"ID": ["a"]', "is not valid JSON"),
    ],
)
def test_malformed_slots_are_refused(tmp_path, slots, problem):
    assert problem in refused(tmp_path, bundle_text(slots.replace("ID", item_ids()[0])))


def test_a_directory_is_not_a_bundle(tmp_path):
    memory = HoldMem(world(SEED).items)
    with pytest.raises(MemshiftError, match="is not a regular file"):
        memory.import_(tmp_path)
