"""The parts of the package and what may import what, as docs/architecture.md states them: every
room is placed in one part, each imports only the parts its row allows, and nothing outside the
rule-based backend imports it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from test_rooms import ROOT, graph, imported_rooms, room

MAP = Path(__file__).parents[1] / "docs" / "architecture.md"
ROW = re.compile(
    r"^\| (?P<part>[a-z]+) \| [^|]+ \| (?P<rooms>[a-z_, ]+) \| (?P<allowed>[a-z, ]+) \|$"
)
EVERY_PART = "every part"
BACKEND = "simulator"


@dataclass(frozen=True)
class Part:
    name: str
    rooms: frozenset[str]
    allowed: frozenset[str]  # parts, or EVERY_PART


def parts() -> list[Part]:
    """The map's parts in order (its table's rows but the header)."""
    found = [
        Part(m["part"], _listed(m["rooms"]), _listed(m["allowed"]))
        for m in map(ROW.match, MAP.read_text(encoding="utf-8").splitlines())
        if m and m["part"] != "part"
    ]
    assert len(found) >= 5, "docs/architecture.md lost its table of parts"
    return found


def _listed(cell: str) -> frozenset[str]:
    return frozenset(name.strip() for name in cell.split(","))


def part_of() -> dict[str, Part]:
    placed: dict[str, Part] = {}
    for part in parts():
        for name in part.rooms:
            assert name not in placed, f"{name} is in two parts of docs/architecture.md"
            placed[name] = part
    return placed


def crossings(edges: dict[str, set[str]]) -> list[str]:
    """Each import of a room whose part the importer's row does not allow."""
    placed = part_of()
    return sorted(
        f"{source} ({placed[source].name}) imports {target} ({placed[target].name})"
        for source, targets in edges.items()
        if source in placed and EVERY_PART not in placed[source].allowed
        for target in targets
        if placed[target].name not in placed[source].allowed
    )


def test_every_room_is_placed_in_the_map_and_the_map_names_only_rooms():
    rooms = {room(path) for path in ROOT.rglob("*.py")} - {"__init__"}
    placed = set(part_of())
    assert rooms - placed == set(), "add them to docs/architecture.md"
    assert placed - rooms == set(), "docs/architecture.md names rooms that are not here"


def test_each_part_allows_only_parts_before_it_and_itself():
    names = [part.name for part in parts()]
    for n, part in enumerate(parts()):
        assert part.allowed == {EVERY_PART} or part.allowed <= set(names[: n + 1]), part


def test_no_room_imports_a_part_its_row_does_not_allow():
    assert crossings(graph()) == []


def test_the_check_catches_a_report_that_names_a_model_profile():
    edges = graph()
    edges["report"] = edges["report"] | {"models"}
    assert crossings(edges) == ["report (report) imports models (models)"]


def test_nothing_outside_the_rule_based_backend_imports_it():
    importers = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if room(path) != BACKEND and BACKEND in imported_rooms(path)
    )
    assert importers == []
