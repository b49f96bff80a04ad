"""Reading and writing artifacts: atomic, schema-checked and byte-for-byte reproducible."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from memshift.errors import MemshiftError
from memshift.files import write_atomically


class ArtifactError(MemshiftError):
    """An artifact is missing, malformed or does not match its declared schema."""


class _PandasAbsent:
    """A finder under which `import pandas` fails."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("pandas is hidden from pyarrow's first probe")


def skip_pyarrow_pandas_probe() -> None:
    """Let pyarrow's first look for pandas find none, in a process that never hands it pandas.

    pyarrow imports pandas (a third of a second) the first time it converts Python objects, only
    to ask whether they are pandas objects; ours never are, and a study starts thousands of such
    processes. pyarrow imports pandas again on demand whenever a call needs it (to_pandas, for
    one), so nothing is lost."""
    if "pandas" in sys.modules:
        return
    sys.meta_path.insert(0, _PandasAbsent)  # type: ignore[arg-type]
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(_PandasAbsent)  # type: ignore[arg-type]


def write_table(table: pa.Table, schema: pa.Schema, path: Path) -> None:
    if not table.schema.equals(schema):
        raise ArtifactError(
            f"{path.name}: table schema does not match the declared schema:\n"
            f"{table.schema}\n--- expected ---\n{schema}"
        )
    write_atomically(
        path,
        lambda tmp: pq.write_table(
            table,
            tmp,
            compression="zstd",
            compression_level=3,
            write_statistics=True,
            use_dictionary=True,
        ),
    )


def read_table(path: Path, schema: pa.Schema, columns: Sequence[str] | None = None) -> pa.Table:
    """The table at `path`, which must have `schema`: all of it, or only `columns` of it."""
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns])
    if not path.exists():
        raise ArtifactError(f"missing artifact {path}")
    try:
        # ParquetFile reads one file without importing the dataset machinery (a fifth of a
        # second per process, and every stage is a process); one thread, since Arrow's pool
        # makes a world's events three times slower to read on two cores.
        table = pq.ParquetFile(path).read(
            columns=None if columns is None else list(columns), use_threads=False
        )
    except (pa.ArrowInvalid, OSError) as exc:
        raise ArtifactError(f"cannot read {path}: {exc}") from exc
    if not table.schema.equals(schema):
        raise ArtifactError(
            f"{path} does not have the expected schema (written by another "
            f"version?); got:\n{table.schema}"
        )
    return table


def write_json(data: Any, path: Path) -> None:
    write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", path)


def read_json(path: Path) -> Any:
    if not path.exists():
        raise ArtifactError(f"missing artifact {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"{path} is not valid JSON: {exc}") from exc


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_text(text: str, path: Path) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
