"""The report over fewer than five worlds: estimates only, flagged in every table."""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from memshift.analysis import contrasts, diagnostics, measures
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.report.markdown import Header, render
from memshift.rng import stream
from memshift_tools.bench.simulated import KEY, OTHER, Population, item_times, simulate

RESAMPLING = Resampling(draws=200, seed=1)
ESTIMATE = re.compile(r"[+-]?\d+\.\d( pp)? [\[(]")  # a printed estimate and what follows it
EFFECT = contrasts.Contrast("B", "source", "D=0", ((KEY, 1), (OTHER, -1)))


def tables(worlds: int) -> tuple[pa.Table, pa.Table]:
    """Measures and contrasts of one simulated study on the src branch."""
    outcomes = simulate(Population(), (30,), 1, worlds, stream(worlds, "markdown"))
    table = item_times(outcomes)
    table = table.set_column(
        table.schema.get_field_index("branch"), "branch", pa.array(["src"] * table.num_rows)
    )
    con = duckdb.connect(":memory:")
    con.register("simulated", table)
    con.execute("CREATE TABLE item_times AS SELECT * FROM simulated")
    measures.compute(con, RESAMPLING)
    return measures.measures_table(con), contrasts.compute(con, [EFFECT], RESAMPLING)


def report(worlds: int) -> str:
    measure_table, contrast_table = tables(worlds)
    header = Header("test", "rules", "rules", list(range(worlds)), 200, 1)
    floor = {"estimate": -0.01, "low": None, "high": None}  # as summarize gives it below 5
    tests = [diagnostics.row("utility floor", KEY, "oracle", floor, -0.03, True, "lower bound")]
    tests = tests if worlds < MIN_WORLDS else []
    return render(header, measure_table.to_pylist(), contrast_table.to_pylist(), tests, 0)


def table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]


@pytest.mark.parametrize("worlds", [1, 2, MIN_WORLDS - 1])
def test_fewer_than_five_worlds_give_estimates_without_intervals(worlds: int) -> None:
    measure_table, contrast_table = tables(worlds)
    for table in (measure_table, contrast_table):
        estimated = table.filter(pc.is_valid(table["estimate"]))
        assert estimated.num_rows
        assert pc.all(pc.is_null(estimated["low"])).as_py()
        assert pc.all(pc.is_null(estimated["high"])).as_py()
        assert pc.all(pc.less(estimated["worlds"], MIN_WORLDS)).as_py()
    assert pc.all(pc.is_null(contrast_table["p_one_sided"])).as_py()
    family = contrast_table.filter(contrast_table["in_family"])
    assert family.num_rows and pc.all(pc.is_null(family["holm"])).as_py()
    assert pc.all(pc.is_null(family["bh"])).as_py()


def test_a_small_study_is_flagged_at_the_top_and_in_every_table() -> None:
    text = report(2)
    assert text.split("\n")[2].startswith("> **Warning: 2 worlds, fewer than 5.**")
    measure_lines = [line for line in table_lines(text) if not line.startswith("| utility")]
    cells = [cell for line in measure_lines for cell in line.strip("| ").split(" | ")]
    estimates = [cell for cell in cells if ESTIMATE.match(cell)]
    # said once, atop: no cell repeats that it has no interval
    assert "every cell shows the estimate alone" in text.split("\n")[2]
    assert estimates and not any("interval" in cell or "[" in cell for cell in estimates)
    # the Update contrasts (the family's table has the Holm and BH columns)
    contrast_rows = [
        line for line in table_lines(text) if line.startswith("| B |") and line.count("|") == 10
    ]
    assert contrast_rows and all(line.count("not meaningful") == 2 for line in contrast_rows)
    floor = next(line for line in table_lines(text) if line.startswith("| utility floor |"))
    assert "| -1.0 pp |" in floor
    assert "| — | lower bound; no interval: fewer than 5 worlds |" in floor


def test_a_study_of_enough_worlds_has_intervals_and_no_warning() -> None:
    text = report(MIN_WORLDS)
    lines = table_lines(text)
    assert "Warning" not in text
    assert not any("no interval" in line or "not meaningful" in line for line in lines)
    row = next(line for line in lines if line.startswith(f"| {KEY} | {30 * MIN_WORLDS} |"))
    update, m, from_fork, r, a = row.strip("| ").split(" | ")[2:7]
    assert all(ESTIMATE.match(cell) and "[" in cell for cell in (update, m, from_fork, r, a))


def test_the_papers_table_18_stands_beside_the_plain_contrasts_only() -> None:
    from memshift.report.markdown import measure_contrast_table

    def row(contrast: str, setting: str, measure: str, estimate: float) -> dict:
        return {
            "contrast": contrast,
            "detection": "source",
            "setting": setting,
            "branch": "def",
            "item_class": "all",
            "measure": measure,
            "estimate": estimate,
            "low": estimate,
            "high": estimate,
        }

    text = measure_contrast_table(
        [
            row("D", "B=source", "rederived_accuracy", 0.229),
            row("D", "B=source, D=check", "rederived_accuracy", 0.0),
            row("B", "D=1", "detection", 1.0),
        ],
        "def",
    )
    lines = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert "+22.9 pp [+22.9, +22.9] (paper +33.1)" in lines[0]
    assert "paper" not in lines[1]  # the check-only control has no Table 18 row
    assert "+100.0 pp [+100.0, +100.0] (paper +100.0)" in lines[2]


def test_the_report_opens_with_a_headline_a_contents_list_and_a_legend() -> None:
    from memshift.report.legend import anchor
    from memshift.report.markdown import Index, interval

    measure_table, _ = tables(MIN_WORLDS)
    text = report(MIN_WORLDS)
    sections = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert sections[:3] == ["In short", "Contents", "Legend"]
    # every section is listed, linked by the anchor a Markdown viewer gives its heading
    listed = text.split("## Contents\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert listed == [f"- [{title}](#{anchor(title)})" for title in sections if title != "Contents"]
    assert anchor("Source revision (`src`)") == "source-revision-src"
    # the headline's best system on the shift is the one of highest Update, as the table shows it
    index = Index(measure_table.to_pylist())
    memories = [s for s in index.systems if s != "oracle"]  # the ceiling is not ranked
    best = max(memories, key=lambda s: index.get(s, "src", "update")["estimate"])
    headline = next(line for line in table_lines(text) if line.startswith("| source revision |"))
    assert f"`{best}` {interval(index.get(best, 'src', 'update'))}" in headline
    # the legend names every system of the Update table
    legend = text.split("## Legend\n\n", 1)[1].split("\n## ", 1)[0]
    assert all(f"| `{system}` |" in legend for system in index.systems)


def test_the_headlines_best_system_leaves_the_oracle_aside_and_names_the_floors() -> None:
    from memshift.report.legend import in_short

    shown = {"oracle": "100.0", "holdmem-d1-source": "91.2", "bm25": "60.3",
             "always-abstain": "7.6", "frozen-at-fork": "0.8"}  # fmt: skip
    lines = in_short(20, ["none", "src"], list(shown), lambda s, b: shown[s])
    row = next(line for line in lines if line.startswith("| source revision |"))
    assert row == "| source revision | `holdmem-d1-source` 91.2 | 91.2 | 7.6 | 0.8 |"
    assert "20 worlds, 1 shift (src)" in lines[2] and "3 systems" in lines[2]
