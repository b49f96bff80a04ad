"""Every block of the README and docs/*.md that quotes a page kept in the repository (a section
or a table cell of a kept run report under docs/runs/, a cell of docs/benchmarks*.md) says what
that page says now. Blocks that quote a run's report tables need the run, and are checked by
`make test-docs`."""

from __future__ import annotations

from pathlib import Path

import pytest

from memshift.report.doc_markers import blocks
from memshift.report.docs_tables import Runs, default_pages, difference, rendered

ROOT = Path(__file__).resolve().parents[2]


def kept_quotes() -> list[tuple[Path, int]]:
    return [
        (page, block.start)
        for page in default_pages(ROOT)
        for block in blocks(page.read_text(), str(page.relative_to(ROOT)))
        if "run" not in block.options
    ]


def test_the_docs_quote_the_kept_validation_reports():
    quoted = {p.relative_to(ROOT).as_posix() for p, _ in kept_quotes()}
    assert {"README.md", "docs/validation.md"} <= quoted


@pytest.mark.parametrize(
    ("page", "start"), kept_quotes(), ids=lambda v: v.name if isinstance(v, Path) else str(v)
)
def test_a_quote_of_a_kept_page_says_what_the_page_says(page: Path, start: int):
    name = str(page.relative_to(ROOT))
    (block,) = [b for b in blocks(page.read_text(), name) if b.start == start]
    found = difference(block, rendered(block, Runs(ROOT), page))
    assert found is None, found.line() if found else ""
