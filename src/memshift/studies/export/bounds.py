"""What a bundle directory holds, looked at before anything opens a file in it.

The format's reference package opens and reads whatever a bundle's paths name: a FIFO blocks it
forever, a link to /dev/zero or a sparse file of a gigabyte is read until memory runs out. So a
bundle is first surveyed without opening any file (the entries are listed and `lstat`ed, links
are not followed): only directories and regular files are allowed, no symbolic link, every file
within MAX_FILE_BYTES, all files together within MAX_BUNDLE_BYTES, at most MAX_ENTRIES files and
directories and MAX_DEPTH directories deep. A bundle past any bound is refused before the
package reads a byte of it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 32 << 20
MAX_BUNDLE_BYTES = 64 << 20
MAX_ENTRIES = 1_000
MAX_DEPTH = 4  # items/episode.jsonl is one directory deep
# A directory of millions of entries is listed only this far; the count says "at least".
MAX_LISTED = 100_000
SHOWN = 3  # names given in a message about many entries

_NOT_REGULAR = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def printable(text: str) -> str:
    """`text` with every character a terminal or a log line cannot show (a newline, a byte of a
    file name that is no UTF-8) written as its escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def named(names: list[str], count: int | None = None) -> str:
    """The first SHOWN of `names` (sorted) and how many more there are of `count`."""
    count = len(names) if count is None else count
    shown = ", ".join(printable(n) for n in sorted(names)[:SHOWN])
    return shown if count <= SHOWN else f"{shown} and {count - SHOWN:,} more"


@dataclass
class Survey:
    """What a bundle directory holds: its regular files' total size and every problem found."""

    issues: list[str] = field(default_factory=list)
    bytes: int = 0


def survey(bundle: Path) -> Survey:
    """The bundle's entries, listed and looked at without opening any; `issues` is empty when
    every entry is a directory or a regular file and every bound holds."""
    entries, found = _entries(Path(bundle))
    if len(entries) > MAX_ENTRIES:
        count = f"{len(entries):,}" if len(entries) <= MAX_LISTED else f"over {MAX_LISTED:,}"
        found.issues.append(
            f"{count} files and directories, more than the {MAX_ENTRIES:,} a bundle may hold "
            f"({_fullest([name for name, _ in entries])})"
        )
        return found
    for name, info in sorted(entries, key=lambda entry: entry[0]):
        found.issues += _entry_problems(name, info)
        if stat.S_ISREG(info.st_mode):
            found.bytes += info.st_size
    if found.bytes > MAX_BUNDLE_BYTES:
        found.issues.append(
            f"files of {found.bytes:,} bytes in all, more than the {MAX_BUNDLE_BYTES:,} "
            "a bundle may hold"
        )
    return found


def _fullest(names: list[str]) -> str:
    """The directory holding most of `names`, how many, and the first of them."""
    by_parent: dict[str, list[str]] = {}
    for name in names:
        by_parent.setdefault(name.rpartition("/")[0], []).append(name)
    parent, held = max(by_parent.items(), key=lambda pair: (len(pair[1]), pair[0]))
    where = f"{printable(parent)}/" if parent else "the bundle's top directory"
    return f"{len(held):,} in {where}: {named(held)}"


def _entry_problems(name: str, info: os.stat_result) -> list[str]:
    mode = info.st_mode
    for test, kind in _NOT_REGULAR:
        if test(mode):
            return [f"{kind}, not a regular file: {printable(name)}"]
    if stat.S_ISDIR(mode):
        if name.count("/") >= MAX_DEPTH:
            return [f"directories nested more than {MAX_DEPTH} deep: {printable(name)}"]
        return []
    if not stat.S_ISREG(mode):
        return [f"not a regular file: {printable(name)}"]
    if info.st_size > MAX_FILE_BYTES:
        return [
            f"a file of more than {MAX_FILE_BYTES:,} bytes: {printable(name)} "
            f"({info.st_size:,} bytes)"
        ]
    return []


def _entries(root: Path) -> tuple[list[tuple[str, os.stat_result]], Survey]:
    """(path under the root, lstat) of every entry, at most MAX_LISTED + 1 of them, and a survey
    naming each directory that could not be listed; links and directories deeper than
    MAX_DEPTH are not entered."""
    found: list[tuple[str, os.stat_result]] = []
    unlisted = Survey()
    pending = [("", root)]
    while pending and len(found) <= MAX_LISTED:
        prefix, directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    name = prefix + entry.name
                    info = entry.stat(follow_symlinks=False)
                    found.append((name, info))
                    if stat.S_ISDIR(info.st_mode) and name.count("/") < MAX_DEPTH:
                        pending.append((name + "/", Path(entry.path)))
                    if len(found) > MAX_LISTED:
                        break
        except OSError as exc:
            where = printable(prefix.rstrip("/") or str(root))
            unlisted.issues.append(f"cannot be listed: {where} ({exc.strerror or exc})")
    return found, unlisted
