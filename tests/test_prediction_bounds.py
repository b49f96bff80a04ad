"""A predictions file outside its bounds, or holding text no writer can store, is refused in one
line naming the file and where, before it is held in memory: a small gzip that unpacks to
gigabytes, a small Parquet file of millions of rows, nesting, numbers of thousands of digits, and
lone surrogates (what a tool writes when it cuts a string inside an emoji)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from memshift.intake import prediction_files
from memshift.intake.prediction_files import MAX_BYTES, MAX_LINE, MAX_LINES
from memshift.intake.predictions import read_predictions
from memshift.intake.reading import InputError
from memshift.stages.specs import PredictionsJob

PROBE = "w1000-00a1b2c3d4e5f607"
OTHER = "w1000-1b2c3d4e5f607182"
ABSTAIN = {"probe_id": PROBE, "status": "abstain", "value": None}


def refusal(path: Path, *where: str) -> str:
    """The one line a file is refused with; it names the file and `where`, and can be printed."""
    with pytest.raises(InputError) as caught:
        read_predictions(path)
    line = str(caught.value)
    assert "\n" not in line and str(path) in line
    assert all(w in line for w in where), line
    line.encode("utf-8")  # an error that cannot be printed would be a traceback of its own
    return line


def gzip_members(path: Path, member: bytes, times: int) -> Path:
    """`times` copies of one gzip member: a file of a few KB to MB that unpacks to
    `times * len(member)` bytes, written without ever holding them."""
    packed = gzip.compress(member, compresslevel=9)
    with open(path, "wb") as out:
        for _ in range(times):
            out.write(packed)
    return path


def constant(text: str | None, rows: int) -> pa.Array:
    """A column of `rows` copies of `text`, dictionary-encoded: a few bytes on disk."""
    indices = pa.array(np.zeros(rows, np.int32))
    return pa.DictionaryArray.from_arrays(indices, pa.array([text], pa.string()))


def parquet(path: Path, columns: dict[str, pa.Array], **options) -> Path:
    pq.write_table(pa.table(columns), path, **options)
    return path


# --- bounds after unpacking, per line and per file ------------------------------------------


def test_a_small_gzip_unpacking_to_one_line_of_4_gb_is_refused_at_64_kb(tmp_path):
    bomb = gzip_members(tmp_path / "p.jsonl.gz", b"\0" * (1 << 20), 4096)
    assert bomb.stat().st_size < 8 << 20
    refusal(bomb, "line 1: longer than 64 KB")


def test_a_gzip_of_short_lines_unpacking_past_256_mb_is_refused(tmp_path):
    # lines of 60 KB of blanks, each within the line bound; 260 MB in all
    member = (b" " * 60_000 + b"\n") * 16
    bomb = gzip_members(tmp_path / "p.jsonl.gz", member, MAX_BYTES // len(member) + 10)
    assert refusal(bomb).endswith("unpacks to more than 256 MB")


def test_a_small_gzip_of_more_lines_than_the_bound_is_refused(tmp_path):
    bomb = gzip_members(tmp_path / "p.jsonl.gz", b"\n" * (MAX_LINES // 4 + 1), 4)
    assert refusal(bomb).endswith(f"has more than {MAX_LINES:,} lines")


def test_a_plain_file_of_one_long_line_is_refused_without_reading_it(tmp_path):
    sparse = tmp_path / "p.jsonl"
    with open(sparse, "wb") as out:
        out.truncate(200 << 20)  # 200 MB of zeros, no newline
    refusal(sparse, "line 1: longer than 64 KB")


def test_a_file_larger_than_256_mb_on_disk_is_refused_before_it_is_opened(tmp_path):
    sparse = tmp_path / "p.jsonl"
    with open(sparse, "wb") as out:
        out.truncate(MAX_BYTES + 1)
    assert refusal(sparse).endswith("is larger than 256 MB")


def test_a_line_of_exactly_64_kb_is_read_and_one_byte_more_is_refused(tmp_path):
    line = json.dumps(ABSTAIN)
    padded = line[:-1] + " " * (MAX_LINE - 1 - len(line)) + "}\n"
    assert len(padded) == MAX_LINE
    path = tmp_path / "p.jsonl"
    path.write_text(padded)
    assert read_predictions(path).by_probe[PROBE].status == "abstain"
    path.write_text(" " + padded)
    refusal(path, "line 1: longer than 64 KB")


@pytest.mark.parametrize(
    "value",
    [
        "[" * 30_000 + "]" * 30_000,
        '{"a": ' * 5_000 + "1" + "}" * 5_000,
        '[{"a": ["x"]}]',
    ],
    ids=["arrays-30000-deep", "objects-5000-deep", "objects-in-a-set"],
)
def test_nesting_in_a_line_is_refused(tmp_path, value):
    path = tmp_path / "p.jsonl"
    path.write_text(f'{{"probe_id": "{PROBE}", "status": "answer", "value": {value}}}\n')
    refusal(path, "line 1: nested too deeply")


@pytest.mark.parametrize(
    ("number", "problem"),
    [
        ("9" * 5000, "a number of 5000 digits"),
        ("-" + "1" * 5000, "a number of 5000 digits"),
        ("1e99999", "beyond what a float holds"),
        ("NaN", "NaN, which is not JSON"),
    ],
    ids=["5000-digits", "negative-5000-digits", "float-overflow", "nan"],
)
def test_a_number_json_allows_but_no_reader_survives_is_refused(tmp_path, number, problem):
    path = tmp_path / "p.jsonl"
    path.write_text(f'{{"probe_id": "{PROBE}", "status": "answer", "value": {number}}}\n')
    refusal(path, "line 1:", problem)


def test_a_gzip_whose_deflate_data_is_damaged_is_refused(tmp_path):
    header = gzip.compress(b"")[:10]
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(header + b"\xff" * 100)  # a block of the reserved type
    refusal(path, "cannot be read", "invalid block type")


# --- Parquet: the metadata first, then batch by batch ----------------------------------------


def test_a_small_parquet_file_of_ten_million_rows_is_refused_from_its_metadata(tmp_path):
    rows = 10_000_000
    columns = {"probe_id": constant(PROBE, rows), "status": constant("abstain", rows)}
    path = parquet(tmp_path / "p.parquet", columns)
    assert path.stat().st_size < 200_000
    assert refusal(path).endswith(f"10,000,000 rows; at most {MAX_LINES:,}")


def test_a_parquet_file_one_row_over_the_row_bound_is_refused(tmp_path):
    rows = MAX_LINES + 1
    path = parquet(tmp_path / "p.parquet", {"probe_id": pa.nulls(rows, pa.string())})
    assert refusal(path).endswith(f"{rows:,} rows; at most {MAX_LINES:,}")


def test_a_dictionary_encoded_value_of_100_kb_is_refused_before_it_is_repeated(tmp_path):
    # a million rows of one 100 KB value: 100 GB once decoded, a few KB on disk
    rows = 1_000_000
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": constant(PROBE, rows),
        "status": constant("answer", rows),
        "value": constant(json.dumps("x" * 100_000), rows),
    })  # fmt: skip
    refusal(path, "row 1: longer than 64 KB")


def test_parquet_rows_past_256_mb_in_all_are_refused(tmp_path, monkeypatch):
    # rows within the row bound whose text adds up past the file's: the bound lowered to 1 MB so
    # the test writes a few MB, not 256 (the same comparison)
    monkeypatch.setattr(prediction_files, "MAX_BYTES", 1 << 20)
    rows = 400
    ids = pa.array([f"w1000-{n:016x}" for n in range(rows)])
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": ids,
        "status": constant("answer", rows),
        "value": constant(json.dumps("x" * 4000), rows),
    })  # fmt: skip
    assert refusal(path).endswith("unpacks to more than 1 MB")


def test_a_parquet_file_whose_metadata_says_it_unpacks_past_256_mb_is_refused(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(prediction_files, "MAX_BYTES", 1 << 20)
    rows = 40
    path = parquet(tmp_path / "p.parquet",
                   {"probe_id": pa.array(["w" * 60_000 + str(n) for n in range(rows)])},
                   use_dictionary=False, compression="zstd")  # fmt: skip
    assert path.stat().st_size < 1 << 20
    assert "more than 1 MB" in refusal(path, "unpacks to")


def test_a_deeply_nested_parquet_value_is_refused(tmp_path):
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": pa.array([PROBE]),
        "status": pa.array(["answer"]),
        "value": pa.array(["[" * 30_000 + "]" * 30_000]),
    })  # fmt: skip
    refusal(path, "row 1: `value`: nested too deeply")


def test_a_parquet_value_with_5000_digits_is_refused(tmp_path):
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": pa.array([PROBE]),
        "status": pa.array(["answer"]),
        "value": pa.array(["7" * 5000]),
    })  # fmt: skip
    refusal(path, "row 1: `value`: a number of 5000 digits")


@pytest.mark.parametrize(
    ("columns", "problem"),
    [
        ({"probe_id": pa.array([PROBE]), "gold": pa.array(["x"])}, "unknown column 'gold'"),
        ({"probe_id": pa.array([PROBE]), "value": pa.array([3])},
         "column `value` is int64, not text"),
        ({"probe_id": pa.array([PROBE]), "value": pa.array([["a"]])},
         "column `value` is list<element: string>, not text"),
        ({"probe_id": pa.array([PROBE]), "invalidated": pa.array(["yes"])},
         "column `invalidated` is string, not true or false"),
    ],
    ids=["unknown-column", "number-value", "list-value", "text-flag"],
)  # fmt: skip
def test_a_parquet_column_of_another_name_or_type_is_refused_before_a_row_is_read(
    tmp_path, columns, problem
):
    refusal(parquet(tmp_path / "p.parquet", columns), problem)


def test_a_parquet_file_with_a_damaged_page_is_refused(tmp_path):
    rows = 5000
    path = parquet(tmp_path / "p.parquet",
                   {"probe_id": pa.array([f"w1000-{n:016x}" for n in range(rows)]),
                    "status": constant("abstain", rows)},
                   use_dictionary=False, compression="snappy")  # fmt: skip
    data = bytearray(path.read_bytes())
    data[100:4000] = bytes(3900)
    path.write_bytes(bytes(data))
    refusal(path, "cannot be read")


# --- lone surrogates --------------------------------------------------------------------------


def answer_line(value_json: str, probe: str = PROBE) -> str:
    return f'{{"probe_id": "{probe}", "status": "answer", "value": {value_json}}}\n'


@pytest.mark.parametrize(
    "value",
    [
        r'"\ud83d"',  # the first half of an emoji, alone
        r'"Caf\u00e9 \ud83d"',  # a string cut inside its last character
        r'"\ude00 and after"',  # the second half alone
        r'"\ude00\ud83d"',  # both halves, in the wrong order
        r'["Ana", "Ben \ud83d"]',  # in a set
    ],
    ids=["high-alone", "cut-at-end", "low-alone", "reversed-pair", "in-a-set"],
)
def test_a_lone_surrogate_in_an_answer_is_refused_naming_the_line(tmp_path, value):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(ABSTAIN | {"probe_id": OTHER}) + "\n" + answer_line(value))
    refusal(path, "line 2:", "a lone surrogate", "$.value")


def test_a_whole_emoji_written_as_its_two_halves_is_read(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(answer_line(r'"Northwind \ud83d\ude00"'))
    assert read_predictions(path).by_probe[PROBE].value == json.dumps(
        "Northwind \U0001f600", ensure_ascii=False
    )


def test_a_lone_surrogate_in_a_gzipped_file_is_refused(tmp_path):
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(gzip.compress(answer_line(r'"\ud83d"').encode()))
    refusal(path, "line 1:", "a lone surrogate")


def test_a_lone_surrogate_in_a_key_or_an_id_is_refused(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"probe_id": "' + PROBE + r'", "status": "abstain", "\ud83d": 1}' + "\n")
    refusal(path, "line 1:", "a lone surrogate")
    path.write_text(r'{"probe_id": "w1000-\ud83d", "status": "abstain"}' + "\n")
    refusal(path, "line 1:", "a lone surrogate")


def test_a_surrogate_encoded_as_bytes_is_not_utf8(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(answer_line('"x"').encode().replace(b'"x"', b'"\xed\xa0\xbd"'))
    refusal(path, "line 1: not UTF-8")


def test_a_lone_surrogate_in_a_parquet_value_is_refused_naming_the_row(tmp_path):
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": pa.array([OTHER, PROBE]),
        "status": pa.array(["abstain", "answer"]),
        "value": pa.array([None, r'"\ud83d"']),
    })  # fmt: skip
    refusal(path, "row 2: `value`:", "a lone surrogate")


def test_parquet_text_that_is_not_utf8_is_refused_naming_the_row(tmp_path):
    values = pa.array([b'"ok"', b'"\xed\xa0\xbd"'], pa.binary())
    text = pa.Array.from_buffers(pa.string(), 2, values.buffers())
    path = parquet(tmp_path / "p.parquet", {
        "probe_id": pa.array([OTHER, PROBE]),
        "status": pa.array(["answer", "answer"]),
        "value": text,
    })  # fmt: skip
    refusal(path, "row 2: not UTF-8")


def test_the_predictions_job_refuses_a_lone_surrogate_in_one_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(answer_line(r'"\ud83d"'))
    spec = PredictionsJob(Path("w1000"), Path("run"), ("none",), "mine", path)
    done = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "job", "predictions", spec.to_json()],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"memshift: error: predictions file {path}, line 1: a lone surrogate")
    assert not (tmp_path / "run").exists()
