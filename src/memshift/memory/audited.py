"""The `audit` detection's step: at each checkpoint an auditor reads every item whose sources
received records since its last write (within its token budget: the new revisions of the
records the item cites first, then the others by rank against the item): the base audit in two
passes and old-to-new transitions, which the gate verifies. A repair directive (a verified
transition, or without one the base audit's material STALE) re-derives the item
(`memshift.audit`); verify and no directive leave it."""

from __future__ import annotations

from datetime import datetime

from memshift.audit.arbiter import Verdict, audit_log, judge
from memshift.memory.holdmem import HoldMemDetector
from memshift.models.requests import AuditRequest
from memshift.retrieval.budgets import evidence_budget
from memshift.retrieval.queries import item_query
from memshift.retrieval.selection import Selector, audit_selection, cited_within


class AuditStep:
    def verdicts(
        self, detector: HoldMemDetector, now: datetime, checkpoint: int
    ) -> dict[str, Verdict]:
        """Audit every item whose sources received records since its last write."""
        requests: list[AuditRequest] = []
        selectors: dict[tuple[tuple[str, ...], datetime | None], Selector] = {}
        budget = evidence_budget(detector.auditor.profile, "auditor")
        for item in detector.items:
            slot = detector.slots[item.item_id]
            newer = detector.since_last_write(item)
            if not newer or not slot.served:
                continue
            arrived = (item.sources, slot.last_write)
            if arrived not in selectors:
                selectors[arrived] = Selector.over(newer)
            current = detector.write_of(slot.served[-1])
            cited = cited_within(
                [
                    detector.versions[key]
                    for c in current.citations
                    if (key := (str(c.get("object_id", "")), int(c.get("revision", 0))))
                    in detector.versions
                ],
                budget,
            )
            requests.append(
                AuditRequest(
                    item,
                    detector.version(item),
                    current.statement,
                    current.value,
                    current.time,
                    cited,
                    audit_selection(
                        selectors[arrived], item_query(item, detector.version(item)), cited, budget
                    ),
                    detector.call_context(item, checkpoint),
                    as_of=now,
                )
            )
        verdicts: dict[str, Verdict] = {}
        for request, reply in zip(requests, detector.auditor.generate(requests), strict=True):
            audit = judge(request, reply.value if reply.ok else None)
            verdicts[request.item.item_id] = audit.verdict
            detector.audits += audit_log(request.item.item_id, checkpoint, audit, request.variant)
        return verdicts
