"""A content-addressed response cache in append-only pack files, one pair per writing process.

The key is the sha256 of the canonical JSON of everything that can change a reply (backend,
model and revision, base URL, the full messages, the schema, every decoding parameter, extra body
fields and the request-format version). Failures are never stored.

Layout under the cache root:

    packs/<host>-<pid>-<tag>.pack    one JSON entry per line:
                                     {"sha256": <checksum>, "key", "meta", "reply", "body"}
    packs/<host>-<pid>-<tag>.index   one line per entry: "<key> <offset> <length>"
    <abc>/<key>.json                 an entry in the first layout (one file per key), read only

An entry's line starts with the sha256 of the bytes after that field, to the end of the line:
an entry whose bytes changed in any way (one character of the reply, a torn write, bytes that
are no UTF-8) fails its checksum and is a miss, as is an entry without one (written by an
earlier version). The caller then makes the call again and stores a healed entry, which every
process finds after the damaged one: `entries` yields every intact copy of a key in a fixed
order, so a copy the caller no longer accepts (one that fails validation) is passed over too.

A process appends to its own pair only, so no two writers share a file and nothing is locked:
safe for many Snakemake jobs at once and on a network file system, where creating and renaming
one small file per reply would cost more than the rest of a call. An entry's bytes are written
before its index line, so a process killed at any moment leaves at most a torn last line, which
readers skip; a reader takes in only whole index lines, skips any of a length no pack can hold,
and checks every entry it reads (its checksum, its key, its JSON).
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from memshift import layout
from memshift.files import FILE_MODE

CACHE_FORMAT = "memshift-cache-1"
PACKS = "packs"
PACK_SUFFIX = ".pack"
INDEX_SUFFIX = ".index"
_KEY = re.compile(r"[0-9a-f]{64}")
_CHECKSUM = re.compile(rb'\{"sha256":"([0-9a-f]{64})",')
_CHECKSUM_END = len(b'{"sha256":"') + 64 + len(b'",')
# No entry is larger (a reply is limited by max_reply_bytes, a prompt by the context window);
# a longer length in an index line is damage, refused before any buffer is allocated for it.
MAX_ENTRY_BYTES = 2**31
_MAX_DIGITS = 15  # an offset of more digits (a petabyte) is no offset in a pack
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9.-]+")


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def wire(data: Any) -> str:
    """A request body as it goes to the server: compact, its keys in the order they were built,
    since the order of a schema's properties is the order a server decoding under it writes them
    (a model asked for `current_value` before the `premise` it belongs to writes worse premises)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def cache_key(meta: dict[str, Any], body_json: str) -> str:
    """The key of a request: its metadata (backend, model, revision, base URL, prompt version)
    and the JSON of the exact body sent, keys in their order (`wire`)."""
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
            if at.offset + at.length > os.fstat(fd).st_size:
                return None
            data = os.pread(fd, at.length, at.offset)
        finally:
            os.close(fd)
    except OSError:
        return None
    return data if len(data) == at.length else None


def sealed(entry: bytes) -> bytes:
    """An entry line (a JSON object, without its newline) with its checksum in front."""
    rest = entry[1:]
    return b'{"sha256":"' + hashlib.sha256(rest).hexdigest().encode() + b'",' + rest + b"\n"


def _unsealed(raw: bytes | None) -> bytes | None:
    """The JSON of an entry line whose checksum holds, else None."""
    if raw is None or not raw.endswith(b"\n"):
        return None
    found = _CHECKSUM.match(raw)
    rest = raw[_CHECKSUM_END:-1]
    if found is None or hashlib.sha256(rest).hexdigest().encode() != found.group(1):
        return None
    return raw[:-1]


def _entry(raw: bytes | None, key: str) -> dict[str, Any] | None:
    """A stored entry, if `raw` is one whole JSON entry for `key`."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and data.get("key") == key else None


def _reply(data: dict[str, Any]) -> CachedReply | None:
    """The reply of an entry, if its fields have the types a reply has."""
    reply = data.get("reply")
    if not isinstance(reply, dict):
        return None
    content, finish = reply.get("content"), reply.get("finish_reason")
    tokens = reply.get("tokens_in"), reply.get("tokens_out")
    if not isinstance(content, str) or not isinstance(finish, str):
        return None
    if not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in tokens):
        return None
    return CachedReply(content, finish, tokens[0], tokens[1])


def _location(pack: Path, parts: list[bytes]) -> _Location | None:
    """Where an index line says an entry is, if it is a line of the right shape and length."""
    if len(parts) != 3 or len(parts[0]) != 64:
        return None
    if not all(p.isdigit() and len(p) <= _MAX_DIGITS for p in parts[1:]):
        return None
    length = int(parts[2])
    return _Location(pack, int(parts[1]), length) if 0 < length <= MAX_ENTRY_BYTES else None


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
            at = _location(pack, parts)
            if at is not None:
                self._remember(parts[0].decode("ascii", "replace"), at)

    def _remember(self, key: str, at: _Location) -> None:
        if key in self._index:
            self._more.setdefault(key, []).append(at)
        else:
            self._index[key] = at

    def legacy_path(self, key: str) -> Path:
        """Where the first layout kept an entry: one JSON file per key, sharded by 3 digits."""
        return layout.cache_entry(self.root, key)

    def _copies(self, key: str) -> Iterator[dict[str, Any]]:
        """Every intact entry stored for `key`: in packs, in index order, then the first layout
        (which carries no checksum: its entries are checked for their key and JSON only)."""
        if not self._loaded:
            self.refresh()
        first = self._index.get(key)
        if first is not None:
            for at in (first, *self._more.get(key, ())):
                data = _entry(_unsealed(_read(at)), key)
                if data is not None:
                    yield data
        try:
            legacy = self.legacy_path(key).read_bytes()
        except OSError:
            return
        data = _entry(legacy, key)
        if data is not None:
            yield data

    def entries(self, key: str) -> Iterator[CachedReply]:
        """Every intact reply stored for `key`, the one every process serves first. A caller that
        finds the first one no longer valid takes the next; it stores a healed copy if none is."""
        for data in self._copies(key):
            reply = _reply(data)
            if reply is not None:
                yield reply

    def get(self, key: str) -> CachedReply | None:
        return next(self.entries(key), None)

    def put(self, key: str, meta: dict[str, Any], body_json: str, reply: CachedReply) -> None:
        """Store a reply. The body arrives already serialized, as it went on the wire, so a
        write costs two appends and no second encoding of a long prompt."""
        head = canonical(
            {"key": key, "meta": {"format": CACHE_FORMAT, **meta}, "reply": reply.__dict__}
        )
        entry = sealed(f'{head[:-1]},"body":{body_json}}}'.encode())
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
        data = next(self._copies(key), None)
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
