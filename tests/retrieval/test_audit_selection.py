"""What the auditor reads of the records that arrived since an item's write: the cited records'
new revisions first, then the rest by rank, within its token budget."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.retrieval.selection import Selector, audit_selection, record_tokens
from memshift.world.records import Record

QUERY = "where does the user live home city moved"


def record(object_id: str, text: str, minute: int, revision: int = 1) -> Record:
    time = datetime(2026, 10, 1) + timedelta(minutes=minute)
    return Record(object_id, "note", "note", revision, object_id, {}, text, time, time)


def newsletter(n: int) -> Record:
    return record(f"nl{n}", f"Weekly digest {n}: " + "market gardening tips " * 40, n)


def test_a_revision_of_a_cited_record_comes_first_even_when_it_ranks_last():
    cited = record("card", "City: Boston", 0)
    revised = record("card", "Phone: 555 0100", 50, revision=2)  # no word of the query
    moved = record("n1", "I moved and my home city is now Austin, the user said", 10)
    newer = [moved, revised, *[newsletter(n) for n in range(20)]]
    budget = record_tokens(cited) + record_tokens(revised) + record_tokens(moved)
    picked = audit_selection(Selector(newer), QUERY, [cited], budget)
    assert [r.object_id for r in picked] == ["n1", "card"]  # in time order


def test_the_rest_is_taken_by_rank_and_everything_fits_when_the_budget_allows():
    newer = [newsletter(n) for n in range(5)] + [record("n1", "home city moved to Austin", 99)]
    one = record_tokens(newer[-1])
    assert [r.object_id for r in audit_selection(Selector(newer), QUERY, [], one)] == ["n1"]
    everything = sum(record_tokens(r) for r in newer)
    assert len(audit_selection(Selector(newer), QUERY, [], everything)) == len(newer)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=12),
    budget=st.integers(min_value=0, max_value=800),
    cites=st.integers(min_value=0, max_value=3),
)
def test_the_cited_and_the_picked_records_never_exceed_the_budget(sizes, budget, cites):
    newer = [record(f"r{n}", "home city " * size, n) for n, size in enumerate(sizes)]
    cited = [record(f"r{n}", "City: Boston", -1) for n in range(min(cites, len(newer)))]
    picked = audit_selection(Selector(newer), QUERY, cited, budget)
    spent = sum(record_tokens(r) for r in [*cited, *picked])
    assert spent <= max(budget, sum(record_tokens(r) for r in cited))
    assert [r.updated for r in picked] == sorted(r.updated for r in picked)
    assert len({r.object_id for r in picked}) == len(picked)
