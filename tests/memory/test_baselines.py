"""The baselines through the probe stage's drivers: evidence within budget, sensible answers."""

from __future__ import annotations

from cellrun import answers_of, correct, gold_points

from conftest import data, world
from memshift.memory.baselines import NoStoreBM25, OracleContext
from memshift.memory.dense import PlainRAG, dense_ranker
from memshift.probes.build import probes_to_table
from memshift.scoring.scorer import score_answer

SEED, BRANCH = 1000, "del"


def run(system):
    return answers_of(system, SEED, BRANCH)


def accuracy(rows):
    gold = gold_points(SEED, BRANCH)
    return sum(correct(r, gold[(r["item_id"], r["checkpoint"])]) for r in rows) / len(rows)


def test_the_oracle_context_lets_the_reader_answer_nearly_everything():
    gold = data(SEED)[BRANCH].gold.points
    deps = {(p.item.item_id, p.time): p.gold.deps for p in gold}
    rows = run(OracleContext(deps))
    assert accuracy(rows) >= 0.95
    assert all(r["evidence_tokens"] <= 4096 for r in rows)


def test_with_the_oracle_context_the_reader_answers_implicit_questions_through_the_item():
    gold = data(SEED)[BRANCH].gold.points
    deps = {(p.item.item_id, p.time): p.gold.deps for p in gold}
    rows = run_implicit(OracleContext(deps))
    probes = {p.probe_id: p for p in data(SEED)[BRANCH].probes}
    right = [score_answer(probe_row(probes[r["probe_id"]]), r).correct for r in rows]
    assert len(rows) > 20 and sum(right) / len(right) >= 0.95


def probe_row(probe):
    return probes_to_table([probe], world=SEED, branch=BRANCH).to_pylist()[0]


def run_implicit(system):
    return answers_of(system, SEED, BRANCH, implicit=True)


def test_no_store_bm25_answers_within_budget():
    rows = run(NoStoreBM25())
    assert all(0 < r["evidence_tokens"] <= 4096 for r in rows)
    contact_rows = [r for r in rows if r["item_id"].startswith("contact") and r["checkpoint"] == 0]
    assert accuracy(contact_rows) >= 0.8


def test_plain_rag_ranks_with_the_configured_embedder(tmp_path):
    ranker = dense_ranker(tmp_path, "tiny_embedder:HashedWords")
    rows = run(PlainRAG(ranker))
    assert all(r["evidence_tokens"] <= 4096 for r in rows)
    assert list(tmp_path.glob("*.npz"))
    assert 0.2 <= accuracy(rows) <= 1.0


def test_retrieval_caches_do_not_mix_worlds_whose_object_ids_coincide():
    from memshift.retrieval.selection import Selector
    from memshift.world.records import state_at

    def selection(seed):
        w = world(seed)
        records = list(state_at(list(w.events), w.timeline.fork).records.values())
        chosen = Selector(records).select("Which city does the contact live in? city contact")
        return [(r.object_id, r.text) for r in chosen]

    first = selection(1000)
    selection(1001)
    assert selection(1000) == first
