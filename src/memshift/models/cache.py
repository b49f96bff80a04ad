"""A content-addressed response cache: one small JSON file per key, written atomically.

The key is the sha256 of the canonical JSON of everything that can change a reply (backend,
model and revision, base URL, the full messages, the schema, every decoding parameter, extra body
fields and the request-format version). Files are sharded by the first three hex digits. Writers
never lock: a rename is atomic on POSIX and on NFS within a directory, and two jobs that race on
one key write the same content. Failures are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_FORMAT = "memshift-cache-1"


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(meta: dict[str, Any], body_json: str) -> str:
    """The key of a request: its metadata (backend, model, revision, base URL, prompt version)
    and the canonical JSON of the exact body sent."""
    head = canonical({"format": CACHE_FORMAT, **meta})
    return hashlib.sha256(f"{head}\n{body_json}".encode()).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    content: str
    finish_reason: str
    tokens_in: int
    tokens_out: int


class ResponseCache:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._made: set[Path] = set()

    def path(self, key: str) -> Path:
        return self.root / key[:3] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            reply = data["reply"]
            return CachedReply(
                reply["content"], reply["finish_reason"], reply["tokens_in"], reply["tokens_out"]
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            # An unreadable entry is a miss: the call is made again and the entry rewritten.
            return None

    def put(self, key: str, meta: dict[str, Any], body_json: str, reply: CachedReply) -> None:
        """Store a reply. The body arrives already serialized, as it went on the wire, so a
        write costs one small file and no second encoding of a long prompt."""
        target = self.path(key)
        if target.parent not in self._made:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(target.parent)
        head = canonical(
            {"key": key, "meta": {"format": CACHE_FORMAT, **meta}, "reply": reply.__dict__}
        )
        payload = f'{head[:-1]},"body":{body_json}}}'.encode()
        # One temporary name per process and thread (no random names to draw: on a virtual
        # disk each write costs a few file-system calls, and a study writes thousands).
        tmp = target.parent / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                left = memoryview(payload)
                while left:  # a regular file takes it all at once, short of a full disk
                    left = left[os.write(fd, left) :]
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def components(self, key: str) -> dict[str, Any] | None:
        """Everything the key was computed from: the metadata and the request body."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            return {**data["meta"], "body": data["body"]}
        except (OSError, ValueError, KeyError):
            return None


def explain(a: dict[str, Any], b: dict[str, Any] | None = None) -> list[str]:
    """The components of a key, one per line; with a second key, only the fields that differ."""

    def flat(data: Any, prefix: str = "") -> dict[str, str]:
        if isinstance(data, dict):
            out: dict[str, str] = {}
            for k, v in data.items():
                out.update(flat(v, f"{prefix}.{k}" if prefix else str(k)))
            return out
        if isinstance(data, list) and prefix.endswith("messages"):
            out = {}
            for i, v in enumerate(data):
                out.update(flat(v, f"{prefix}[{i}]"))
            return out
        return {prefix: canonical(data)}

    left = flat(a)
    if b is None:
        return [f"{k} = {_short(v)}" for k, v in sorted(left.items())]
    right = flat(b)
    return [
        f"{k}: {_short(left.get(k, '(absent)'))} != {_short(right.get(k, '(absent)'))}"
        for k in sorted(set(left) | set(right))
        if left.get(k) != right.get(k)
    ]


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"
