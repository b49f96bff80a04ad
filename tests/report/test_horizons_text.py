"""The horizons report's text: one column per horizon, a row per system that has one, and a
dash where a horizon has no estimate."""

from __future__ import annotations

from memshift.studies.horizons import report as horizons


def estimate(value: float) -> dict:
    return {"estimate": value, "low": value - 0.01, "high": value + 0.01, "n": 5, "p": None}


def tables() -> dict[str, list[dict]]:
    ratio = f"{horizons.STORED}/{horizons.NO_STORE}"
    return {
        "horizon_worlds": [
            {"horizon_months": m, "worlds": 3, "events_per_world": 1000.0 * m,
             "tokens_per_world": 1e5 * m}
            for m in (1, 3, 9)
        ],
        "horizon_contrasts": [{"horizon_months": 9, "contrast": "B effect", **estimate(0.02)}],
        "horizons": [
            {"measure": "before_shift", "branch": "none", "item_class": "all", "system": "bm25",
             "horizon_months": m, **estimate(0.8)}
            for m in (1, 3)
        ],
        "horizon_costs": [
            {"system": "bm25", "part": part, "horizon_months": 9, **estimate(100.0)}
            for part in (*horizons.PARTS, horizons.TOTAL)
        ] + [{"system": ratio, "part": horizons.RATIO, "horizon_months": 1, **estimate(0.5)}],
        "horizon_diagnostics": [
            {"test": "utility floor", "system": "bm25", "horizon_months": 1, "passed": False,
             **estimate(-0.05)},
            {"test": "utility floor", "system": horizons.STORED, "horizon_months": 3,
             "passed": True, **estimate(0.04)},
            {"test": "utility floor without definition items", "system": horizons.STORED,
             "horizon_months": 3, "passed": False, **estimate(-0.035)},
        ],
    }  # fmt: skip


def section(text: str, title: str) -> list[str]:
    body = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("| ") and "---" not in line]


def test_each_table_has_a_row_per_system_and_horizon_it_has_and_a_dash_for_the_rest():
    text = horizons.render("s", tables())
    [header, bm25] = section(text, "Accuracy before any shift (unshifted branch)")
    assert header.count("month world") == 3
    assert bm25.startswith("| bm25 |") and bm25.count("[") == 2 and bm25.endswith("| — |")
    [_, cost] = section(text, "Tokens per query")[:2]
    assert cost.startswith("| bm25 | 9 (12-month world) |")
    assert cost.count("[") == len(horizons.PARTS) + 1
    [_, bm25_floor, stored_floor] = section(text, "The utility floor")
    # without the test on the other items: no decision and no part
    assert bm25_floor.split(" | ")[3:] == ["failed", "—", "no decision", "— |"]
    # the definition items' part is the difference of the two estimates, beside the paper's
    assert stored_floor.split(" | ")[3:] == [
        "passed",
        "-3.5 pp [-4.5, -2.5]",
        "failed",
        "+7.5 (paper +6.9) |",
    ]
    assert len(section(text, "The worlds")) == 4
