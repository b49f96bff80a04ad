"""Writing a file atomically, with the permissions a plain `open()` would give it."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

# What open() asks for; the process's umask takes its bits away (0o644 under the usual 022,
# 0o664 under 002 for a group sharing a project directory).
FILE_MODE = 0o666
_ATTEMPTS = 100


def new_file_beside(path: Path) -> Path:
    """A new, empty, hidden file in `path`'s directory, created with FILE_MODE less the umask
    (tempfile.mkstemp would create it 0o600 whatever the umask)."""
    for _ in range(_ATTEMPTS):
        candidate = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            continue
        os.close(fd)
        return candidate
    raise FileExistsError(f"no free temporary name beside {path}")


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Let `write` fill a new file beside `path`, then rename it into place: a reader sees the
    old file or the whole new one, never part of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = new_file_beside(path)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
