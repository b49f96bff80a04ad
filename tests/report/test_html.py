"""The report as one HTML page: every Markdown table a <table> with the same cells, figures
embedded, nothing of the report's text lost or left unescaped."""

from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

from memshift.report.html import inline, standalone
from memshift.report.markdown import Header, render
from memshift.report.where import report_command, report_hint
from memshift_tools.bench.simulated import KEY
from report.test_markdown import tables

FIGURES = ("update_stability", "changed_outcomes", "contrasts_by_class", "update_by_week")
PNG = b"\x89PNG\r\n\x1a\n not really an image"


class Tables(HTMLParser):
    """The text of every cell of every <table>, the <img> sources and the page's scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self.scripts = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(dict(attrs)["src"] or "")
        elif tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Each pipe table's rows of cells, with the Markdown of code spans and bold taken out."""
    found: list[list[list[str]]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            if not previous.startswith("|"):
                found.append([])
            cells = line.strip().strip("|").split("|")
            found[-1].append([c.strip().replace("`", "").replace("**", "") for c in cells])
        previous = line
    return found


def simulated_report(worlds: int) -> str:
    measure_table, contrast_table = tables(worlds)
    header = Header("test", "rules", "rules <backend> & co", list(range(worlds)), 100, 1)
    return render(header, measure_table.to_pylist(), contrast_table.to_pylist(), [], 0)


def page(text: str, tmp_path: Path) -> tuple[str, Tables]:
    (tmp_path / "figures").mkdir(exist_ok=True)
    for name in FIGURES:
        (tmp_path / "figures" / f"{name}.png").write_bytes(PNG)
    html = standalone(text, tmp_path)
    parsed = Tables()
    parsed.feed(html)
    return html, parsed


def test_every_markdown_table_is_an_html_table_with_the_same_cells(tmp_path: Path) -> None:
    text = simulated_report(5)
    _, parsed = page(text, tmp_path)
    expected = markdown_tables(text)
    assert len(expected) >= 5  # Update, Stability, premise tables, decomposition, contrasts
    assert parsed.tables == expected
    # the headline's table, the legend's, then Update
    assert [t[0][0] for t in parsed.tables[:3]] == ["shift", "name", "system"]
    update = parsed.tables[2]
    assert any(row[0] == KEY for row in update[1:])


def test_the_page_stands_alone_without_scripts(tmp_path: Path) -> None:
    html, parsed = page(simulated_report(2), tmp_path)
    assert parsed.scripts == 0
    expected = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
    assert parsed.images == [expected] * 4
    assert "Warning: 2 worlds, fewer than 5." in html  # the block quote kept
    assert "rules &lt;backend&gt; &amp; co" in html and "<backend>" not in html
    assert '<a href="#update">Update</a>' in html and '<h2 id="update">Update</h2>' in html


def test_inline_markdown() -> None:
    assert inline("**Worlds:** `a<b`") == "<strong>Worlds:</strong> <code>a&lt;b</code>"
    assert inline("_No contrasts here._") == "<em>No contrasts here.</em>"
    assert inline("an odd ` stays") == "an odd ` stays"


def test_the_hint_names_the_report_and_the_study_of_the_run(tmp_path: Path) -> None:
    runs = tmp_path / "results/smoke/runs/smoke/h9/rules"
    assert report_hint(runs, ["config/studies/smoke.yaml"]) is None  # no report yet
    (runs / "report").mkdir(parents=True)
    (runs / "report/report.md").write_text("# report\n")
    hint = report_hint(runs, ["config/studies/smoke.yaml"])
    assert hint is not None and f"{runs}/report/report.md" in hint
    assert f"{runs}/report/report.html" in hint
    assert hint.endswith(
        "snakemake --configfile config/studies/smoke.yaml --report smoke-report.html"
    )
    assert report_command([]) == "snakemake --report report.html"
    assert report_command(["my study.yaml"]) == (
        "snakemake --configfile 'my study.yaml' --report 'my study-report.html'"
    )


def test_the_report_command_keeps_the_runs_config_values() -> None:
    """A run given `--config results=...` reports that run, not the default one."""
    command = report_command([], {"results": "/data/my results", "llm": "qwen"})
    assert command == (
        "snakemake --config 'results=/data/my results' llm=qwen --report report.html"
    )
