"""A predictions file from outside memshift: every malformed, hostile or inconsistent file is
refused in one line naming the file and where; a good one is read in any of its formats."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from memshift.intake.predictions import read_predictions
from memshift.intake.reading import InputError

GOOD = [
    {"probe_id": "w1000-00a1b2c3d4e5f607", "status": "answer", "value": "Northwind"},
    {"probe_id": "w1000-1b2c3d4e5f607182", "status": "answer", "value": ["Ana", "Ben"]},
    {"probe_id": "w1001-2c3d4e5f60718293", "status": "blocked", "value": None},
    {"probe_id": "w1001-3d4e5f6071829304", "status": "abstain", "value": None},
]


def jsonl(tmp_path: Path, rows: list, name: str = "p.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_a_good_file_is_read_from_json_lines_gzip_and_parquet(tmp_path):
    plain = read_predictions(jsonl(tmp_path, GOOD))
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(jsonl(tmp_path, GOOD).read_bytes()))
    table = pa.Table.from_pylist(
        [{**r, "value": None if r["value"] is None else json.dumps(r["value"])} for r in GOOD]
    )
    pq.write_table(table, tmp_path / "p.parquet")
    for other in (read_predictions(packed), read_predictions(tmp_path / "p.parquet")):
        assert other == plain
    assert plain.by_probe["w1000-1b2c3d4e5f607182"].value == '["Ana", "Ben"]'
    assert not plain.reports_invalidations and plain.worlds() == {1000, 1001}
    flagged = read_predictions(jsonl(tmp_path, [{**r, "invalidated": True} for r in GOOD]))
    assert flagged.reports_invalidations


ID = '{"probe_id": "w1-4e5f607182930415", '  # a line's start: a well-formed probe id
BAD = [
    ("not json", "not JSON"),
    ('["a list"]', "not a JSON object"),
    ('{"probe_id": "x", "status": "answer", "value": "v"}', "is not a probe id"),
    # an id of the scored probes, which names the branch, checkpoint, item and kind
    ('{"probe_id": "w1-src-c1-person.employer", "status": "answer", "value": "v"}',
     "is not a probe id"),
    (ID + '"status": "maybe", "value": null}', "`status` 'maybe'"),
    (ID + '"status": "answer", "value": 3}', "must be a string or a list"),
    (ID + '"status": "answer", "value": [[["x"]]]}', "nested too deeply"),
    (ID + '"status": "abstain", "value": "v"}', "has no `value`"),
    (ID + '"status": "abstain", "value": null, "gold": 1}', "unknown key"),
    (ID + '"status": "abstain", "value": null, "invalidated": "yes"}',
     "true or false"),
    (ID + '"status": "answer", "value": "' + "x" * 5000 + '"}',
     "longer than 4096"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "problem"), BAD)
def test_a_malformed_line_is_refused_with_its_number(tmp_path, line, problem):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n" + line + "\n")
    with pytest.raises(InputError, match="line 2") as caught:
        read_predictions(path)
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_hostile_files_are_refused(tmp_path):
    cases = {
        "twice": (json.dumps(GOOD[0]) + "\n") * 2,
        "partial": json.dumps({**GOOD[0], "invalidated": True}) + "\n" + json.dumps(GOOD[2]),
        "empty": "\n\n",
    }
    problems = {"twice": "appears twice", "partial": "for every probe or for none",
                "empty": "holds no prediction"}  # fmt: skip
    for name, text in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(text)
        with pytest.raises(InputError, match=problems[name]):
            read_predictions(path)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"probe_id": "\xff\xfe"}\n')
    with pytest.raises(InputError, match="not UTF-8"):
        read_predictions(binary)
    long_line = tmp_path / "long.jsonl"
    long_line.write_text('{"probe_id": "' + "w" * 70000 + '"}\n')
    with pytest.raises(InputError, match="longer than 64 KB"):
        read_predictions(long_line)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b"x" * 100)[:20])
    with pytest.raises(InputError, match="cannot be read"):
        read_predictions(broken)
    not_parquet = tmp_path / "x.parquet"
    not_parquet.write_text("PAR1 but not really")
    with pytest.raises(InputError, match="is not Parquet"):
        read_predictions(not_parquet)
    with pytest.raises(InputError, match="does not exist"):
        read_predictions(tmp_path / "missing.jsonl")
