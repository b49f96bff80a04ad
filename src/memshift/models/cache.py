"""A content-addressed response cache in append-only pack files, one pair per writing process.

The key is the sha256 of the canonical JSON of everything that can change a reply (backend,
model and revision, base URL, the full messages, the schema, every decoding parameter, extra body
fields and the request-format version). Failures are never stored.

Layout under the cache root:

    packs/<host>-<pid>-<tag>.pack    one JSON entry per line: {"key", "meta", "reply", "body"}
    packs/<host>-<pid>-<tag>.index   one line per entry: "<key> <offset> <length>"
    <abc>/<key>.json                 an entry in the first layout (one file per key), read only

A process appends to its own pair only, so no two writers share a file and nothing is locked:
safe for many Snakemake jobs at once and on a network file system, where creating and renaming
one small file per reply would cost more than the rest of a call. An entry's bytes are written
before its index line, so a process killed at any moment leaves at most a torn last line, which
readers skip; a reader takes in only whole index lines and checks every entry it reads (its key,
its JSON), so anything damaged is a miss and the call is made again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import threading
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from memshift.files import FILE_MODE

CACHE_FORMAT = "memshift-cache-1"
PACKS = "packs"
PACK_SUFFIX = ".pack"
INDEX_SUFFIX = ".index"
_KEY = re.compile(r"[0-9a-f]{64}")
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9.-]+")


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


class _Location(NamedTuple):
    pack: Path
    offset: int
    length: int


def _write_all(fd: int, data: bytes) -> None:
    left = memoryview(data)
    while left:  # a regular file takes it all at once, short of a full disk
        left = left[os.write(fd, left) :]


class _PackWriter:
    """This process's pack and index, opened on its first entry, appended to until closed."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        host = _NOT_IN_A_NAME.sub("-", socket.gethostname()) or "host"
        name = f"{host}-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.pid = os.getpid()
        self.pack = folder / f"{name}{PACK_SUFFIX}"
        self.index_name = f"{name}{INDEX_SUFFIX}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
        self._data = os.open(self.pack, flags, FILE_MODE)
        try:
            self._index = os.open(folder / self.index_name, flags, FILE_MODE)
        except BaseException:
            os.close(self._data)
            raise
        self._size = 0
        self.index_size = 0
        self._closer = weakref.finalize(self, _close_all, (self._data, self._index))

    def append(self, key: str, entry: bytes) -> _Location:
        at = _Location(self.pack, self._size, len(entry))
        _write_all(self._data, entry)
        self._size += len(entry)
        line = f"{key} {at.offset} {at.length}\n".encode()
        _write_all(self._index, line)
        self.index_size += len(line)
        return at

    def close(self) -> None:
        self._closer()


def _close_all(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _read(at: _Location) -> bytes | None:
    try:
        fd = os.open(at.pack, os.O_RDONLY)
        try:
            data = os.pread(fd, at.length, at.offset)
        finally:
            os.close(fd)
    except OSError:
        return None
    return data if len(data) == at.length else None


def _entry(raw: bytes | None, key: str) -> dict[str, Any] | None:
    """A stored entry, if `raw` is one whole entry for `key`."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("key") == key else None


class ResponseCache:
    """Lookups see every entry indexed when the cache was first read or last refreshed, and every
    entry this object wrote itself; `refresh` takes in what other processes have added since."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.packs = self.root / PACKS
        self._index: dict[str, _Location] = {}
        self._more: dict[str, list[_Location]] = {}  # a key stored twice (two racing jobs)
        self._consumed: dict[str, int] = {}  # index file name -> bytes of whole lines taken in
        self._loaded = False
        self._writer: _PackWriter | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._loaded

    def refresh(self) -> None:
        """Take in the index lines added since the last look, file by file in name order, so
        that every process resolves a key stored twice to the same entry."""
        try:
            names = sorted(n for n in os.listdir(self.packs) if n.endswith(INDEX_SUFFIX))
        except FileNotFoundError:
            names = []
        with self._lock:
            for name in names:
                self._take_in(name)
            self._loaded = True

    def _take_in(self, name: str) -> None:
        start = self._consumed.get(name, 0)
        try:
            with open(self.packs / name, "rb") as handle:
                handle.seek(start)
                tail = handle.read()
        except OSError:
            return
        whole = tail[: tail.rfind(b"\n") + 1]  # a line still being written waits for next time
        self._consumed[name] = start + len(whole)
        pack = self.packs / (name[: -len(INDEX_SUFFIX)] + PACK_SUFFIX)
        for line in whole.split(b"\n"):
            parts = line.split(b" ")
            # A line of another shape cannot come from a whole write; skip it (an entry it
            # named is checked on reading anyway).
            if len(parts) != 3 or len(parts[0]) != 64 or not parts[1].isdigit():
                continue
            if not parts[2].isdigit():
                continue
            self._remember(
                parts[0].decode("ascii", "replace"), _Location(pack, int(parts[1]), int(parts[2]))
            )

    def _remember(self, key: str, at: _Location) -> None:
        if key in self._index:
            self._more.setdefault(key, []).append(at)
        else:
            self._index[key] = at

    def legacy_path(self, key: str) -> Path:
        """Where the first layout kept an entry: one JSON file per key, sharded by 3 digits."""
        return self.root / key[:3] / f"{key}.json"

    def _stored(self, key: str) -> dict[str, Any] | None:
        if not self._loaded:
            self.refresh()
        first = self._index.get(key)
        if first is not None:
            for at in (first, *self._more.get(key, ())):
                data = _entry(_read(at), key)
                if data is not None:
                    return data
        try:
            return _entry(self.legacy_path(key).read_bytes(), key)
        except OSError:
            return None

    def get(self, key: str) -> CachedReply | None:
        data = self._stored(key)
        if data is None:
            return None
        try:
            reply = data["reply"]
            return CachedReply(
                reply["content"], reply["finish_reason"], reply["tokens_in"], reply["tokens_out"]
            )
        except (KeyError, TypeError):
            # A damaged entry is a miss: the call is made again and stored anew.
            return None

    def put(self, key: str, meta: dict[str, Any], body_json: str, reply: CachedReply) -> None:
        """Store a reply. The body arrives already serialized, as it went on the wire, so a
        write costs two appends and no second encoding of a long prompt."""
        head = canonical(
            {"key": key, "meta": {"format": CACHE_FORMAT, **meta}, "reply": reply.__dict__}
        )
        entry = f'{head[:-1]},"body":{body_json}}}\n'.encode()
        with self._lock:
            writer = self._writer
            if writer is None or writer.pid != os.getpid():  # a forked child opens its own
                writer = self._writer = _PackWriter(self.packs)
            try:
                at = writer.append(key, entry)
            except BaseException:
                # Whatever reached the files is a torn last line; the next entry starts a pair.
                writer.close()
                self._writer = None
                raise
            self._index[key] = at
            self._more.pop(key, None)
            self._consumed[writer.index_name] = writer.index_size  # known without reading back

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def stored_keys(self) -> set[str]:
        """Every key with an entry indexed (in either layout), as of now."""
        self.refresh()
        legacy = {p.stem for p in self.root.glob("???/*.json") if _KEY.fullmatch(p.stem)}
        return {k for k in self._index if _KEY.fullmatch(k)} | legacy

    def components(self, key: str) -> dict[str, Any] | None:
        """Everything the key was computed from: the metadata and the request body."""
        data = self._stored(key)
        if data is None or not isinstance(data.get("meta"), dict) or "body" not in data:
            return None
        return {**data["meta"], "body": data["body"]}


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
