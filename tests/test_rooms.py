"""The rooms of the package: which folder may import which. The folder graph has no cycle, and
nothing below the stages imports a stage (only the command line runs them)."""

from __future__ import annotations

import ast
from pathlib import Path

import memshift

ROOT = Path(memshift.__file__).parent
# Above the stages: the command line that runs them.
ABOVE_STAGES = {"cli"}


STUDIES = "studies"


def study_room(name: str) -> str:
    """The room of a side study's module (`studies/<study>/<name>.py`), by its name: its stages
    (`*stage`) are stages, its analyses (`*analysis*`) and explanation the measures', its report
    (`*report*`) the report's; the rest is the study's own parts."""
    if name.endswith("stage"):
        return "stages"
    if name == "explain":
        return name
    if "analysis" in name:
        return "analysis"
    if "report" in name:
        return "report"
    return STUDIES


def room(path: Path) -> str:
    """A module's room: its folder under the package, or the module itself at the top; a side
    study's module goes by its name (`study_room`)."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == STUDIES and len(parts) == 3 and parts[2] != "__init__.py":
        return study_room(parts[2].removesuffix(".py"))
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def module_room(name: str) -> str | None:
    """The room of the package module `name` (dotted), or None for a name that is no module of
    the package or is a side study's package (its `__init__` holds a docstring alone)."""
    parts = name.split(".")
    if parts[0] != "memshift" or len(parts) < 2:
        return None
    if parts[1] == STUDIES:
        if len(parts) < 4:
            return None
        return (
            study_room(parts[3])
            if (ROOT.joinpath(*parts[1:4]).with_suffix(".py")).is_file()
            else None
        )
    candidate = ROOT / parts[1]
    return parts[1] if candidate.is_dir() or candidate.with_suffix(".py").is_file() else None


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
        found.update(r for r in map(module_room, names) if r is not None)
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


def test_a_side_studys_package_holds_no_code():
    """`module_room` counts no import of a study's package itself: its `__init__` must hold a
    docstring and nothing else."""
    for init in (ROOT / STUDIES).glob("*/__init__.py"):
        body = ast.parse(init.read_text(encoding="utf-8")).body
        assert len(body) == 1 and isinstance(body[0], ast.Expr), init
