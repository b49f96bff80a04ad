"""The baselines through the probe stage's drivers: evidence within budget, sensible answers."""

from __future__ import annotations

from cellrun import correct, gold_points

from conftest import data, world
from memshift.memory.baselines import NoStoreBM25, OracleContext, PlainRAG
from memshift.memory.dense import dense_ranker
from memshift.memory.reading import answer, drive, questions
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.probes import probes_to_table

SEED, BRANCH = 1000, "del"


def run(system):
    w, d = world(SEED), data(SEED)[BRANCH]
    probes = probes_to_table(d.probes, world=SEED, branch=BRANCH)
    asked = drive(system, list(d.branch.events), w.timeline.checkpoints, questions(probes, w.items))
    return answer(
        asked,
        ModelClient(Profile("rules", "rules")),
        world=SEED,
        branch=BRANCH,
        system="x",
        run="test",
    ).to_pylist()


def accuracy(rows):
    gold = gold_points(SEED, BRANCH)
    return sum(correct(r, gold[(r["item_id"], r["checkpoint"])]) for r in rows) / len(rows)


def test_the_oracle_context_lets_the_reader_answer_nearly_everything():
    gold = data(SEED)[BRANCH].gold.points
    deps = {f"w{SEED}-{BRANCH}-c{p.checkpoint}-{p.item.item_id}": p.gold.deps for p in gold}
    rows = run(OracleContext(deps))
    assert accuracy(rows) >= 0.95
    assert all(r["evidence_tokens"] <= 4096 for r in rows)


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
