"""B inferred from behaviour (MemShift C.5): persistence of the old value after a deletion
decides B on one half of the items; the cells' known B validates the rule."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from test_measures import maintenance, opened, score

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.inference import (
    DOCUMENTED_B,
    KNOWN_B,
    NOT_MEASURED,
    inference_half,
    inferred_table,
    kappa,
    known_b,
    native_libraries,
)
from memshift.artifacts import write_table
from memshift.registry import NATIVE_SYSTEMS
from memshift.report.inference import section
from memshift.vocabulary import DETECTIONS, KEYED

ITEMS = [f"task{k}.due" for k in range(1, 7)]


def deletion_scores(world: int, system: str, keeps: bool, samples: int) -> list[dict]:
    """A system's answers to deleted task items: at the fork the old due date, after it gold
    abstains; `keeps`: the system still answers the old date."""
    rows = []
    for item in ITEMS:
        common = {"world": world, "branch": "del", "system": system, "item_class": "task",
                  "value_type": "date"}  # fmt: skip
        rows.append(score(item, 0, True, **common, changed=False, caused_by_shift=False,
                          gold_status="answer", probe_id=f"{item}-0"))  # fmt: skip
        for k in range(1, 1 + samples):
            rows.append(score(item, k, not keeps, **common, gold_status="abstain",
                              status="answer" if keeps else "abstain",
                              kept_fork_value=keeps, probe_id=f"{item}-{k}"))  # fmt: skip
    return rows


def deletion_study(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """Two cells of known B (append-only keeps the old value, the source key does not) and BM25
    with one sample per item and world, over five worlds."""
    rows, logs = [], []
    for w in range(1, 6):
        rows += deletion_scores(w, "holdmem-d0-append", keeps=True, samples=2)
        rows += deletion_scores(w, "holdmem-d0-source", keeps=False, samples=2)
        rows += deletion_scores(w, "bm25", keeps=False, samples=1)
        for detection in ("append", "source"):
            log = tmp_path / f"w{w}/detections/del/holdmem-{detection}/maintenance.parquet"
            write_table(maintenance([]), schemas.MAINTENANCE, log)
            logs.append(log)
    for r in rows:
        r["free_text"] = False
    return opened(tmp_path, rows, logs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_persistence_recovers_the_cells_b(tmp_path: Path, seed: int):
    con = deletion_study(tmp_path)
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    table = {(r["system"], r["quantity"]): r for r in inferred_table(con, resampling).to_pylist()}
    inferring = sum(inference_half(i) for i in ITEMS)
    b0 = table[("holdmem-d0-append", "persistence")]
    assert b0["n"] == 5 * 2 * inferring and b0["estimate"] == 1.0
    assert (b0["known_b"], b0["inferred_b"], b0["by_interval"]) == (0, "0", "0")
    b1 = table[("holdmem-d0-source", "persistence")]
    assert (b1["known_b"], b1["inferred_b"], b1["by_interval"]) == (1, "1", "1")
    assert table[("holdmem-d0-source", "carryover")]["n"] == 5 * 2 * (len(ITEMS) - inferring)
    # BM25 has too few samples (one per item and world): unidentifiable, and no known B
    bm25 = table[("bm25", "persistence")]
    assert bm25["n"] < 20 and bm25["inferred_b"] == "unidentifiable" and bm25["known_b"] is None


def test_every_detection_but_the_audit_has_a_known_b():
    assert set(KNOWN_B) == set(DETECTIONS) - {"audit"}
    assert {d for d, b in KNOWN_B.items() if b == 1} == set(KEYED) - {"audit"}
    assert known_b("holdmem-d1-audit") is None and known_b("holdmem-d0-append+audit") is None
    assert known_b("holdmem-dm-upsert") == 0 and known_b("bm25") is None


def test_kappa():
    assert kappa([(0, 0), (1, 1), (1, 1), (0, 0)]) == 1.0
    assert kappa([(0, 1), (1, 0)]) == -1.0
    assert kappa([(1, 1), (1, 1)]) is None
    assert kappa([]) is None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_system_whose_calls_failed_on_the_deletion_branch_gets_no_b(tmp_path: Path, seed: int):
    con = deletion_study(tmp_path)
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    every = inferred_table(con, resampling).to_pylist()
    # failed after the source revision only: inferred as before
    assert inferred_table(con, resampling, {("holdmem-d0-append", "src")}).to_pylist() == every
    rows = inferred_table(con, resampling, {("holdmem-d0-append", "del")}).to_pylist()
    for found, before in zip(rows, every, strict=True):
        if found["system"] == "holdmem-d0-append":
            # the counts stay in the table, but no B is read from them
            assert (found["inferred_b"], found["by_interval"]) == (NOT_MEASURED, NOT_MEASURED)
            assert (found["n"], found["estimate"]) == (before["n"], before["estimate"])
        else:
            assert found == before
    text = section(rows)
    n = next(r["n"] for r in rows if r["system"] == "holdmem-d0-append")
    cells = f"| holdmem-d0-append | 0 (known) | {n} | not measured | not measured | not measured | "
    assert cells in text
    # the cell left out of the validation of the rule: kappa over the one cell left
    assert "over 1 cells" in text and "over 2 cells" in section(every)


def test_every_native_library_has_a_documented_b():
    assert set(DOCUMENTED_B) == set(NATIVE_SYSTEMS)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_native_systems_inferred_b_is_set_beside_its_librarys_documented_b(tmp_path, seed):
    """Two native systems whose libraries both document B=1 (they delete a revised document):
    one behaves so (inferred 1), the other keeps deleted values (inferred 0); the report says
    which agree, from the libraries the call logs name."""
    rows = []
    for w in range(1, 6):
        rows += deletion_scores(w, "docs-kept", keeps=True, samples=2)
        rows += deletion_scores(w, "docs-deleted", keeps=False, samples=2)
    for r in rows:
        r["free_text"] = False
    con = opened(tmp_path, rows, [])
    con.execute(
        "CREATE OR REPLACE TABLE calls AS SELECT * FROM (VALUES "
        "('docs-kept', 'library', 'cognee'), ('docs-deleted', 'library-model', 'lightrag'), "
        "('docs-deleted', 'reader', 'openai'), ('bm25', 'reader', 'rules')) "
        "AS t(system, role, backend)"
    )
    libraries = native_libraries(con)
    assert libraries == {"docs-deleted": "lightrag", "docs-kept": "cognee"}
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    table = inferred_table(con, resampling, libraries=libraries).to_pylist()
    found = {(r["system"], r["quantity"]): r for r in table}
    kept, deleted = found[("docs-kept", "persistence")], found[("docs-deleted", "persistence")]
    assert (kept["documented_b"], kept["inferred_b"], kept["known_b"]) == (1, "0", None)
    assert (deleted["documented_b"], deleted["inferred_b"]) == (1, "1")
    text = section(table)
    assert "| docs-kept | 1 (documented) |" in text
    assert "Of the 2 native systems, 2 have an inferred B, and it equals" in text
    assert "and code describe) for 1 of them (paper: 5 of 5)" in text
    # without the libraries nothing is documented, and the sentence is left out
    assert "Of the" not in section(inferred_table(con, resampling).to_pylist())
