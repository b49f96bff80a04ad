"""The writer switch's measures on switch-score tables whose answers are known."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from memshift import schemas
from memshift.analysis.bootstrap import Resampling
from memshift.studies.switch import analysis as switch
from memshift.studies.switch.report import section

RESAMPLING = Resampling(draws=300, seed=4)
WORLDS = range(8)
ITEMS = 40  # per world: 10 definition items, 30 others


def scores(failures_d0: int, *, append: bool = True) -> pa.Table:
    """Each world: every item correct before; at D=0 `failures_d0` definition items (which ones
    turns with the world) fail after the switch, at D=1 none does; an append cell re-derived
    nothing. A definition type's agreement falls as its index rises."""
    rows: list[dict[str, Any]] = []
    for world in WORLDS:
        for n in range(ITEMS):
            definition = n < 10
            base = {
                "world": world,
                "switch": "weak",
                "from": "rules",
                "to": "weak",
                "item_id": f"def.kind{n}" if definition else f"task{n}.due",
                "item_type": f"def.kind{n}" if definition else "task.due",
                "item_class": "definition" if definition else "other",
                "correct_before": True,
                "agreement": 0.95 - 0.03 * n if definition else 1.0,
                "acc_from": 1.0,
                "acc_to": 0.6 if definition else 1.0,
                "definition": definition,
            }
            failed = definition and (n + world) % 10 < failures_d0
            cells = {
                "holdmem-d0-source": (not failed, "not_checked"),
                "holdmem-d1-source": (True, "failed" if failed else "passed"),
            }
            if append:
                cells["holdmem-d0-append"] = (True, "not_rederived")
            for system, (after, check) in cells.items():
                rows.append(
                    {
                        **base,
                        "system": system,
                        "correct_after": after,
                        "survived": after,
                        "check": check,
                    }
                )
    return pa.Table.from_pylist(rows, schema=schemas.SWITCH_SCORES)


def retention_of(table: pa.Table) -> dict[str, dict[str, Any]]:
    con = switch.open_switches(table, RESAMPLING)
    return {r["system"]: r for r in switch.retention(con, RESAMPLING).to_pylist()}


def test_retention_is_the_share_of_correct_answers_kept_and_tested_at_97_percent():
    found = retention_of(scores(3))
    d0 = found["holdmem-d0-source"]
    assert d0["estimate"] == pytest.approx(1 - 3 / ITEMS)
    assert d0["survived"] == len(WORLDS) * (ITEMS - 3) and d0["passed"] is False
    assert d0["net_change"] == pytest.approx(-3 / ITEMS)
    assert found["holdmem-d1-source"]["passed"] is True
    append = found["holdmem-d0-append"]
    assert append["by_construction"] and append["passed"] is None and append["rederived"] == 0
    assert not retention_of(scores(0))["holdmem-d0-source"]["by_construction"]
    # 97.5% in every world: no spread between worlds, so the bound is 97.5% and it passes
    assert retention_of(scores(1))["holdmem-d0-source"]["passed"] is True


def test_the_diagnostics_rows_leave_a_cell_that_rederived_nothing_out_of_the_test():
    con = switch.open_switches(scores(3), RESAMPLING)
    rows = {r["system"]: r for r in switch.diagnostics_rows(switch.retention(con, RESAMPLING))}
    assert rows["holdmem-d0-append"]["passed"] is None
    assert "by construction" in rows["holdmem-d0-append"]["note"]
    assert rows["holdmem-d0-source"]["passed"] is False
    assert rows["holdmem-d0-source"]["reference"] == "switch weak: rules -> weak"


def test_survival_is_paired_by_item_between_the_repair_arms():
    con = switch.open_switches(scores(4), RESAMPLING)
    rows = {r["item_class"]: r for r in switch.survival(con, RESAMPLING).to_pylist()}
    assert rows["definition"]["survival_d0"] == pytest.approx(0.6)
    assert rows["definition"]["survival_d1"] == pytest.approx(1.0)
    assert rows["definition"]["difference"] == pytest.approx(0.4)
    assert rows["definition"]["checker_pass_d1"] == pytest.approx(0.6)
    assert rows["other"]["difference"] == pytest.approx(0.0)
    assert rows["all"]["items"] == len(WORLDS) * ITEMS


def test_predictors_are_oriented_so_that_higher_means_survival():
    table = switch.prediction(switch.prediction_rows(scores(4)), RESAMPLING).to_pylist()
    pooled = {r["predictor"]: r for r in table if r["scope"] == switch.POOLED}
    assert pooled["agreement"]["failures"] == 4 * len(WORLDS)
    # agreement is lower exactly on the types that fail: AUROC above one half
    assert pooled["agreement"]["auroc"] > 0.5 and pooled["not_definition"]["auroc"] > 0.5
    assert pooled["acc_from"]["auroc"] == pytest.approx(0.5)  # constant: no information
    assert pooled["agreement"]["usable"]
    few = switch.prediction(switch.prediction_rows(scores(1)), RESAMPLING).to_pylist()
    assert not any(r["usable"] for r in few)  # 8 failures, fewer than 10


def test_the_section_names_every_switch_cell_and_its_verdict():
    table = scores(3)
    con = switch.open_switches(table, RESAMPLING)
    text = section(
        switch.retention(con, RESAMPLING).to_pylist(),
        switch.survival(con, RESAMPLING).to_pylist(),
        switch.prediction(switch.prediction_rows(table), RESAMPLING).to_pylist(),
        switch.failures_by_class(switch.prediction_rows(table)),
        switch.accuracy_over_agreement(switch.prediction_rows(table), RESAMPLING),
    )
    assert "## Writer switch" in text
    assert "passes by construction" in text and "| fail |" in text
    assert "Failed items by class: 24 definition." in text


def test_a_pool_of_switches_is_its_own_scope():
    table = scores(4)
    rows = switch.prediction(
        switch.prediction_rows(table), RESAMPLING, {"tiers": ["weak"]}
    ).to_pylist()
    by_scope: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_scope.setdefault(r["scope"], []).append(r)
    assert set(by_scope) == {switch.POOLED, "tiers", "weak"}
    # a pool of the one switch holds the same items
    assert [r["n"] for r in by_scope["tiers"]] == [r["n"] for r in by_scope["weak"]]
    assert [r["auroc"] for r in by_scope["tiers"]] == [r["auroc"] for r in by_scope["weak"]]
