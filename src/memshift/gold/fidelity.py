"""The fidelity check: every gold fact is stated in a record of its dependency set, verbatim or,
for a working-hours range said in words, as the generator's own parser reads it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memshift.errors import MemshiftError
from memshift.gold.compute import GoldPoint
from memshift.world.records import LiveState
from memshift.world.working_hours import stated_at


class FidelityError(MemshiftError):
    """A rendered world does not state one of its gold facts; such a world must not be used."""


@dataclass(frozen=True)
class FidelityReport:
    facts_checked: int
    failures: tuple[str, ...]


def check_fidelity(
    points: Sequence[GoldPoint], states: Sequence[LiveState], *, world: int, branch: str
) -> FidelityReport:
    failures: list[str] = []
    checked = 0
    for p in points:
        if p.gold.status != "answer":
            continue
        state = states[p.checkpoint]
        texts = [state.records[oid].text for oid, _ in p.gold.deps if oid in state.records]
        for surface, holder in p.gold.facts:
            checked += 1
            if not any(stated_at(text, surface) is not None for text in texts):
                failures.append(
                    f"world {world} branch {branch} checkpoint {p.checkpoint} "
                    f"item {p.item.item_id}: {surface!r} (from {holder}) is in no record of its "
                    "dependency set"
                )
    return FidelityReport(checked, tuple(failures))


def require_fidelity(report: FidelityReport) -> None:
    if report.failures:
        shown = "; ".join(report.failures[:3])
        more = f" (and {len(report.failures) - 3} more)" if len(report.failures) > 3 else ""
        raise FidelityError(
            f"fidelity check failed for {len(report.failures)} of "
            f"{report.facts_checked} gold facts: {shown}{more}"
        )
