"""Failed calls per scored system: the model and library calls its answers depend on, how many
failed, and whether the share that failed leaves its measures worth reading.

A system whose calls failed is still scored (the reader answers from whatever evidence it got),
so its measures look like any other's; the verdict here is what tells them apart: above the
study's `report.max_failure_share` a system is *not measured*."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.sqlfiles import sql

# the default of `report.max_failure_share` (config.schema.yaml)
MAX_FAILURE_SHARE = 0.05


@dataclass(frozen=True)
class Failures:
    """One row of the failures table (schemas.FAILURES)."""

    system: str
    branch: str
    model_calls: int
    model_failed: int
    reasons: tuple[tuple[str, int], ...]
    library_calls: int
    library_failed: int

    @property
    def calls(self) -> int:
        return self.model_calls + self.library_calls

    @property
    def failed(self) -> int:
        return self.model_failed + self.library_failed

    @property
    def share(self) -> float:
        """Failed of all calls; 0 for a system that depends on no call."""
        return self.failed / self.calls if self.calls else 0.0

    def measured(self, threshold: float) -> bool:
        return self.share <= threshold

    def row(self, threshold: float) -> dict[str, Any]:
        return {
            "system": self.system,
            "branch": self.branch,
            "model_calls": self.model_calls,
            "model_failed": self.model_failed,
            "reasons": [{"reason": r, "calls": n} for r, n in self.reasons],
            "library_calls": self.library_calls,
            "library_failed": self.library_failed,
            "calls": self.calls,
            "failed": self.failed,
            "share": self.share,
            "threshold": threshold,
            "measured": self.measured(threshold),
        }

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> Failures:
        return cls(
            row["system"],
            row["branch"],
            int(row["model_calls"]),
            int(row["model_failed"]),
            tuple((r["reason"], int(r["calls"])) for r in row["reasons"] or ()),
            int(row["library_calls"]),
            int(row["library_failed"]),
        )


def counted(con: duckdb.DuckDBPyConnection) -> list[Failures]:
    """Every scored system and branch with the calls it depends on, from the `scores` and
    `calls` tables of `open_study`."""
    return [Failures.of_row(r) for r in con.sql(sql("failures")).to_arrow_table().to_pylist()]


def failures_table(rows: Iterable[Failures], threshold: float) -> pa.Table:
    return pa.Table.from_pylist([r.row(threshold) for r in rows], schema=schemas.FAILURES)


@dataclass(frozen=True)
class Unmeasured:
    """A system with a branch above the threshold, pooled over its branches above it."""

    system: str
    branches: tuple[str, ...]
    failed: int
    calls: int

    @property
    def share(self) -> float:
        return self.failed / self.calls if self.calls else 0.0


def unmeasured(rows: Sequence[Mapping[str, Any]]) -> list[Unmeasured]:
    """The systems the failures table (rows of schemas.FAILURES) marks not measured on some
    branch, in the table's order."""
    found: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        if not r["measured"]:
            found.setdefault(r["system"], []).append(r)
    return [
        Unmeasured(
            system,
            tuple(r["branch"] for r in picked),
            sum(int(r["failed"]) for r in picked),
            sum(int(r["calls"]) for r in picked),
        )
        for system, picked in found.items()
    ]


def unmeasured_on(rows: Iterable[Mapping[str, Any]]) -> frozenset[tuple[str, str]]:
    """(system, branch) for every branch the failures table (rows of schemas.FAILURES) marks a
    system not measured on: what a comparison across systems leaves out there."""
    return frozenset((r["system"], r["branch"]) for r in rows if not r["measured"])


def pooled_share(rows: Sequence[Mapping[str, Any]], system: str) -> tuple[int, int]:
    """(failed, calls) of `system` over every branch of the failures table."""
    mine = [r for r in rows if r["system"] == system]
    return sum(int(r["failed"]) for r in mine), sum(int(r["calls"]) for r in mine)


def verdict_line(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """One line naming every system not measured and the share of its calls that failed; None
    when every system is measured."""
    found = unmeasured(rows)
    if not found:
        return None
    threshold = float(rows[0]["threshold"])
    named = "; ".join(
        f"{u.system} ({u.failed} of {u.calls} calls failed, {100 * u.share:.1f}%, "
        f"on {', '.join(u.branches)})"
        for u in found
    )
    systems = "system" if len(found) == 1 else "systems"
    return (
        f"{len(found)} {systems} not measured: more than {100 * threshold:.1f}% of their calls "
        f"failed (report.max_failure_share): {named}"
    )
