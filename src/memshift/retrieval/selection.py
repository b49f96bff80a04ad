"""What the writer reads and what the reader is shown, within their token budgets."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memshift.retrieval.bm25 import BM25Index, TermCountCache, select_within_budget
from memshift.tokens import count_tokens
from memshift.world.parse import record_header
from memshift.world.records import Record, newest_within

WRITER_BUDGET = 6000
# what the auditor reads of an item: the records it cites and those that arrived since its
# write, within the writer's budget (StateAuditor's evidence role works within ~5.7K tokens)
AUDITOR_BUDGET = WRITER_BUDGET
EVIDENCE_BUDGET = 4096

_TOKENS: dict[tuple[str, int, str], int] = {}
_TERMS = TermCountCache()
# the most recently used selectors, oldest first (enough for every set of sources of a branch's
# checkpoints in one detection, so the next detection finds them)
_SELECTORS: dict[tuple[tuple[str, int, datetime], ...], Selector] = {}
_SELECTORS_KEPT = 128


def record_tokens(record: Record) -> int:
    """Tokens of a record as the writer sees it (header and text), cached per revision (with the
    text in the key: object ids repeat across worlds). The header ends in a space, so no token
    spans it and the text: the text's count is the one its term counts hold."""
    key = (record.object_id, record.revision, record.text)
    if key not in _TOKENS:
        text = _TERMS.terms(key, record.text).tokens
        _TOKENS[key] = count_tokens(record_header(record)) + text
    return _TOKENS[key]


class SizedRecords:
    """One set of records by object id with their sizes, measured once for every ranking that
    is cut to a budget over them."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = {r.object_id: r for r in records}
        self.tokens = {oid: record_tokens(r) for oid, r in self.records.items()}
        self.smallest = min(self.tokens.values(), default=0)

    def within(self, ranked_ids: Sequence[str], budget: int) -> list[Record]:
        """Records taken in rank order while they fit the budget (see select_within_budget)."""
        chosen = select_within_budget(ranked_ids, self.tokens, budget, self.smallest)
        return [self.records[oid] for oid in chosen]


class Selector:
    """BM25 over one set of records, reused by every item that reads the same sources at the
    same time (`Selector.over` reuses one across the detections of a process)."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = tuple(records)
        self.sized = SizedRecords(records)
        self.index = BM25Index.from_records(records, cache=_TERMS)

    @classmethod
    def over(cls, records: Sequence[Record]) -> Selector:
        """A Selector over `records`, the one built before over records equal to them if it is
        still kept: the detections of one ingest job index the same live records at every
        checkpoint, and a selector's answers depend on its records alone."""
        records = tuple(records)
        key = tuple((r.object_id, r.revision, r.updated) for r in records)
        kept = _SELECTORS.pop(key, None)
        if kept is None or kept.records != records:
            kept = cls(records)
        _SELECTORS[key] = kept
        if len(_SELECTORS) > _SELECTORS_KEPT:
            del _SELECTORS[next(iter(_SELECTORS))]
        return kept

    def select(
        self, query: str, budget: int = WRITER_BUDGET, skip: frozenset[str] = frozenset()
    ) -> tuple[Record, ...]:
        """Records taken by rank until the budget is full, then presented in time order; none
        from the sources in `skip`."""
        ranked = self.index.rank(query)
        if skip:
            ranked = [oid for oid in ranked if self.sized.records[oid].source not in skip]
        picked = self.sized.within(ranked, budget)
        return tuple(sorted(picked, key=lambda r: (r.updated, r.object_id)))


def audit_selection(
    selector: Selector,
    query: str,
    cited: Sequence[Record],
    budget: int = AUDITOR_BUDGET,
) -> tuple[Record, ...]:
    """What the auditor reads of the records in `selector` (those that arrived since an item's
    write) beside the `cited` ones: first the new revisions of cited records, newest first (the
    change that most directly supersedes the item's evidence), then the others by rank against
    `query`, while they fit the budget the cited records leave; in time order."""
    cited_ids = {r.object_id for r in cited}
    revised = sorted(
        (r for r in selector.sized.records.values() if r.object_id in cited_ids),
        key=lambda r: (r.updated, r.object_id),
        reverse=True,
    )
    ranked = [r.object_id for r in revised]
    ranked += [oid for oid in selector.index.rank(query) if oid not in cited_ids]
    room = max(0, budget - sum(record_tokens(r) for r in cited))
    picked = selector.sized.within(ranked, room)
    return tuple(sorted(picked, key=lambda r: (r.updated, r.object_id)))


def cited_within(cited: Sequence[Record], budget: int = AUDITOR_BUDGET) -> tuple[Record, ...]:
    """The records an item cites as the auditor is shown them: all of them at the default
    budget or when they fit, else (a context window cut the budget) the newest that fit, in
    their given order, so that the window still holds the prompt."""
    if budget >= AUDITOR_BUDGET or sum(record_tokens(r) for r in cited) <= budget:
        return tuple(cited)
    return newest_within(cited, budget, record_tokens)


def pack_evidence(
    items: Sequence[str], budget: int = EVIDENCE_BUDGET, per_item: int = 0
) -> tuple[str, ...]:
    """The newest items (last) that fit the reader's evidence budget, in their given order;
    each item costs its text and `per_item` more (its number in the prompt, when budgeted to a
    context window: `budgets.label_tokens`)."""
    kept: list[str] = []
    used = 0
    for text in reversed(items):
        size = count_tokens(text) + per_item
        if used + size > budget:
            continue
        kept.append(text)
        used += size
    return tuple(reversed(kept))
