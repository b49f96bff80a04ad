"""Measures from scored answers and maintenance logs: detection windows, groups, the identity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.errors import MemshiftError
from memshift.explain.gather import detect

CELL = "holdmem-d0-source"


def score(item: str, checkpoint: int, correct: bool, **fields: Any) -> dict[str, Any]:
    row = {
        "probe_id": f"{item}-{checkpoint}",
        "world": 1,
        "branch": "src",
        "system": CELL,
        "checkpoint": checkpoint,
        "item_id": item,
        "evidence_tokens": 10,
        "item_class": "contact",
        "value_type": "entity",
        "free_text": False,
        "changed": True,
        "caused_by_shift": True,
        "clock_alone": False,
        "last_change": checkpoint,
        "sampled": False,
        "gold_status": "answer",
        "status": "answer",
        "correct": correct,
        "reason": "match" if correct else "wrong value",
        "kind": "direct",
        "accepted_premise": False,
    }
    row.update(fields)
    return row


def maintenance(rows: list[tuple[str, int, bool]]) -> pa.Table:
    columns = schemas.empty_columns(schemas.MAINTENANCE)
    for item, checkpoint, invalidated in rows:
        for name, value in (
            ("item_id", item),
            ("checkpoint", checkpoint),
            ("invalidated", invalidated),
            ("reason", "key changed" if invalidated else ""),
            ("key_before", "a"),
            ("key_after", "b"),
            ("rederived", invalidated),
            ("write_id", f"{item}-{checkpoint}"),
        ):
            columns[name].append(value)
    return pa.Table.from_pydict(columns, schema=schemas.MAINTENANCE)


def maintenance_log(
    tmp_path: Path, world: int, detection: str, rows: list[tuple[str, int, bool]]
) -> Path:
    """A detection's maintenance log on the src branch of a world."""
    log = tmp_path / f"w{world}/detections/src/holdmem-{detection}/maintenance.parquet"
    write_table(maintenance(rows), schemas.MAINTENANCE, log)
    return log


def opened(tmp_path: Path, scores: list[dict[str, Any]], logs: list[Path]):
    """The analysis database of `scores` (written to s.parquet) and `logs`."""
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    return open_study(tmp_path / "s.parquet", logs)


def study(
    tmp_path: Path, scores: list[dict[str, Any]], logs: list[tuple[str, int, bool]]
) -> list[Path]:
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    log = tmp_path / "w1/detections/src/holdmem-source/maintenance.parquet"
    write_table(maintenance(logs), schemas.MAINTENANCE, log)
    return [log]


def detected(
    tmp_path: Path, scores: list[dict[str, Any]], logs: list[tuple[str, int, bool]]
) -> dict[str, bool]:
    con = open_study(tmp_path / "s.parquet", study(tmp_path, scores, logs))
    return dict(con.execute("SELECT probe_id, detected FROM item_times").fetchall())


def test_an_invalidation_counts_only_after_the_interval_of_the_last_change(tmp_path: Path) -> None:
    scores = [
        score("a", 4, True, last_change=3),  # invalidated at 3: counts
        score("b", 4, True, last_change=3),  # invalidated at 2 only: before the last change
        score("c", 4, True, last_change=3),  # invalidated at 5: after the probe
        score("d", 4, True, last_change=4),  # invalidated at 4: the interval of the change
    ]
    logs = [("a", 3, True), ("b", 2, True), ("c", 5, True), ("d", 4, True), ("a", 4, False)]
    found = detected(tmp_path, scores, logs)
    assert found == {"a-4": True, "b-4": False, "c-4": False, "d-4": True}
    # `memshift explain` states the same rule in Python; the two must agree
    log_rows = maintenance(logs).to_pylist()
    for s in scores:
        rows = [r for r in log_rows if r["item_id"] == s["item_id"]]
        assert detect(rows, s["last_change"], s["checkpoint"]).detected == found[s["probe_id"]]


def test_unchanged_items_count_invalidations_since_the_fork(tmp_path: Path) -> None:
    scores = [
        score("a", 3, True, changed=False, sampled=True, last_change=0),
        score("b", 3, True, changed=False, sampled=True, last_change=0),
    ]
    assert detected(tmp_path, scores, [("a", 1, True)]) == {"a-3": True, "b-3": False}


def test_a_system_without_invalidation_reports_has_no_detection(tmp_path: Path) -> None:
    scores = [score("a", 2, True, system="bm25")]
    assert detected(tmp_path, scores, []) == {"a-2": None}


def test_a_scored_cell_without_its_maintenance_log_is_an_error(tmp_path: Path) -> None:
    write_table(
        pa.Table.from_pylist(
            [score("a", 2, True, system="holdmem-d1-citation")], schema=schemas.SCORES
        ),
        schemas.SCORES,
        tmp_path / "s.parquet",
    )
    with pytest.raises(MemshiftError, match=r"no log of their .*e.g. holdmem-d1-citation"):
        open_study(tmp_path / "s.parquet", [])


def test_maintenance_logs_must_name_world_branch_and_detection(tmp_path: Path) -> None:
    write_table(
        pa.Table.from_pylist([score("a", 2, True)], schema=schemas.SCORES),
        schemas.SCORES,
        tmp_path / "s.parquet",
    )
    with pytest.raises(MemshiftError, match="a log must be"):
        open_study(tmp_path / "s.parquet", [tmp_path / "maintenance.parquet"])


def _estimates(tmp_path: Path, scores: list[dict[str, Any]], logs: list[tuple[str, int, bool]]):
    con = open_study(tmp_path / "s.parquet", study(tmp_path, scores, logs))
    measures.compute(con, Resampling(draws=50))
    rows = measures.measures_table(con).to_pylist()
    return rows, {
        (r["item_class"], r["cause"], r["measure"]): r for r in rows if r["system"] == CELL
    }


def test_m_r_a_and_update_on_a_hand_counted_cell(tmp_path: Path) -> None:
    scores = [
        score("a", 1, True),
        score("b", 1, False),
        score("c", 1, True),
        score("d", 1, False, caused_by_shift=False, clock_alone=True, free_text=True),
        score("e", 1, True, changed=False, sampled=True, last_change=0),
        score("f", 1, True, changed=False, sampled=True, last_change=0),
        score("g", 0, True, changed=False, last_change=0),
    ]
    logs = [("a", 1, True), ("b", 1, True), ("e", 1, True)]
    rows, found = _estimates(tmp_path, scores, logs)
    value = {name: found[("all", "all", name)]["estimate"] for name in ("update", "m", "r", "a")}
    assert value == {"update": 2 / 4, "m": 2 / 4, "r": 1 / 2, "a": 1 / 2}
    assert found[("all", "all", "stability")]["estimate"] == 1.0
    assert found[("all", "all", "unchanged_invalidated")]["estimate"] == 1 / 2
    assert found[("all", "all", "rederived_accuracy")]["estimate"] == 2 / 3
    assert found[("all", "all", "before_shift")]["estimate"] == 1.0
    assert found[("all", "all", "wrong_rederived")]["numerator"] == 1
    assert found[("all", "all", "wrong_missed")]["numerator"] == 1
    assert found[("free text", "all", "update")]["n"] == 1
    assert found[("all", "clock alone", "m")]["estimate"] == 1.0
    assert found[("all", "also without", "update")]["n"] == 1
    assert found[("all", "caused", "update")]["n"] == 3
    assert ("all", "caused", "stability") not in found  # unchanged items have no cause
    assert measures.check_identity(rows) == len(
        {(r["item_class"], r["cause"]) for r in rows if r["measure"] == "m"}
    )


def test_premise_probes_count_only_in_the_premise_measures(tmp_path: Path) -> None:
    scores = [
        score("a", 1, True),
        score("b", 1, False),
        score("a", 1, False, kind="premise", probe_id="a-1-premise", accepted_premise=True),
        score("b", 1, True, kind="premise", probe_id="b-1-premise"),
        score("c", 1, False, kind="premise", probe_id="c-1-premise"),
    ]
    rows, found = _estimates(tmp_path, scores, [("a", 1, True)])
    assert found[("all", "all", "update")]["n"] == 2
    assert found[("all", "all", "m")]["numerator"] == 1
    assert found[("all", "all", "premise_resistance")]["estimate"] == 1 / 3
    assert found[("all", "all", "premise_accepted")]["estimate"] == 1 / 3
    assert found[("all", "caused", "premise_resistance")]["n"] == 3
    assert measures.check_identity(rows) > 0


def _answer_audit_log(path: Path, flagged: list[tuple[str, str]]) -> Path:
    """A log with each audit's verdict row (STALE repairs, UNKNOWN asks to verify) and one
    transition row carrying the same verdict, which must not count twice."""
    directive = {"STALE": "repair", "UNKNOWN": "verify", "VALID": "none"}
    rows = [
        {
            "probe_id": probe_id,
            "item_id": probe_id.split("-")[0],
            "checkpoint": 1,
            "row": row,
            "accepted": verdict == "STALE",
            "reason": "",
            "verdict": verdict,
            "directive": directive[verdict] if row == "verdict" else "",
            "causal_path": [],
        }
        for probe_id, verdict in flagged
        for row in ("verdict", "transition")
    ]
    write_table(pa.Table.from_pylist(rows, schema=schemas.AUDITS), schemas.AUDITS, path)
    return path


def test_an_answer_audit_detects_exactly_the_answers_it_found_stale(tmp_path: Path) -> None:
    audited = "bm25+audit"
    scores = [
        score("a", 1, True, system=audited),
        score("b", 1, False, system=audited),
        score("c", 1, True, system=audited, changed=False, sampled=True, last_change=0),
    ]
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    log = _answer_audit_log(
        tmp_path / f"w1/audit/src/{audited}/answer-audits.parquet",
        [("a-1", "STALE"), ("b-1", "UNKNOWN")],
    )
    con = open_study(tmp_path / "s.parquet", [log])
    found = dict(con.execute("SELECT probe_id, detected FROM item_times").fetchall())
    assert found == {"a-1": True, "b-1": False, "c-1": False}
    measures.compute(con, Resampling(draws=20))
    rows = measures.measures_table(con).to_pylist()
    mine = {r["measure"]: r for r in rows if r["item_class"] == "all" and r["cause"] == "all"}
    assert (mine["m"]["estimate"], mine["r"]["estimate"], mine["a"]["estimate"]) == (0.5, 1.0, 0.0)
    assert mine["unchanged_invalidated"]["estimate"] == 0.0
    assert measures.check_identity(rows) > 0
    with pytest.raises(MemshiftError, match=r"no log of their .*e.g. bm25\+audit"):
        open_study(tmp_path / "s.parquet", [])


def test_the_identity_check_catches_a_table_that_breaks_it(tmp_path: Path) -> None:
    scores = [score("a", 1, True), score("b", 1, False), score("c", 1, True)]
    rows, _ = _estimates(tmp_path, scores, [("a", 1, True)])
    broken = [
        {**r, "estimate": r["estimate"] + 0.01}
        if r["measure"] == "update" and r["item_class"] == "all" and r["cause"] == "all"
        else r
        for r in rows
    ]
    with pytest.raises(MemshiftError, match=r"Update = \(1 - m\) r \+ m a fails"):
        measures.check_identity(broken)


@pytest.mark.parametrize(
    ("m", "r", "a", "expected"),
    [(0.0, 0.5, None, 0.5), (1.0, None, 0.25, 0.25), (0.5, 1.0, 0.0, 0.5)],
)
def test_an_undefined_term_with_zero_weight_counts_as_zero(m, r, a, expected) -> None:
    assert measures.decomposed(m, r, a) == expected


def test_an_undefined_term_with_weight_is_an_error() -> None:
    with pytest.raises(MemshiftError, match="r is undefined"):
        measures.decomposed(0.5, None, 0.5)


def test_the_delta_yield_counts_new_items_written_since_the_last_change(tmp_path: Path) -> None:
    cell = "holdmem-d1-append"
    scores = [
        score("a", 4, True, system=cell, last_change=3),  # new item at 3: yielded
        score("b", 4, False, system=cell, last_change=3),  # new item at 2 only: before the change
        score("c", 2, False, system=cell, last_change=2),  # asked, nothing new: not yielded
        score("d", 4, True, system=cell, last_change=4, item_class="definition"),  # at 4: yielded
        score("e", 4, True, system=cell, changed=False, sampled=True, last_change=0),
    ]
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    columns = schemas.empty_columns(schemas.MAINTENANCE)
    for item, checkpoint, new in (("a", 3, True), ("b", 2, True), ("c", 2, False), ("d", 4, True)):
        for name, value in (
            ("item_id", item),
            ("checkpoint", checkpoint),
            ("invalidated", False),
            ("reason", "new or changed records"),
            ("key_before", ""),
            ("key_after", ""),
            ("rederived", new),
            ("write_id", f"{item}@{checkpoint}:delta"),
        ):
            columns[name].append(value)
    log = tmp_path / "w1/detections/src/holdmem-append/maintenance.parquet"
    write_table(pa.Table.from_pydict(columns, schema=schemas.MAINTENANCE), schemas.MAINTENANCE, log)
    con = open_study(tmp_path / "s.parquet", [log])
    measures.compute(con, Resampling(draws=20))
    rows = {
        (r["item_class"], r["cause"]): r
        for r in measures.measures_table(con).to_pylist()
        if r["measure"] == "delta_yield"
    }
    assert (rows[("all", "all")]["numerator"], rows[("all", "all")]["n"]) == (2, 4)
    assert (rows[("definition", "all")]["numerator"], rows[("definition", "all")]["n"]) == (1, 1)


def _reported_log(path: Path, rows: list[tuple[str, int]]) -> Path:
    table = pa.Table.from_pylist(
        [
            {"item_id": item, "checkpoint": k, "invalidated": True, "reason": "mine"}
            for item, k in rows
        ],
        schema=schemas.INVALIDATIONS,
    )
    write_table(table, schemas.INVALIDATIONS, path)
    return path


def test_any_system_with_an_invalidation_log_gets_m_r_and_a(tmp_path: Path) -> None:
    """A custom system's (or an imported memory's) own log decides its detections, with the
    same window as HoldMem's: from the interval of the gold's last change to the probe."""
    scores = [
        score("a", 2, True, system="mine", last_change=2),  # reported at 2: detected
        score("b", 2, False, system="mine", last_change=2),  # reported at 1 only: too early
        score("c", 2, True, system="mine", last_change=1),  # not reported: missed
        score("d", 2, False, system="mine", last_change=1),
        score("a", 2, True, system="bm25", last_change=2),  # no log: Update only
    ]
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    log = _reported_log(tmp_path / "w1/src/mine/invalidations.parquet", [("a", 2), ("b", 1)])
    con = open_study(tmp_path / "s.parquet", [log])
    found = dict(con.execute("SELECT system || probe_id, detected FROM item_times").fetchall())
    assert found == {
        "mine" + "a-2": True,
        "mine" + "b-2": False,
        "mine" + "c-2": False,
        "mine" + "d-2": False,
        "bm25" + "a-2": None,
    }
    measures.compute(con, Resampling(draws=20))
    rows = measures.measures_table(con).to_pylist()
    mine = {
        r["measure"]: r["estimate"]
        for r in rows
        if r["system"] == "mine" and r["item_class"] == "all" and r["cause"] == "all"
    }
    assert (mine["update"], mine["m"], mine["r"], mine["a"]) == (0.5, 0.75, 1.0, 1 / 3)
    assert measures.check_identity(rows) > 0
    assert not [r for r in rows if r["system"] == "bm25" and r["measure"] == "m"]


def test_a_system_with_a_log_on_one_branch_needs_it_on_every_branch(tmp_path: Path) -> None:
    scores = [score("a", 2, True, system="pm-d1-source-ext", branch=b) for b in ("src", "del")]
    scores += [score("a", 2, True, system="mine", branch=b) for b in ("src", "del")]
    write_table(
        pa.Table.from_pylist(scores, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    mine = _reported_log(tmp_path / "w1/src/mine/invalidations.parquet", [])
    imported = [
        _reported_log(tmp_path / f"w1/{b}/pm-d1-source-ext/invalidations.parquet", [])
        for b in ("src", "del")
    ]
    with pytest.raises(MemshiftError, match=r"1 scored system\(s\) .*e.g. mine on branch del"):
        open_study(tmp_path / "s.parquet", [mine, *imported])
    # an imported memory always reports: without its log the report refuses it
    with pytest.raises(MemshiftError, match=r"e.g. pm-d1-source-ext on branch del"):
        open_study(tmp_path / "s.parquet", [imported[0]])


def test_implicit_probes_stay_out_of_the_shifts_measures_and_the_unshifted_census(tmp_path):
    from memshift.analysis.unshifted import census_systems

    scores = [
        score("a", 1, True, system="bm25", branch="none", changed=False, sampled=True),
        score(
            "a",
            1,
            False,
            system="bm25",
            branch="none",
            changed=False,
            sampled=False,
            kind="implicit",
            probe_id="a-1-implicit",
        ),
    ]
    con = opened(tmp_path, scores, [])
    assert con.execute("SELECT probe_id FROM item_times").fetchall() == [("a-1",)]
    # an implicit probe is neither changed nor sampled, yet it is no unshifted census answer
    assert census_systems(con) == []
