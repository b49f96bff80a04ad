"""Code fingerprints: a hash of the package modules a job runs.

Snakemake does not see edits to imported modules. Each rule passes the fingerprint of its job as a
parameter, so an edit in `src/` reruns exactly the jobs whose code it touches. A job's code is its
stage's import closure plus the registry entries it loads (`registry.py`): its system, its
detection's step, its model backend and, for the simulator, the roles it calls. Imports under
`if TYPE_CHECKING:` never run and do not count.

The registry's own file counts entry by entry. What every job shares of it (its code, and the
names and labels the vocabulary reads from its tables) counts in every job that imports it; the
`module:attribute` an entry points to counts only in the jobs that load that entry. Pointing an
entry elsewhere reruns that entry's jobs alone; adding, removing or renaming one changes the
names every job is checked against, and reruns them all.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

from memshift.registry import (
    BACKENDS,
    DETECTION_STEPS,
    NATIVE_SYSTEMS,
    PROMPTS,
    SHIFTS,
    SIMULATED_ROLES,
    SYSTEMS,
    load,
    module_of,
)

PACKAGE = "memshift"
ROOT = Path(__file__).resolve().parent.parent
REGISTRY = f"{PACKAGE}.registry"
# a lazy registry entry: `module:attribute`
_ENTRY = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


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


def _run_time_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under `node`, leaving out the bodies of `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for other in child.orelse:
                yield from _run_time_imports(ast.Module(body=[other], type_ignores=[]))
        elif isinstance(child, ast.stmt | ast.ExceptHandler | ast.match_case):
            yield from _run_time_imports(child)


class ImportMemo:
    """What each module's source imports, kept on disk between runs under the digest of the
    module's name and source: parsing the package's sources was most of the time the Snakefile
    took to read. An entry is found only for the very source it was parsed from, so an edit is
    parsed again; a memo file that cannot be read, or holds anything but entries, is ignored."""

    VERSION = 1
    MAX_BYTES = 16 * 1024 * 1024  # the package's memo is ~50 KB

    def __init__(self) -> None:
        self.entries: dict[str, frozenset[str]] = {}
        self.used: set[str] = set()
        self.added = False

    @staticmethod
    def key(name: str, is_package: bool, source: str) -> str:
        return hashlib.sha256(f"{name}\0{is_package}\0{source}".encode()).hexdigest()

    def imports(self, name: str, is_package: bool, source: str) -> frozenset[str]:
        key = self.key(name, is_package, source)
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = _imports_of(name, is_package, source)
            self.added = True
        self.used.add(key)
        return found

    def load(self, path: Path) -> None:
        try:
            if path.stat().st_size > self.MAX_BYTES:
                return
            data = json.loads(path.read_bytes())
        except (OSError, ValueError, RecursionError):
            return
        if not isinstance(data, dict) or data.get("version") != self.VERSION:
            return
        entries = data.get("entries")
        for key, names in entries.items() if isinstance(entries, dict) else ():
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                self.entries.setdefault(key, frozenset(names))

    def save(self, path: Path) -> None:
        """Write the entries this process used, if it parsed any source; a memo that cannot be
        written only costs the next run the parsing."""
        if not self.added:
            return
        data = {
            "version": self.VERSION,
            "entries": {k: sorted(self.entries[k]) for k in sorted(self.used)},
        }
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps(data), encoding="utf-8")
            os.replace(partial, path)
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)


MEMO = ImportMemo()


def remember_imports(path: Path) -> None:
    """Read the memo of `ImportMemo` from `path` (the Snakefile's first step)."""
    MEMO.load(path)


def save_remembered_imports(path: Path) -> None:
    """Write the memo to `path` when this process parsed a source it did not hold."""
    MEMO.save(path)


def _imports(name: str, path: Path) -> frozenset[str]:
    return MEMO.imports(name, path.name == "__init__.py", path.read_text(encoding="utf-8"))


def _imports_of(name: str, is_package: bool, source: str) -> frozenset[str]:
    """The package modules a module's source imports at run time (`ImportMemo` keeps them)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _run_time_imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(m for m in found if m == PACKAGE or m.startswith(PACKAGE + "."))


@cache
def _module_imports(name: str) -> frozenset[str] | None:
    """What a package module imports, or None for a name that is not a module: each module's
    file is found and read once per process, not once per closure that reaches it (a study's
    Snakefile computes some thirty closures over the same modules)."""
    path = _module_file(name)
    return None if path is None else _imports(name, path)


@cache
def closure(entry: str) -> tuple[str, ...]:
    """Every package module reachable by imports from `entry`, sorted."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        imported = _module_imports(name)
        if imported is None:
            continue
        seen.add(name)
        todo.extend(imported - seen)
        parent = name.rpartition(".")[0]
        if parent and parent not in seen:
            todo.append(parent)
    return tuple(sorted(seen))


def forget() -> None:
    """Drop what this process has worked out about the package's modules, for a caller that
    changes their sources or `ROOT` and computes closures again."""
    closure.cache_clear()
    _module_imports.cache_clear()
    _registry_parts.cache_clear()


def registered(table: str, name: str) -> str:
    """The pseudo-module that stands for one registry entry in a job's modules: `table` is the
    registry's variable (`SYSTEMS`, `SHIFTS`...), `name` the entry's key."""
    return f"{REGISTRY}:{table}:{name}"


@cache
def _registry_parts() -> tuple[bytes, dict[tuple[str, str], tuple[str, ...]]]:
    """The registry's source with every entry's `module:attribute` blanked (what every job that
    imports it shares), and each entry's `module:attribute` strings by (table, key)."""
    tree = ast.parse((ROOT / "registry.py").read_text(encoding="utf-8"))
    entries: dict[tuple[str, str], tuple[str, ...]] = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if not isinstance(target, ast.Name) or not isinstance(node.value, ast.Dict):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                continue
            found = [
                c
                for c in ast.walk(value)
                if isinstance(c, ast.Constant)
                and isinstance(c.value, str)
                and _ENTRY.fullmatch(c.value)
            ]
            entries[(target.id, key.value)] = tuple(c.value for c in found)
            for constant in found:
                constant.value = ""
    return ast.unparse(tree).encode(), entries


# Folders of data a package's modules read at run time (e.g. the analysis SQL); they count as
# code of every module of that package.
DATA_FOLDERS = ("sql",)


def _data_files(path: Path) -> list[Path]:
    return sorted(
        f for folder in DATA_FOLDERS for f in (path.parent / folder).glob("*") if f.is_file()
    )


def job_modules(
    stage: str,
    *,
    backend: str | None = None,
    roles: tuple[str, ...] = (),
    system: str | None = None,
    detection: str | None = None,
    shifts: Sequence[str] = (),
    loaded: Sequence[str] = (),
) -> tuple[str, ...]:
    """The package modules a job of `stage` runs: the stage's closure and those of the registry
    entries it loads. `stage` is a module of `memshift.stages` by its name, or any module by its
    full name (a side study's stage, `memshift.studies.*`). `system` is a built-in system's or a
    native library's registry name; `backend` the model profile's backend, whose simulated `roles`
    count when it is the simulator; `shifts` the branches whose builders the job runs (a shift's
    module is loaded by name, so no import brings it into the stage's closure); `loaded` other
    modules the job loads by name (the report's sections)."""
    uses: list[tuple[str, str, str]] = []  # (table, key, entry) of each registry entry loaded
    if backend is not None and roles:
        uses.append(("BACKENDS", backend, BACKENDS[backend]))
        uses += [("PROMPTS", role, PROMPTS[role]) for role in roles]
        if getattr(load(BACKENDS[backend]), "direct", False):
            uses += [("SIMULATED_ROLES", role, SIMULATED_ROLES[role]) for role in roles]
    if system is not None:
        table = "SYSTEMS" if system in SYSTEMS else "NATIVE_SYSTEMS"
        uses.append((table, system, SYSTEMS.get(system) or NATIVE_SYSTEMS[system]))
    if detection in DETECTION_STEPS:
        uses.append(("DETECTION_STEPS", detection, DETECTION_STEPS[detection]))
    uses += [("SHIFTS", s, SHIFTS[s].builder) for s in shifts if s in SHIFTS]
    stage_module = stage if stage.startswith(f"{PACKAGE}.") else f"{PACKAGE}.stages.{stage}"
    if _module_file(stage_module) is None:
        raise ValueError(f"no stage module {stage_module}: a job's code would be nothing")
    entries = [stage_module, *(module_of(e) for *_, e in uses), *loaded]
    modules = {m for entry in entries for m in closure(entry)}
    return tuple(sorted(modules | {registered(table, key) for table, key, _ in uses}))


def code_fingerprint(*entries: str) -> str:
    """The hash of the modules (and their data files) that `entries` import."""
    return modules_fingerprint(sorted({m for entry in entries for m in closure(entry)}))


def modules_fingerprint(modules: Sequence[str]) -> str:
    """The hash of `modules` (package modules and `registered` entries) and their data files."""
    digest = hashlib.sha256()
    for name in modules:
        if name == REGISTRY or name.startswith(REGISTRY + ":"):
            digest.update(_registry_part(name) + b"\0")
            continue
        path = _module_file(name)
        assert path is not None
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        for data in _data_files(path):
            digest.update(data.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(data.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _registry_part(name: str) -> bytes:
    shared, entries = _registry_parts()
    if name == REGISTRY:
        return name.encode() + b"\0" + shared
    table, _, key = name.removeprefix(REGISTRY + ":").partition(":")
    # an entry the source no longer holds hashes as none, so its jobs rerun and fail by name
    return "\0".join((name, *entries.get((table, key), ("<none>",)))).encode()
