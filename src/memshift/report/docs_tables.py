"""`memshift docs-tables`: every marked block of the documentation rendered again from the run
(or the benchmarks page) it names, and either written back or compared with what the page
says (docs/report.md, Numbers in the documentation).

Block kinds: `update-table run=RUN` is the README's table of Update per system and branch with
the lowest Stability beside it, from RUN's report tables; `values [run=RUN]` leaves its lines
as they are but for the values marked in them (`doc_values`); `section page=PAGE
heading=HEADING` is PAGE's section of that heading as it stands (a run's report kept under
docs/runs/, its links made to work from the quoting page). Paths are relative to `root`, the
folder the command runs in."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memshift import layout
from memshift.errors import MemshiftError
from memshift.report import doc_values
from memshift.report.doc_markers import Block, blocks, rewritten, values, with_values
from memshift.report.doc_sources import RunTables, cells, load_run, section
from memshift.report.markdown import measured, pct, shown, table
from memshift.vocabulary import BRANCH_NAMES

KIND_OPTIONS = {"update-table": ("run",), "values": ("run",), "section": ("page", "heading")}
LOWEST_STABILITY = "Stability, lowest"


def default_pages(root: Path) -> list[Path]:
    return layout.doc_pages(root)


def update_table(run: RunTables) -> tuple[str, ...]:
    """Update with its interval per system and branch, as the report's Update table shows it,
    and the lowest Stability of the system over the branches."""
    index, branches = run.measures, run.measures.branches

    def lowest_stability(system: str) -> str:
        estimates = [
            row["estimate"]
            for branch in branches
            if (row := index.get(system, branch, "stability")) is not None
            and row["estimate"] is not None
        ]
        return pct(min(estimates, default=None))

    rows = [
        [
            shown(system),
            *[measured(index, run.failures, system, branch, "update") for branch in branches],
            lowest_stability(system),
        ]
        for system in index.systems
    ]
    header = ["system", *[BRANCH_NAMES.get(b, b) for b in branches], LOWEST_STABILITY]
    return tuple(table(header, rows).splitlines())


@dataclass
class Runs:
    """The runs the blocks name, each read once."""

    root: Path
    read: dict[str, RunTables] = field(default_factory=dict)

    def of(self, block: Block) -> RunTables:
        if "run" not in block.options:
            raise MemshiftError(f"{block.where()}: {block.kind} block names no run= folder")
        run = block.options["run"]
        if run not in self.read:
            self.read[run] = load_run(self.root, run, block.where())
        return self.read[run]


def rendered(block: Block, runs: Runs, page: Path) -> tuple[str, ...]:
    """The block's body as its source gives it now."""
    if block.kind not in KIND_OPTIONS:
        raise MemshiftError(
            f"{block.where()}: unknown block kind {block.kind!r} (known: {', '.join(KIND_OPTIONS)})"
        )
    unknown = set(block.options) - set(KIND_OPTIONS[block.kind])
    if unknown:
        raise MemshiftError(
            f"{block.where()}: {block.kind} block has no option {', '.join(sorted(unknown))}"
        )
    if block.kind == "update-table":
        return update_table(runs.of(block))
    if block.kind == "section":
        missing = [name for name in KIND_OPTIONS["section"] if name not in block.options]
        if missing:
            raise MemshiftError(f"{block.where()}: section block names no {missing[0]}=")
        source = runs.root / block.options["page"]
        return section(source, block.options["heading"], page, block.where())
    texts = [
        doc_values.run_value(value.key, runs.of(block), block.where(value.line))
        if doc_values.needs_run(value.key)
        else doc_values.cell(value.key, runs.root, block.where(value.line))
        for value in values(block)
    ]
    return with_values(block.body, texts)


@dataclass(frozen=True)
class Difference:
    where: str  # page and line
    block: str
    what: str

    def line(self) -> str:
        return f"{self.where}: {self.block}: {self.what}"


def _row_difference(block: Block, offset: int, now: Sequence[str], source: str) -> str:
    """The first differing row: its first differing cell where both are rows of the table."""
    here = block.body[offset] if offset < len(block.body) else None
    there = now[offset] if offset < len(now) else None
    if here is not None and there is not None and here.startswith("|") and there.startswith("|"):
        header, old, new = cells(block.body[0]), cells(here), cells(there)
        if len(old) == len(new) == len(header):
            column = next(n for n, (a, b) in enumerate(zip(old, new, strict=True)) if a != b)
            return (
                f"row {old[0]!r}, column {header[column]!r} reads {old[column]!r}, "
                f"{source} gives {new[column]!r}"
            )
    return f"reads {here or '(nothing)'!r}, {source} gives {there or '(nothing)'!r}"


def difference(block: Block, now: Sequence[str]) -> Difference | None:
    """Where the page's block first differs from its body rendered `now`: the first value of a
    values block, else the first row (and cell)."""
    if tuple(block.body) == tuple(now):
        return None
    if block.kind == "values":
        shown_values = values(block)
        rendered_values = values(Block(block.page, block.kind, block.options, block.start, now))
        for old, new in zip(shown_values, rendered_values, strict=True):
            if old.text != new.text:
                source = "the run" if doc_values.needs_run(old.key) else old.key[1]
                return Difference(
                    block.where(old.line),
                    block.label(),
                    f"{shlex.join(old.key)!r} reads {old.text!r}, {source} gives {new.text!r}",
                )
    offset = next(
        n for n in range(max(len(block.body), len(now))) if block.body[n : n + 1] != now[n : n + 1]
    )
    source = block.options["page"] if block.kind == "section" else "the run"
    return Difference(
        block.where(offset + 1), block.label(), _row_difference(block, offset, now, source)
    )


@dataclass(frozen=True)
class Page:
    path: Path
    text: str
    bodies: dict[int, tuple[str, ...]]  # each differing block's body now, by its marker line
    differences: tuple[Difference, ...]


def examined(path: Path, runs: Runs) -> Page:
    if not path.exists():
        raise MemshiftError(f"no page {path}")
    text = path.read_text()
    name = str(path.relative_to(runs.root)) if path.is_relative_to(runs.root) else str(path)
    bodies, differences = {}, []
    for block in blocks(text, name):
        now = rendered(block, runs, path)
        found = difference(block, now)
        if found is not None:
            bodies[block.start] = now
            differences.append(found)
    return Page(path, text, bodies, tuple(differences))


def check(pages: Iterable[Path], root: Path) -> list[Difference]:
    """Every block of `pages` that differs from its source, first difference each."""
    runs = Runs(root)
    return [found for path in pages for found in examined(path, runs).differences]


def rewrite(pages: Iterable[Path], root: Path) -> list[Difference]:
    """Write every differing block of `pages` anew from its source; what was rewritten."""
    runs = Runs(root)
    # every page rendered before any is written: an error leaves every page as it was
    examined_pages = [examined(path, runs) for path in pages]
    for page in examined_pages:
        if page.bodies:
            page.path.write_text(rewritten(page.text, page.bodies))
    return [found for page in examined_pages for found in page.differences]
