"""`memshift docs-tables`: the documentation's generated blocks against the run they name."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from memshift import layout, schemas
from memshift.analysis import contrasts, measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table, write_text
from memshift.cli import main
from memshift.report.doc_sources import cells, markdown_tables
from memshift.report.markdown import Header, render
from memshift.rng import stream

RUN = "results/runs/small/h9/rules"
WORLDS = range(5)  # the fewest with intervals
SYSTEMS = ("holdmem-d0-append", "holdmem-d1-append", "holdmem-d0-source", "holdmem-d1-source")
BRANCHES = ("none", "del")
CHANGED = 12  # of the 20 items of each world and branch


def score(world: int, branch: str, system: str, item: int, changed: bool, correct: bool) -> dict:
    row: dict[str, Any] = {name: None for name in schemas.SCORES.names}
    row.update(
        probe_id=f"w{world}-{branch}-{item}",
        world=world,
        branch=branch,
        system=system,
        checkpoint=1,
        item_id=f"item-{item}",
        evidence_tokens=10,
        item_class="contact",
        value_type="entity",
        free_text=False,
        changed=changed,
        caused_by_shift=changed,
        clock_alone=False,
        last_change=1 if changed else None,
        sampled=not changed,
        gold_status="answer",
        kind="direct",
        status="answer",
        correct=correct,
        reason="match" if correct else "wrong value",
        accepted_premise=False,
    )
    return row


def maintenance_log(run: Path, world: int, branch: str, detection: str) -> Path:
    """A detection's log: the source key invalidates every other changed item, append none."""
    rows: dict[str, list[Any]] = {name: [] for name in schemas.MAINTENANCE.names}
    for item in range(CHANGED):
        invalidated = detection == "source" and item % 2 == 0
        for name, value in (
            ("item_id", f"item-{item}"),
            ("checkpoint", 1),
            ("invalidated", invalidated),
            ("reason", "key changed" if invalidated else ""),
            ("key_before", "a"),
            ("key_after", "b"),
            ("rederived", invalidated),
            ("write_id", f"{item}-1"),
        ):
            rows[name].append(value)
    log = run / f"w{world}/detections/{branch}/holdmem-{detection}/maintenance.parquet"
    write_table(pa.Table.from_pydict(rows, schema=schemas.MAINTENANCE), schemas.MAINTENANCE, log)
    return log


def small_run(root: Path) -> Path:
    """A run of four HoldMem cells on five worlds, its scores drawn at random, and its report
    tables and report.md written by the report's own functions."""
    draws = stream(7, "docs-tables")
    rows = [
        score(world, branch, system, item, item < CHANGED, bool(draws.random() < 0.7))
        for world in WORLDS
        for branch in BRANCHES
        for system in SYSTEMS
        for item in range(20)
    ]
    run = root / RUN
    scores = run / "scores.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.SCORES), schemas.SCORES, scores)
    logs = [
        maintenance_log(run, world, branch, detection)
        for world in WORLDS
        for branch in BRANCHES
        for detection in ("append", "source")
    ]
    con = open_study(scores, logs)
    resampling = Resampling(draws=100, seed=1)
    measures.compute(con, resampling)
    measure_table = measures.measures_table(con)
    contrast_table = contrasts.compute(con, contrasts.declare(list(SYSTEMS)), resampling)
    report = run / "report"
    write_table(measure_table, schemas.MEASURES, layout.report_table(report, "measures"))
    write_table(contrast_table, schemas.CONTRASTS, layout.report_table(report, "contrasts"))
    header = Header("small", "rules", "rules", list(WORLDS), resampling.draws, resampling.seed)
    text = render(header, measure_table.to_pylist(), contrast_table.to_pylist(), [], 0)
    write_text(text, layout.report_page(report, "md"))
    return layout.report_page(report, "md")


def memshift(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["memshift", *args])
    try:
        main()
        code = 0
    except SystemExit as exited:
        code = int(exited.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def section_table(report: str, heading: str) -> list[list[str]]:
    """The rows (without the header) of the first table after the line `heading`."""
    after = report.split(f"\n{heading}\n", 1)[1]
    return markdown_tables(after)[0][1:]


def wrong(text: str) -> str:
    """Every digit of a stale page's numbers moved by one."""
    return text.translate(str.maketrans("0123456789", "1234567890"))


@pytest.fixture
def where(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_stale_block_fails_the_check_and_is_rewritten_to_the_runs_numbers(
    where, monkeypatch, capsys
):
    report = small_run(where).read_text()
    update_rows = section_table(report, "## Update")
    stability_rows = section_table(report, "## Stability")
    stale_rows = "\n".join(
        "| " + " | ".join([r[0], *map(wrong, r[1:]), "1.0"]) + " |" for r in update_rows
    )
    page = where / "page.md"
    page.write_text(
        "# Results\n\n"
        f"<!-- generated: update-table run={RUN} -->\n"
        "| system | no shift | deletion | Stability, lowest |\n|---|---|---|---|\n"
        f"{stale_rows}\n"
        "<!-- end generated -->\n\n"
        f"<!-- generated: values run={RUN} -->\n"
        "After a deletion the source key's D=1 cell scores "
        "<!-- value: update holdmem-d1-source del -->1.0<!-- /value -->%, and\n"
        "B×D is <!-- value: contrast BxD source D=1 del interval -->"
        "+1.0 [+1.0, +1.0]<!-- /value -->.\n"
        "<!-- end generated -->\n"
    )

    code, out, _ = memshift(monkeypatch, capsys, "docs-tables", "--check", "page.md")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("page.md:6: update-table block")
    assert f"row {update_rows[0][0]!r}" in lines[0]
    assert lines[1].startswith("page.md:13: values block")
    assert "'update holdmem-d1-source del' reads '1.0'" in lines[1]

    code, out, _ = memshift(monkeypatch, capsys, "docs-tables", "page.md")
    assert code == 0 and len(out.splitlines()) == 2
    code, out, _ = memshift(monkeypatch, capsys, "docs-tables", "--check", "page.md")
    assert (code, out) == (0, "")

    (generated,) = [rows for header, *rows in markdown_tables(page.read_text())]
    assert [row[:-1] for row in generated] == update_rows
    lowest = [min(float(c.split(" ")[0]) for c in row[1:]) for row in stability_rows]
    assert [float(row[-1]) for row in generated] == lowest
    deletion = next(r for r in update_rows if r[0] == "holdmem-d1-source")[2].split(" ")[0]
    assert f"-->{deletion}<!-- /value -->%, and" in page.read_text()
    deletion_section = report.split("\n## Deletion", 1)[1]
    contrast_rows = section_table(deletion_section, "### Contrasts (Update, percentage points)")
    (interaction,) = [r for r in contrast_rows if r[:3] == ["B×D", "source", "D=1"]]
    assert f"-->{interaction[6].replace(' pp', '')}<!-- /value -->." in page.read_text()


def test_a_quote_of_a_benchmarks_table_follows_the_table(where, monkeypatch, capsys):
    bench = where / "docs" / "benchmarks.md"
    bench.parent.mkdir()
    bench.write_text("| what | median | runs |\n|---|---|---|\n| a world | 1.80 s | 1.9, 1.8 s |\n")
    page = where / "README.md"
    page.write_text(
        "<!-- generated: values -->\n"
        '| budget | <!-- value: cell docs/benchmarks.md "a world" median -->'
        "1.80 s<!-- /value --> |\n"
        "<!-- end generated -->\n"
    )
    assert memshift(monkeypatch, capsys, "docs-tables", "--check")[0] == 0

    bench.write_text(bench.read_text().replace("| 1.80 s |", "| 2.10 s |"))
    code, out, _ = memshift(monkeypatch, capsys, "docs-tables", "--check")
    assert code == 1
    assert out.startswith("README.md:2: values block:")
    assert "reads '1.80 s', docs/benchmarks.md gives '2.10 s'" in out
    memshift(monkeypatch, capsys, "docs-tables")
    assert "-->2.10 s<!-- /value -->" in page.read_text()


REPORT_PAGE = """# memshift validation grid

**226 of 240** values lie within their intervals.

## B×D: predicted against measured

| writer | src |
|---|---|
| grid-01 | -0.1 / -1.5 |

![grid_interaction](figures/grid_interaction.png)

### The identity's terms

| term | value |
|---|---|
| r | 1.0 |

## Writers

| writer | kind |
|---|---|
"""


def test_a_quoted_report_section_follows_the_report_with_its_links_working(
    where, monkeypatch, capsys
):
    kept = where / "docs" / "runs" / "validation-grid" / "report.md"
    kept.parent.mkdir(parents=True)
    kept.write_text(REPORT_PAGE)
    page = where / "docs" / "validation.md"
    page.write_text(
        "# Validation\n\n"
        '<!-- generated: section page=docs/runs/validation-grid/report.md heading="B×D: '
        'predicted against measured" -->\n<!-- end generated -->\n\nOur reading.\n'
        "<!-- generated: values -->\nThe term r is "
        "<!-- value: cell docs/runs/validation-grid/report.md r value "
        'section="The identity\'s terms" -->1.0<!-- /value -->.\n<!-- end generated -->\n'
    )

    def check() -> tuple[int, str, str]:
        return memshift(monkeypatch, capsys, "docs-tables", "--check", "docs/validation.md")

    code, out, _ = check()
    assert code == 1 and out.startswith("docs/validation.md:4: section block")
    assert memshift(monkeypatch, capsys, "docs-tables", "docs/validation.md")[0] == 0
    text = page.read_text()
    # the section down to the next heading: a sub-section is a section of its own
    assert "| grid-01 | -0.1 / -1.5 |" in text and "| r | 1.0 |" not in text
    assert "Writers" not in text and "226 of 240" not in text
    assert "](runs/validation-grid/figures/grid_interaction.png)" in text
    assert "<!-- end generated -->\n\nOur reading.\n" in text
    assert check()[:2] == (0, "")

    kept.write_text(REPORT_PAGE.replace("-1.5", "-2.5"))
    code, out, _ = check()
    assert code == 1
    assert (
        "row 'grid-01', column 'src' reads '-0.1 / -1.5', "
        "docs/runs/validation-grid/report.md gives '-0.1 / -2.5'"
    ) in out

    # a cell quoted from one section follows that section's table
    kept.write_text(REPORT_PAGE.replace("| r | 1.0 |", "| r | 2.0 |"))
    code, out, _ = check()
    assert code == 1 and "docs/runs/validation-grid/report.md gives '2.0'" in out

    kept.write_text(REPORT_PAGE.replace("## B×D", "## B x D"))
    code, _, err = check()
    assert code == 2
    (line,) = err.splitlines()
    assert "quotes the section 'B×D: predicted against measured'" in line
    assert "which has no headings of that text" in line


def test_a_missing_run_is_one_line_naming_the_command_that_builds_it(where, monkeypatch, capsys):
    (where / "page.md").write_text(
        f"<!-- generated: update-table run={RUN} -->\n| stale |\n<!-- end generated -->\n"
    )
    code, out, err = memshift(monkeypatch, capsys, "docs-tables", "--check", "page.md")
    assert (code, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(f"memshift: error: page.md:1: the run {RUN} has no report tables")
    assert "`make run`" in line


def test_an_example_in_a_code_block_is_left_as_it_is(where, monkeypatch, capsys):
    small_run(where)
    example = (
        f"```\n<!-- generated: update-table run={RUN} -->\n| system |\n"
        "<!-- end generated -->\n```\n"
    )
    (where / "page.md").write_text(example)
    assert memshift(monkeypatch, capsys, "docs-tables", "page.md")[:2] == (0, "")
    assert (where / "page.md").read_text() == example


def test_a_value_marker_that_begins_a_line_is_refused(where, monkeypatch, capsys):
    small_run(where)
    (where / "page.md").write_text(
        f"<!-- generated: values run={RUN} -->\nThe cell scores\n"
        "<!-- value: update holdmem-d1-source del -->1.0<!-- /value -->%.\n"
        "<!-- end generated -->\n"
    )
    code, _, err = memshift(monkeypatch, capsys, "docs-tables", "--check", "page.md")
    assert code == 2
    assert err.startswith("memshift: error: page.md:3: a value marker begins the line")


def test_table_cells_split_on_unescaped_bars_only() -> None:
    assert cells(r"| B\|D | +1.0 |") == [r"B\|D", "+1.0"]
