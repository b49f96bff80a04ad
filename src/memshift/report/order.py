"""How the report orders and names branches and systems, in its tables and its figures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memshift.vocabulary import (
    BASELINES,
    BRANCHES,
    DETECTIONS,
    FLOORS,
    HOLDMEM,
    REPAIRS,
    audited_base,
    cell_parts,
    is_floor,
)

# Display orders are the vocabulary's; names not listed follow the listed ones, alphabetically.


def rank(value: str, order: Sequence[str]) -> int:
    return order.index(value) if value in order else len(order)


def in_order(values: Iterable[str], order: Sequence[str]) -> list[str]:
    return sorted(set(values), key=lambda v: (rank(v, order), v))


def ordered_branches(branches: Iterable[str]) -> list[str]:
    return in_order(branches, BRANCHES)


def system_key(system: str) -> tuple[int, int, str, int, str, int]:
    """HoldMem cells first, by detection then repair (a detection's own calls before its cells);
    then the baselines; then custom systems; a system audited at answer level right after the
    system itself; the floors last."""
    if is_floor(system):
        return 3, FLOORS.index(system), system, 0, "", 0
    base = audited_base(system) or system
    audited = int(base != system)
    if base == HOLDMEM:  # the store written before the fork (a caller in the cost table)
        return 0, -1, "", -1, "", audited
    detection = base.removeprefix(f"{HOLDMEM}-")
    if detection != base and detection in DETECTIONS:  # a detection's writer and auditor
        return 0, rank(detection, DETECTIONS), detection, -1, "", audited
    cell = cell_parts(base)
    if cell:
        repair, detection = cell
        return (
            0,
            rank(detection, DETECTIONS),
            detection,
            rank(repair, REPAIRS),
            repair,
            audited,
        )
    if base in BASELINES:
        return 1, BASELINES.index(base), base, 0, "", audited
    return 2, 0, base, 0, "", audited


def ordered_systems(systems: Iterable[str]) -> list[str]:
    return sorted(set(systems), key=system_key)


def shown(system: str) -> str:
    """A system's name in the report's tables: a floor's marked as one."""
    return f"{system} (floor)" if is_floor(system) else system
