"""The gate's safety suite: injected candidates over real rendered records.

Every candidate that breaks chronology, grounding, single-record quoting, path length or parsing
is refused with its reason; every valid one is accepted; and candidates that are valid in
provenance and chronology but do not supersede anything are accepted too, which documents that
the gate verifies provenance and chronology, not meaning."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import numpy as np
import pytest

from conftest import world
from memshift.audit.arbiter import STALE, UNKNOWN, VALID, Premise, arbitrate
from memshift.audit.gate import Candidate, Entry, Index, authorize, content_tokens, review
from memshift.world.parse import record_evidence
from memshift.world.records import LiveState

PER_KIND = 200  # violations of each kind; five kinds
VALID_COUNT = 300
NON_SUPERSEDING = 300


def entries() -> list[Entry]:
    state = LiveState()
    for event in world(1000).events:
        state.apply(event)
    records = sorted(state.records.values(), key=lambda r: (r.updated, r.object_id))
    return [Entry(f"{r.object_id} r{r.revision}", record_evidence(r), r.updated) for r in records]


ENTRIES = entries()
INDEX = Index(ENTRIES)


def span(entry: Entry, rng: np.random.Generator, words: int = 10) -> str | None:
    """A run of words of one entry that grounds to that entry alone."""
    tokens = entry.text.split()
    if len(tokens) < words + 2:
        return None
    start = int(rng.integers(0, len(tokens) - words))
    quote = " ".join(tokens[start : start + words])
    grounded = INDEX.ground(quote)
    return quote if grounded.entry == entry and len(content_tokens(quote)) >= 5 else None


def pairs(rng: np.random.Generator, count: int) -> list[tuple[Entry, str, Entry, str]]:
    """(older entry, its quote, newer entry, its quote), strictly ordered in time."""
    found = []
    while len(found) < count:
        a, b = (ENTRIES[int(i)] for i in rng.choice(len(ENTRIES), 2, replace=False))
        if a.time == b.time:
            continue
        old, new = (a, b) if a.time < b.time else (b, a)
        old_quote, new_quote = span(old, rng), span(new, rng)
        if old_quote and new_quote:
            found.append((old, old_quote, new, new_quote))
    return found


def candidate(old_quote: str, new_quote: str, **changes: object) -> Candidate:
    fields: dict[str, object] = {
        "dimension": "city",
        "old_value": "Lisbon",
        "new_value": "Porto",
        "old_quote": old_quote,
        "new_quote": new_quote,
        "causal_path": ("a", "b"),
    }
    fields.update(changes)
    return Candidate(**fields)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def suite() -> dict[str, list[tuple[Candidate | None, str]]]:
    rng = np.random.default_rng(2026)
    built: dict[str, list[tuple[Candidate | None, str]]] = {}
    built["valid"] = [
        (candidate(oq, nq, causal_path=(o.entry_id, n.entry_id)), "verified")
        for o, oq, n, nq in pairs(rng, VALID_COUNT)
    ]
    built["reversed chronology"] = [
        (candidate(nq, oq), "new record is not newer than the old one")
        for _, oq, _, nq in pairs(rng, PER_KIND)
    ]
    built["ungrounded quote"] = [
        (candidate(oq, garbled(nq, rng)), "new quote not found in any record")
        for _, oq, _, nq in pairs(rng, PER_KIND)
    ]
    built["cross-record quote"] = []
    while len(built["cross-record quote"]) < PER_KIND:
        ((_, oq, _, nq),) = pairs(rng, 1)
        mixed = " ".join(oq.split()[:5] + nq.split()[5:])
        if INDEX.ground(mixed).reason == "quote spans several records":
            built["cross-record quote"].append(
                (candidate(oq, mixed), "new quote spans several records")
            )
    built["short causal path"] = [
        (candidate(oq, nq, causal_path=path), "causal path has fewer than 2 nodes")
        for (_, oq, _, nq), path in zip(
            pairs(rng, PER_KIND), [(), ("x",)] * (PER_KIND // 2), strict=True
        )
    ]
    built["missing value"] = [
        (candidate(oq, nq, **{field: empty}), "a state value is missing")
        for (_, oq, _, nq), (field, empty) in zip(
            pairs(rng, PER_KIND),
            [("old_value", None), ("new_value", ""), ("new_value", []), ("old_value", "")] * 50,
            strict=True,
        )
    ]
    built["non-superseding"] = [
        (
            candidate(oq, nq, dimension="anything", old_value="a dentist visit", new_value="42"),
            "verified",
        )
        for _, oq, _, nq in pairs(rng, NON_SUPERSEDING)
    ]
    return built


def garbled(quote: str, rng: np.random.Generator) -> str:
    """A quote with a third of its words replaced by words no record contains: what a model
    that paraphrases or invents its evidence would send."""
    words = quote.split()
    for position in rng.choice(len(words), size=len(words) // 3 + 1, replace=False):
        words[int(position)] = f"zq{int(rng.integers(10**6, 10**7))}"
    return " ".join(words)


def decide(cases: list[tuple[Candidate | None, str]]) -> Counter[str]:
    return Counter(authorize(c, INDEX).reason for c, _ in cases if c is not None)


def test_every_valid_candidate_is_accepted(suite) -> None:
    assert decide(suite["valid"]) == Counter({"verified": VALID_COUNT})


@pytest.mark.parametrize(
    "kind",
    [
        "reversed chronology",
        "ungrounded quote",
        "cross-record quote",
        "short causal path",
        "missing value",
    ],
)
def test_every_violation_is_refused_with_its_reason(suite, kind: str) -> None:
    expected = Counter(reason for _, reason in suite[kind])
    assert decide(suite[kind]) == expected
    assert sum(expected.values()) == PER_KIND


def test_the_suite_holds_at_least_900_violations_and_290_valid_candidates(suite) -> None:
    kinds = [k for k in suite if k not in ("valid", "non-superseding")]
    assert sum(len(suite[k]) for k in kinds) >= 900
    assert len(suite["valid"]) >= 290


def test_provenance_valid_but_unrelated_transitions_pass_the_gate(suite) -> None:
    # the gate checks where quotes come from and their order in time, never what they mean
    assert decide(suite["non-superseding"]) == Counter({"verified": NON_SUPERSEDING})


def test_times_come_from_the_records_never_from_the_model(suite) -> None:
    cand, _ = suite["valid"][0]
    assert cand is not None
    decision = authorize(cand, INDEX)
    by_id = {e.entry_id: e for e in ENTRIES}
    assert decision.old_time == by_id[decision.old_entry].time
    assert decision.new_time == by_id[decision.new_entry].time


def test_decisions_are_reproducible(suite) -> None:
    everything = [c for cases in suite.values() for c, _ in cases if c is not None]
    first = [authorize(c, INDEX) for c in everything]
    rebuilt = Index(ENTRIES)
    again = [authorize(c, rebuilt) for c in everything]
    assert first == again


def test_unparseable_transitions_are_refused_and_logged() -> None:
    decisions = review({"transitions": [{"dimension": "city"}, {"causal_path": "a"}]}, INDEX)
    assert [d.reason.startswith("parse failure") for _, d in decisions] == [True, True]
    assert not any(d.accepted for _, d in decisions)


def test_a_verified_transition_makes_an_item_stale_and_a_refused_one_leaves_the_base_verdict() -> (
    None
):
    t0 = datetime(2026, 1, 1)
    index = Index(
        [
            Entry("r1 r1", "Nadir lives in Lisbon near the old harbour market", t0),
            Entry("r2 r1", "Nadir moved to Porto last week and loves the river", t0 + timedelta(1)),
        ]
    )
    good = {
        "dimension": "city",
        "old_value": "Lisbon",
        "new_value": "Porto",
        "old_quote": "Nadir lives in Lisbon near the old harbour market",
        "new_quote": "Nadir moved to Porto last week",
        "causal_path": ["r1", "r2"],
        "pass": "draft",
        "material": True,
    }
    stale = arbitrate("Lisbon", review({"transitions": [good]}, index))
    assert (stale.status, stale.current, stale.directive) == (STALE, "Porto", "repair")
    backwards = {**good, "old_quote": good["new_quote"], "new_quote": good["old_quote"]}
    refused = arbitrate("Lisbon", review({"transitions": [backwards]}, index))
    assert (refused.status, refused.current, refused.directive) == (VALID, "Lisbon", "none")
    unknown = Premise("Nadir lives in Lisbon", "draft", UNKNOWN, None, True)
    verify = arbitrate("Lisbon", review({"transitions": [backwards]}, index), [unknown])
    assert (verify.status, verify.current, verify.directive) == (UNKNOWN, "Lisbon", "verify")
    valid = arbitrate("Lisbon", review({"transitions": []}, index))
    assert (valid.status, valid.directive) == (VALID, "none")
    immaterial = review({"transitions": [{**good, "material": False}]}, index)
    assert [d.reason for _, d in immaterial] == ["the transition is not material to the answer"]
