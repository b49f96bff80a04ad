"""The generated parts of a Markdown page: blocks between marker lines, and values marked inside
a block's lines (`memshift docs-tables`, docs/report.md, Numbers in the documentation).

    <!-- generated: KIND key=value ... -->
    ...lines rendered from the source the options name...
    <!-- end generated -->

Inside a block, a value is marked where it stands in its line:
`<!-- value: KEY WORDS -->74.4<!-- /value -->`."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memshift.errors import MemshiftError

START = re.compile(r"^<!-- generated: (?P<spec>.*?) -->$")
END = "<!-- end generated -->"
VALUE = re.compile(r"<!-- value: (?P<key>.*?) -->(?P<text>.*?)<!-- /value -->")
VALUE_OPENING = "<!-- value:"
FENCE = "```"


@dataclass(frozen=True)
class Block:
    page: str  # the page's name in messages
    kind: str
    options: Mapping[str, str]
    start: int  # the opening marker's line, counted from 0
    body: tuple[str, ...]  # the lines between the markers

    def where(self, offset: int = 0) -> str:
        """The page and line (counted from 1) of the block's opening marker, or of its body's
        line `offset` (counted from 1 as well)."""
        return f"{self.page}:{self.start + 1 + offset}"

    def label(self) -> str:
        options = " ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.kind} block ({options})" if options else f"{self.kind} block"


@dataclass(frozen=True)
class Value:
    key: tuple[str, ...]  # the marker's words
    text: str  # what the page shows
    line: int  # in the block's body, counted from 1


def _spec(text: str, where: str) -> tuple[str, dict[str, str]]:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise MemshiftError(f"{where}: unreadable block marker: {exc}") from None
    if not words:
        raise MemshiftError(f"{where}: a block marker names no kind")
    options = {}
    for word in words[1:]:
        name, is_option, value = word.partition("=")
        if not is_option or not name:
            raise MemshiftError(f"{where}: block option {word!r} is not NAME=VALUE")
        options[name] = value
    return words[0], options


def blocks(text: str, page: str) -> list[Block]:
    """Every marked block of a page, in order; a marker without its end, or an end without its
    marker, is an error naming its line. A marker inside a fenced code block is an example, not
    a block."""
    found: list[Block] = []
    opened: tuple[int, str, dict[str, str]] | None = None
    body: list[str] = []
    fenced = False
    for number, line in enumerate(text.splitlines()):
        if line.lstrip().startswith(FENCE):
            fenced = not fenced
        start = None if fenced else START.match(line)
        if start is not None:
            if opened is not None:
                raise MemshiftError(f"{page}:{opened[0] + 1}: block has no {END!r} before the next")
            opened = (number, *_spec(start["spec"], f"{page}:{number + 1}"))
            body = []
        elif line == END and not fenced:
            if opened is None:
                raise MemshiftError(f"{page}:{number + 1}: {END!r} without a block before it")
            found.append(Block(page, opened[1], opened[2], opened[0], tuple(body)))
            opened = None
        elif opened is not None:
            body.append(line)
    if opened is not None:
        raise MemshiftError(f"{page}:{opened[0] + 1}: block has no {END!r}")
    return found


def values(block: Block) -> list[Value]:
    """The values marked in a block's lines. A line that begins with a value's marker is an
    error: Markdown reads a line that opens with `<!--` as raw HTML, not as text."""
    found = []
    for number, line in enumerate(block.body, start=1):
        if line.lstrip().startswith(VALUE_OPENING):
            raise MemshiftError(
                f"{block.where(number)}: a value marker begins the line, which Markdown then "
                "shows as raw HTML; put a word before it"
            )
        for match in VALUE.finditer(line):
            try:
                key = tuple(shlex.split(match["key"]))
            except ValueError as exc:
                raise MemshiftError(
                    f"{block.where(number)}: unreadable value marker: {exc}"
                ) from None
            found.append(Value(key, match["text"], number))
        if line.count(VALUE_OPENING) != len(VALUE.findall(line)):
            raise MemshiftError(
                f"{block.where(number)}: a value marker without its <!-- /value -->"
            )
    return found


def with_values(body: Sequence[str], texts: Sequence[str]) -> tuple[str, ...]:
    """The body with its marked values' texts replaced by `texts`, in the order `values`
    finds them."""
    remaining = iter(texts)

    def replaced(match: re.Match[str]) -> str:
        return f"<!-- value: {match['key']} -->{next(remaining)}<!-- /value -->"

    return tuple(VALUE.sub(replaced, line) for line in body)


def rewritten(text: str, bodies: Mapping[int, Sequence[str]]) -> str:
    """The page with the body of the block whose opening marker is at each line of `bodies`
    replaced (the markers kept)."""
    lines = text.splitlines()
    out: list[str] = []
    skipping = False
    for number, line in enumerate(lines):
        if skipping:
            if line != END:
                continue
            skipping = False
        out.append(line)
        if number in bodies:
            out.extend(bodies[number])
            skipping = True
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
