"""The readable report as one standalone HTML page: report.md with real tables and its figures
embedded, so that it reads the same in a browser, in a mail attachment and inside Snakemake's
HTML report (which shows an HTML result in a frame of its own, without the files beside it).

Only the Markdown that `memshift.report.markdown` writes is understood: headings, paragraphs,
bullet lists, one-line block quotes, pipe tables, images on a line of their own, and inline
`code`, **bold** and _italic_ (a whole paragraph or cell).
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933;
       max-width: 90rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2.2rem;
     border-bottom: 1px solid #d5dbe1; } h3 { font-size: 1.05rem; margin-top: 1.5rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.86rem; }
th, td { border: 1px solid #d5dbe1; padding: 0.25rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: #eef2f6; } tbody tr:nth-child(even) { background: #f8fafc; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td:first-child { white-space: nowrap; } div.table { overflow-x: auto; }
code { background: #eef2f6; padding: 0 0.2rem; border-radius: 3px; }
blockquote { border-left: 4px solid #d97706; background: #fff7ed; margin: 1rem 0;
             padding: 0.5rem 1rem; }
img { max-width: 100%; } nav ol { columns: 2; }
"""

HEADING = re.compile(r"^(#{1,3}) (.*)$")
IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)$")
# a cell that holds a number first: "38.2 [31.5, 43.6]", "+7.5 pp", "1,234", "—"
NUMBER = re.compile(r"^([+−-]?\d[\d,.]*|—)( |$)")


@dataclass(frozen=True)
class Block:
    kind: str  # heading, table, list, quote, image, paragraph
    lines: Sequence[str]


def inline(text: str) -> str:
    """Escaped HTML of one line's text, with its code spans, bold and italic."""
    parts = text.split("`")
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 1 and index < len(parts) - 1:
            out.append(f"<code>{html.escape(part)}</code>")
            continue
        escaped = html.escape(part if index % 2 == 0 else "`" + part)
        escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
        out.append(escaped)
    joined = "".join(out)
    if len(joined) > 2 and joined.startswith("_") and joined.endswith("_"):
        return f"<em>{joined[1:-1]}</em>"
    return joined


def kind_of(line: str) -> str:
    if HEADING.match(line):
        return "heading"
    if IMAGE.match(line):
        return "image"
    if line.startswith("|"):
        return "table"
    if line.startswith("- "):
        return "list"
    if line.startswith("> "):
        return "quote"
    return "paragraph"


def blocks(markdown: str) -> Iterator[Block]:
    """Runs of lines of one kind, split at blank lines; a heading or image is a block alone."""
    current: list[str] = []
    current_kind = ""
    for line in [*markdown.splitlines(), ""]:
        kind = kind_of(line) if line.strip() else ""
        alone = kind in ("heading", "image")
        if current and (kind != current_kind or alone):
            yield Block(current_kind, current)
            current = []
        if kind:
            current.append(line)
            current_kind = kind


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def table_html(lines: Sequence[str]) -> str:
    header, body = cells(lines[0]), [cells(line) for line in lines[2:]]
    head = "".join(f"<th>{inline(cell)}</th>" for cell in header)

    def cell_html(cell: str) -> str:
        number = ' class="number"' if NUMBER.match(cell) else ""
        return f"<td{number}>{inline(cell)}</td>"

    rows = "\n".join("<tr>" + "".join(cell_html(c) for c in row) + "</tr>" for row in body)
    return (
        f'<div class="table"><table>\n<thead><tr>{head}</tr></thead>\n'
        f"<tbody>\n{rows}\n</tbody>\n</table></div>"
    )


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def image_html(line: str, base: Path) -> str:
    """The figure embedded as a data URI, since a frame of Snakemake's report sees no files."""
    match = IMAGE.match(line)
    assert match is not None
    alt, source = match.groups()
    data = base64.b64encode((base / source).read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(alt)}</figcaption></figure>"
    )


def block_html(block: Block, base: Path) -> str:
    if block.kind == "heading":
        match = HEADING.match(block.lines[0])
        assert match is not None
        level, text = len(match.group(1)), match.group(2)
        anchor = f' id="{slug(text)}"' if is_section(block) else ""  # the contents link sections
        return f"<h{level}{anchor}>{inline(text)}</h{level}>"
    if block.kind == "table":
        return table_html(block.lines)
    if block.kind == "list":
        items = "".join(f"<li>{inline(line[2:])}</li>" for line in block.lines)
        return f"<ul>{items}</ul>"
    if block.kind == "quote":
        return f"<blockquote>{inline(' '.join(line[2:] for line in block.lines))}</blockquote>"
    if block.kind == "image":
        return image_html(block.lines[0], base)
    return f"<p>{inline(' '.join(block.lines))}</p>"


def is_section(block: Block) -> bool:
    return block.kind == "heading" and block.lines[0].startswith("## ")


def contents(parsed: Sequence[Block]) -> str:
    """Links to the second-level sections, after the report's opening."""
    titles = [b.lines[0][3:] for b in parsed if is_section(b)]
    links = "".join(f'<li><a href="#{slug(t)}">{inline(t)}</a></li>' for t in titles)
    return f"<nav><h2>Contents</h2><ol>{links}</ol></nav>"


def without_contents(parsed: list[Block]) -> list[Block]:
    """The Markdown's own contents list left out: the page has its `contents` navigation."""
    for at, block in enumerate(parsed):
        if is_section(block) and block.lines[0] == "## Contents":
            end = at + 1 + (at + 1 < len(parsed) and parsed[at + 1].kind == "list")
            return parsed[:at] + parsed[end:]
    return parsed


def standalone(markdown: str, base: Path) -> str:
    """The HTML page of a report's Markdown; figures are read relative to `base`."""
    parsed = without_contents(list(blocks(markdown)))
    title = HEADING.match(parsed[0].lines[0]) if parsed and parsed[0].kind == "heading" else None
    body = [block_html(b, base) for b in parsed]
    opening = next((i for i, b in enumerate(parsed) if is_section(b)), len(body))
    body.insert(opening, contents(parsed))
    name = html.escape(title.group(2).replace("`", "")) if title else "memshift report"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{name}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )
