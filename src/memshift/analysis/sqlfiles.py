"""The SQL of the analysis, kept as files in the package and filled in by name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import duckdb

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def sql(name: str, **fields: str) -> str:
    text = (files("memshift.analysis") / "sql" / f"{name}.sql").read_text(encoding="utf-8")
    return text.format(**fields) if fields else text


def run(con: duckdb.DuckDBPyConnection, name: str, **fields: str) -> None:
    con.execute(sql(name, **fields))


def identifiers(names: tuple[str, ...] | list[str]) -> str:
    """Quoted, comma-separated column names, refusing anything that is not a plain name."""
    for name in names:
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError(f"not a plain column name: {name!r}")
    return ", ".join(f'"{name}"' for name in names)


def text_literal(value: str) -> str:
    """A string as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def path_literal(path: Path) -> str:
    """A path as an SQL string literal."""
    return text_literal(str(path))


def path_list(paths: Sequence[Path]) -> str:
    """Paths as an SQL list literal, for read_parquet."""
    return "[" + ", ".join(path_literal(p) for p in paths) + "]"


def records(con: duckdb.DuckDBPyConnection, query: str) -> list[dict[str, Any]]:
    """The rows of a query as dicts by column name."""
    cursor = con.execute(query)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
