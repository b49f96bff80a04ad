"""The failure modes in the report (MemShift F.10), the paper's numbers beside ours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memshift.report.markdown import beside, interval, table
from memshift.report.order import ordered_systems

Row = Mapping[str, Any]
# MemShift F.10, 20 contact attributes on 5 worlds
PAPER = {"holdmem-d1-source": "0.0", "bm25": "5.0 [0.0, 15.0]"}


def section(rows: Sequence[Row]) -> str:
    conflicts = {r["system"]: r for r in rows if r["quantity"] == "conflict_abstain"}
    if not conflicts:
        return ""
    body = [
        [
            system,
            str(conflicts[system]["n"]),
            beside(interval(conflicts[system]), PAPER.get(system)),
        ]
        for system in ordered_systems(conflicts)
    ]
    return "\n".join(
        [
            "## Conflicting sources",
            "",
            "After the fork a contact card and a message from that contact state two values of "
            "the contact's city or employer on the same day; gold abstains (docs/data.md). The "
            "share of those item-times each system abstained on, 95% world-bootstrap intervals "
            "(n: item-times). A key detects a changed source, not a disagreement; the "
            "rule-based reader rebuilds records from their text and cannot see the message's "
            "claim as a rival value either, so with it a system abstains only where its "
            "evidence lacks the card (retrieval missed it), never because it saw the conflict.",
            "",
            table(["system", "n", "abstained (%)"], body),
            "",
        ]
    )
