"""The rows of a predictions file, read within its bounds before anything is held in memory:
JSON lines (optionally gzipped) line by line, Parquet batch by batch after its metadata.

A file is at most MAX_BYTES on disk and its text at most MAX_BYTES after unpacking; a line (a
Parquet row's text) at most MAX_LINE; at most MAX_LINES lines (blank ones too) or rows. No line
is read past MAX_LINE + 1 bytes, so a small gzip that unpacks to one line of gigabytes costs
64 KB; a Parquet file's row count, unpacked size and column types are checked from its metadata,
and each batch's row sizes from the lengths of its values (a dictionary-encoded column's values
once) before a value is turned into Python text. Every refusal is one InputError line naming the
file and the line or row."""

from __future__ import annotations

import gzip
import itertools
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from memshift.intake.reading import InputError, json_depth, one_line, shortened
from memshift.intake.storable import UnstorableError, parse_storable

MAX_BYTES = 256 << 20
MAX_LINE = 1 << 16
MAX_LINES = 1 << 22
# an object (1) holding a list (2): a set value; one level more is left to the type check
MAX_DEPTH = 3
COLUMNS = ("probe_id", "status", "value", "invalidated")
TEXT_COLUMNS = ("probe_id", "status", "value")
# rows turned into Python at once: at most BATCH * MAX_LINE bytes of text
BATCH = 1024

Row = tuple[str, Any]  # (where: "line N" or "row N", the parsed object)


def file_rows(path: Path) -> Iterator[Row]:
    """Every row of a predictions file (blank lines skipped), by its format."""
    if path.suffix == ".parquet":
        return parquet_rows(path)
    return json_rows(path)


def json_rows(path: Path) -> Iterator[Row]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            yield from _lines(path, handle)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"predictions file {path} cannot be read: {one_line(str(exc))}") from None


def _lines(path: Path, handle: IO[bytes]) -> Iterator[Row]:
    unpacked = 0
    for number in itertools.count(1):
        raw = handle.readline(MAX_LINE + 1)
        if not raw:
            return
        unpacked += len(raw)
        if unpacked > MAX_BYTES:
            raise InputError(f"predictions file {path} unpacks to more than {_mb(MAX_BYTES)}")
        if number > MAX_LINES:
            raise InputError(f"predictions file {path} has more than {MAX_LINES:,} lines")
        if len(raw) > MAX_LINE:
            raise InputError(f"predictions file {path}, line {number}: longer than 64 KB")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise InputError(f"predictions file {path}, line {number}: not UTF-8") from None
        if text:
            yield f"line {number}", _parsed(path, f"line {number}", text, MAX_DEPTH)


def _parsed(path: Path, where: str, text: str, max_depth: int) -> Any:
    """The JSON value of `text`, which every writer can store: no lone surrogate (a string cut
    inside a character), no number of thousands of digits, no deep nesting."""
    if json_depth(text) > max_depth:
        raise InputError(f"predictions file {path}, {where}: nested too deeply")
    try:
        return parse_storable(text, max_depth=max_depth)
    except json.JSONDecodeError as exc:
        raise InputError(f"predictions file {path}, {where}: not JSON ({exc.msg})") from None
    except UnstorableError as exc:
        raise InputError(f"predictions file {path}, {where}: {exc}") from None


def parquet_rows(path: Path) -> Iterator[Row]:
    try:
        metadata = pq.read_metadata(path)
        schema = metadata.schema.to_arrow_schema()
    except Exception as exc:
        raise InputError(f"predictions file {path} is not Parquet: {one_line(str(exc))}") from None
    _check_layout(path, metadata, schema)
    # text read as dictionaries: a value repeated a million times is held once until a batch of
    # its rows is decoded
    texts = [name for name in TEXT_COLUMNS if name in schema.names]
    try:
        file = pq.ParquetFile(path, read_dictionary=texts)
    except Exception as exc:
        raise InputError(f"predictions file {path} is not Parquet: {one_line(str(exc))}") from None
    unpacked, number = 0, 0
    try:
        for batch in file.iter_batches(batch_size=BATCH):
            sizes = _row_sizes(batch)
            for offset, size in enumerate(sizes, start=number + 1):
                if size > MAX_LINE:
                    raise InputError(f"predictions file {path}, row {offset}: longer than 64 KB")
            unpacked += sum(sizes)
            if unpacked > MAX_BYTES:
                raise InputError(f"predictions file {path} unpacks to more than {_mb(MAX_BYTES)}")
            for row in _decoded(path, batch, number):
                number += 1
                yield f"row {number}", _row(path, number, row)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"predictions file {path} cannot be read: {one_line(str(exc))}") from None


def _check_layout(path: Path, metadata: pq.FileMetaData, schema: pa.Schema) -> None:
    def bad(why: str) -> InputError:
        return InputError(f"predictions file {path}: {why}")

    for field in schema:
        if field.name not in COLUMNS:
            raise bad(
                f"unknown column {shortened(field.name)}; the columns are {', '.join(COLUMNS)}"
            )
        if not _column_type_fits(field.name, field.type):
            wanted = "true or false" if field.name == "invalidated" else "text"
            raise bad(f"column `{field.name}` is {field.type}, not {wanted}")
    if metadata.num_rows > MAX_LINES:
        raise bad(f"{metadata.num_rows:,} rows; at most {MAX_LINES:,}")
    unpacked = sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))
    if unpacked > MAX_BYTES:
        raise bad(f"unpacks to {unpacked:,} bytes, more than {_mb(MAX_BYTES)}")


def _column_type_fits(name: str, kind: pa.DataType) -> bool:
    if pa.types.is_null(kind):
        return True
    if name == "invalidated":
        return pa.types.is_boolean(kind)
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _row_sizes(batch: pa.RecordBatch) -> list[int]:
    """The bytes of text of each row, counted without decoding a value (a dictionary-encoded
    column's dictionary once)."""
    total = pa.array([0] * batch.num_rows, pa.int64())
    for name in TEXT_COLUMNS:
        if name not in batch.schema.names:
            continue
        column = batch.column(name)
        if pa.types.is_dictionary(column.type):
            lengths = pc.take(pc.binary_length(column.dictionary), column.indices)
        elif pa.types.is_null(column.type):
            continue
        else:
            lengths = pc.binary_length(column)
        total = pc.add(total, pc.fill_null(lengths.cast(pa.int64()), 0))
    return total.to_pylist()


def _decoded(path: Path, batch: pa.RecordBatch, before: int) -> list[dict[str, Any]]:
    try:
        return batch.to_pylist()
    except UnicodeDecodeError:
        for offset in range(batch.num_rows):
            try:
                batch.slice(offset, 1).to_pylist()
            except UnicodeDecodeError:
                raise InputError(
                    f"predictions file {path}, row {before + offset + 1}: not UTF-8"
                ) from None
        raise


def _row(path: Path, number: int, row: dict[str, Any]) -> dict[str, Any]:
    """A Parquet row as the object of a JSON line: `value` parsed from its JSON text, a null
    `invalidated` left out."""
    value = row.get("value")
    if isinstance(value, str):
        row["value"] = _parsed(path, f"row {number}: `value`", value, MAX_DEPTH - 1)
    return {k: v for k, v in row.items() if not (k == "invalidated" and v is None)}


def _mb(size: int) -> str:
    return f"{size >> 20} MB"
