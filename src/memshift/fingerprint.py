"""Code fingerprints: a hash of the package modules a stage imports, directly or not.

Snakemake does not see edits to imported modules. Each rule passes the fingerprint of its stage as
a parameter, so an edit in `src/` reruns exactly the stages whose code it touches.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

PACKAGE = "memshift"
ROOT = Path(__file__).resolve().parent


def _module_file(name: str) -> Path | None:
    """The source file of a package module, or None for a name that is not one (an attribute)."""
    parts = name.split(".")[1:]
    if not parts:
        return ROOT / "__init__.py"
    for candidate in (
        ROOT.joinpath(*parts, "__init__.py"),
        ROOT.joinpath(*parts[:-1], parts[-1] + ".py"),
    ):
        if candidate.is_file():
            return candidate
    return None


def _imports(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


@cache
def closure(entry: str) -> tuple[str, ...]:
    """Every package module reachable by imports from `entry`, sorted."""
    seen: dict[str, Path] = {}
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name)
        if path is None:
            continue
        seen[name] = path
        todo.extend(_imports(name, path) - set(seen))
        parent = name.rpartition(".")[0]
        if parent and parent not in seen:
            todo.append(parent)
    return tuple(sorted(seen))


# Folders of data a package's modules read at run time (e.g. the analysis SQL); they count as
# code of every module of that package.
DATA_FOLDERS = ("sql",)


def _data_files(path: Path) -> list[Path]:
    return sorted(
        f for folder in DATA_FOLDERS for f in (path.parent / folder).glob("*") if f.is_file()
    )


# Code that runs only for the auditor role (the `audit` detection): imported by every memory
# stage, but a change to it should rerun only the audit cells.
AUDIT_ONLY = ("memshift.audit", "memshift.models.rules.auditor")


def code_fingerprint(*entries: str, without: tuple[str, ...] = ()) -> str:
    """The hash of the modules (and their data files) that `entries` import, leaving out the
    modules named in `without` and their submodules."""
    digest = hashlib.sha256()
    modules = sorted(
        m
        for m in {m for entry in entries for m in closure(entry)}
        if not any(m == w or m.startswith(w + ".") for w in without)
    )
    for name in modules:
        path = _module_file(name)
        assert path is not None
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        for data in _data_files(path):
            digest.update(data.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(data.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
