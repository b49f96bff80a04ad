"""The rooms of the package: which folder may import which. The folder graph has no cycle, and
nothing below the stages imports a stage (only the command line runs them)."""

from __future__ import annotations

import ast
from pathlib import Path

import memshift

ROOT = Path(memshift.__file__).parent
# Above the stages: the command line that runs them.
ABOVE_STAGES = {"cli"}


def room(path: Path) -> str:
    """A module's room: its folder under the package, or the module itself at the top."""
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def imported_rooms(path: Path) -> set[str]:
    """The rooms a module imports, type-only imports included."""
    found: set[str] = set()
    package = path.relative_to(ROOT.parent).with_suffix("").parts
    if path.name == "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + (path.name == "__init__.py")]
                names = [".".join([*base, node.module or ""]).rstrip(".")]
            else:
                module = node.module or ""
                names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "memshift" and len(parts) > 1:
                candidate = ROOT / parts[1]
                if candidate.is_dir() or candidate.with_suffix(".py").is_file():
                    found.add(parts[1])
    return found


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        source = room(path)
        edges.setdefault(source, set()).update(imported_rooms(path) - {source})
    return edges


def test_the_folder_graph_has_no_cycle():
    edges = graph()
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycle = [*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt]
                raise AssertionError("import cycle between rooms: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])


def test_nothing_imports_upward_into_the_stages():
    importers = {source for source, targets in graph().items() if "stages" in targets}
    assert importers - {"stages"} <= ABOVE_STAGES, sorted(importers - {"stages"})


def test_the_graph_sees_real_imports():
    edges = graph()
    assert "world" in edges["branches"] and "memory" in edges["stages"]
