"""Object ids a memory can see: opaque, stable across branches, and silent about the generator.

A component names its objects internally (`card-3`, `dm-0042`, a shift's `src-0001`); the id a
record carries is a keyed hash of that name under the world's id salt, behind the prefix of its
source. The same name gives the same id in every branch of a world, and nothing in the id says
which component wrote the record or whether an item depends on it.
"""

from __future__ import annotations

import hashlib

SOURCE_PREFIXES = {
    "email": "em",
    "chat": "ch",
    "calendar": "cal",
    "contacts": "ct",
    "tasks": "tk",
    "notes": "nt",
}
DIGEST_CHARS = 12


def opaque_id(salt: str, name: str, prefix: str) -> str:
    digest = hashlib.sha256(f"memshift-object|{salt}|{name}".encode()).hexdigest()
    return f"{prefix}-{digest[:DIGEST_CHARS]}"
