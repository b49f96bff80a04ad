"""Where the documentation's generated numbers come from: a run's report tables, the Markdown
tables of a benchmarks page, and the sections of a run's report kept under docs/runs/
(`memshift docs-tables`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.report.markdown import FailureIndex, Index, Row

BUILD_HINT = "`make run` builds the default study's run, `snakemake --configfile STUDY` another's"
T = TypeVar("T")
CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
HEADING = re.compile(r"^#{1,6} (?P<text>.*?)\s*$")
# a relative link or image target: not a URL, an anchor or a path from the root
RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#|/)(?P<target>[^)\s]+)\)")


@dataclass(frozen=True)
class RunTables:
    """The report tables of one run, as the report's Markdown reads them."""

    folder: Path
    measures: Index
    contrasts: tuple[Row, ...]
    failures: FailureIndex | None
    audit_metrics: Mapping[tuple[str, str], Row]  # by (system, quantity)


def load_run(root: Path, run: str, named_by: str) -> RunTables:
    """The report tables of the run in the folder `run` under `root` (its `report/tables/`); a
    run without them is one line saying how to build it."""
    folder = root / run
    measures = layout.report_table(folder / "report", "measures")
    if not measures.exists():
        raise MemshiftError(
            f"{named_by}: the run {run} has no report tables ({measures.relative_to(folder)} "
            f"is missing); {BUILD_HINT}"
        )
    failures = layout.report_table(folder / "report", "failures")
    audit_metrics = layout.report_table(folder / "report", "audit_metrics")
    return RunTables(
        folder,
        Index(read_table(measures, schemas.MEASURES).to_pylist()),
        tuple(
            read_table(
                layout.report_table(folder / "report", "contrasts"), schemas.CONTRASTS
            ).to_pylist()
        ),
        FailureIndex(read_table(failures, schemas.FAILURES).to_pylist())
        if failures.exists()
        else None,
        {
            (r["system"], r["quantity"]): r
            for r in read_table(audit_metrics, schemas.AUDIT_METRICS).to_pylist()
        }
        if audit_metrics.exists()
        else {},
    )


def cells(line: str) -> list[str]:
    """The cells of a Markdown table row."""
    return [cell.strip() for cell in CELL_SEPARATOR.split(line.strip().strip("|"))]


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table of a Markdown page: its header and rows, each a list of cells."""
    found: list[list[list[str]]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        opens = (
            line.startswith("|")
            and number + 1 < len(lines)
            and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[number + 1].strip()) is not None
            and (number == 0 or not lines[number - 1].startswith("|"))
        )
        if not opens:
            continue
        rows = [cells(line)]
        for following in lines[number + 2 :]:
            if not following.startswith("|"):
                break
            rows.append(cells(following))
        found.append(rows)
    return found


def _exactly_one(found: Sequence[T], quote: str, things: str) -> T:
    """The one thing a quote names; none or several is one line saying how many."""
    if len(found) != 1:
        count = "no" if not found else str(len(found))
        raise MemshiftError(f"{quote}, which has {count} {things}")
    return found[0]


def table_cell(page: Path, row: str, column: str, named_by: str, heading: str | None = None) -> str:
    """The cell of `page`'s one table row whose first cell is `row`, in the column headed
    `column`; with `heading`, of the tables of that section only."""
    if not page.exists():
        raise MemshiftError(f"{named_by} quotes {page}, which does not exist")
    text = (
        page.read_text() if heading is None else "\n".join(section(page, heading, page, named_by))
    )
    where = str(page) if heading is None else f"the section {heading!r} of {page}"
    matches = [
        (header, found)
        for header, *rows in markdown_tables(text)
        for found in rows
        if found[0] == row
    ]
    header, found = _exactly_one(
        matches, f"{named_by} quotes the row {row!r} of {where}", "table rows of that name"
    )
    if column not in header:
        raise MemshiftError(
            f"{named_by} quotes the column {column!r} of {where}, whose table with the row "
            f"{row!r} has the columns {', '.join(repr(h) for h in header)}"
        )
    return found[header.index(column)]


def section(page: Path, heading: str, into: Path, named_by: str) -> tuple[str, ...]:
    """The lines of `page`'s section headed `heading` (any level), down to the next heading
    (its sub-sections are sections of their own), without blank lines at either end; its
    relative links made relative to the folder of the page `into` that quotes it."""
    if not page.exists():
        raise MemshiftError(f"{named_by} quotes {page}, which does not exist")
    lines = page.read_text().splitlines()
    starts = [
        number
        for number, line in enumerate(lines)
        if (found := HEADING.match(line)) is not None and found["text"] == heading
    ]
    start = _exactly_one(
        starts, f"{named_by} quotes the section {heading!r} of {page}", "headings of that text"
    )
    end = next(
        (n for n in range(start + 1, len(lines)) if HEADING.match(lines[n]) is not None),
        len(lines),
    )
    body = lines[start + 1 : end]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    base = Path(os.path.relpath(page.parent, into.parent))

    def rebased(match: re.Match[str]) -> str:
        return f"]({(base / match['target']).as_posix()})"

    return tuple(RELATIVE_LINK.sub(rebased, line) for line in body)
