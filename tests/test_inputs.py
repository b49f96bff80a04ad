"""The loaders of user files: YAML without aliases, bounded size and nesting, UTF-8 only, JSON
without repeated keys; each refusal is one line naming the file."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memshift.errors import ConfigError, MemshiftError
from memshift.intake.reading import MAX_DEPTH, MAX_YAML_BYTES, json_depth, load_json, load_yaml
from yaml_bombs import alias_bomb


def refused(path: Path, load=load_yaml, error=ConfigError) -> str:
    with pytest.raises(error) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert str(path) in message, message
    return message


def written(tmp_path: Path, text: str | bytes, name: str = "study.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    path = written(tmp_path, alias_bomb(10))
    assert len(path.read_bytes()) < 600
    started = time.monotonic()
    assert "anchors and aliases" in refused(path)
    assert time.monotonic() - started < 1


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # a scalar alias
        "a: &x [1, 2]\n",  # an anchor alone
        "base: &b {llm: rules}\nstudy:\n  <<: *b\n",  # a merge key through an alias
        "seeds: !!str &s 1000\n",  # an anchor after a tag
    ],
)
def test_every_anchor_and_alias_is_refused(tmp_path, text):
    message = refused(written(tmp_path, text))
    assert "anchors and aliases" in message and "line " in message


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",
        "a: " + "[" * 3000 + "]" * 3000 + "\n",  # deep enough to overflow PyYAML's recursion
        "".join(f"{'  ' * i}k{i}:\n" for i in range(MAX_DEPTH + 2)) + f"{'  ' * 70}v: 1\n",
    ],
)
def test_nesting_deeper_than_the_bound_is_refused(tmp_path, text):
    assert f"nested deeper than {MAX_DEPTH} levels" in refused(written(tmp_path, text))


def test_nesting_within_the_bound_is_read(tmp_path):
    depth = MAX_DEPTH - 1  # below the top-level mapping
    path = written(tmp_path, "a: " + "[" * depth + "1" + "]" * depth + "\n")
    value = load_yaml(path)["a"]
    for _ in range(depth - 1):
        value = value[0]
    assert value == [1]


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    path = written(tmp_path, "# " + "x" * MAX_YAML_BYTES + "\nstudy: big\n")
    assert "the limit is" in refused(path)


@pytest.mark.parametrize("data", [b"study: caf\xe9\n", b"\xff\xfe s\x00t\x00", b"a: \xc3\n"])
def test_text_that_is_not_utf8_is_refused(tmp_path, data):
    assert "is not UTF-8 text" in refused(written(tmp_path, data))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: [1, 2\n", "expected ',' or ']'"),
        ("a: 1\n---\nb: 2\n", "expected a single document"),
        ("a: 2024-02-30\n", "day is out of range"),
        ("a: !!python/object/apply:os.system ['true']\n", "could not determine a constructor"),
        ("a:\tb\n", "found character '\\t'"),
    ],
)
def test_malformed_yaml_is_one_line_naming_the_file_and_the_place(tmp_path, text, problem):
    assert problem in refused(written(tmp_path, text))


def test_a_directory_or_a_missing_file_is_named(tmp_path):
    assert "is not a regular file" in refused(tmp_path)
    assert "cannot read config" in refused(tmp_path / "absent.yaml")


def test_plain_yaml_still_loads(tmp_path):
    path = written(tmp_path, "study: s\nworlds: {seeds: 1000-1001}\nbranches: [none, src]\n")
    assert load_yaml(path) == {
        "study": "s",
        "worlds": {"seeds": "1000-1001"},
        "branches": ["none", "src"],
    }


def load_bundle_json(path: Path):
    return load_json(path, "bundle", 100_000)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": 1, "a": 2}', "the key 'a' appears twice in one object"),
        ('{"x": {"b": [], "b": []}}', "the key 'b' appears twice"),
        ("[" * 5000 + "]" * 5000, f"deeper than {MAX_DEPTH} levels"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": 1', "is not valid JSON: Expecting ',' delimiter"),
        ('{"a": ' + "9" * 5000 + "}", "is not valid JSON"),
        (" " * 100_001, "holds 100,001 bytes; the limit is 100,000"),
    ],
)
def test_json_inputs_are_refused_in_one_line(tmp_path, text, problem):
    message = refused(written(tmp_path, text, "in.json"), load_bundle_json, MemshiftError)
    assert problem in message


def test_json_depth_ignores_brackets_inside_strings():
    assert json_depth('{"a": ["[[[[", {"b": "}}]]"}]}') == 3
    assert json_depth('["\\"[[["]') == 1
