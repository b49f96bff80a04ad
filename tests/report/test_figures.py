"""The report figures: three fixed-size PNGs that survive missing pieces and rerun byte for byte."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from PIL import Image, ImageColor

from memshift import schemas
from memshift.report.figures import (
    BLUE,
    CHANGED_OUTCOMES,
    CONTRASTS_BY_CLASS,
    DPI,
    EFFECTS,
    FLOOR_ALPHA,
    GREEN,
    GREY,
    INCHES,
    ORANGE,
    OUTCOMES,
    PURPLE,
    SHARES,
    UPDATE_BY_WEEK,
    UPDATE_STABILITY,
    VERMILLION,
    effect_points,
    ordered_systems,
    overall_estimates,
    system_layout,
    write_figures,
)

BACKEND = "rules (rule-based, not a language model)"
CELLS = [f"holdmem-d{d}-{b}" for b in ("append", "source", "citation") for d in ("0", "1")]
SYSTEMS = [*CELLS, "bm25", "rag", "oracle", "my-memory"]
BRANCHES = ("none", "src", "def", "del")
ITEM_CLASSES = ("all", "definition", "other", "free text")
SETTINGS = (("B", "D=0"), ("B", "D=1"), ("B", "D=m"), ("D", "B=append"), ("BxD", "D=1"))
Row = dict[str, Any]


def measure_row(
    system: str, branch: str, item_class: str, measure: str, share: float | None
) -> Row:
    bounds = (None, None) if share is None else (max(share - 0.08, 0.0), min(share + 0.08, 1.0))
    return {
        "system": system,
        "branch": branch,
        "item_class": item_class,
        "cause": "all",
        "measure": measure,
        "estimate": share,
        "low": bounds[0],
        "high": bounds[1],
        "numerator": None if share is None else round(share * 200),
        "n": 0 if share is None else 200,
        "worlds": 5,
    }


def system_measures(rng: random.Random, system: str, branch: str) -> dict[str, float | None]:
    update = None if branch == "none" else rng.uniform(0.2, 0.95)
    shares = {"update": update, "stability": rng.uniform(0.7, 1.0), "right": update}
    if system not in CELLS:
        return {**shares, "wrong": None if update is None else 1 - update}
    rederived = None if update is None else (1 - update) * rng.uniform(0.2, 0.8)
    missed = None if update is None or rederived is None else 1 - update - rederived
    return {**shares, "wrong_rederived": rederived, "wrong_missed": missed}


def synthetic_measures(seed: int = 7) -> pa.Table:
    rng = random.Random(seed)
    rows = [
        measure_row(system, branch, item_class, measure, share)
        for system in SYSTEMS
        for branch in BRANCHES
        for item_class in ("all", "definition")
        for measure, share in system_measures(rng, system, branch).items()
    ]
    return pa.Table.from_pylist(rows, schema=schemas.MEASURES)


def contrast_row(
    rng: random.Random, effect: tuple[str, str], key: str, branch: str, item_class: str
) -> Row:
    estimate = rng.uniform(-0.2, 0.45)
    undefined = branch == "del" and item_class == "free text"
    return {
        "contrast": effect[0],
        "detection": key,
        "setting": effect[1],
        "branch": branch,
        "item_class": item_class,
        "measure": "update",
        "estimate": None if undefined else estimate,
        "low": None if undefined else estimate - 0.12,
        "high": None if undefined else estimate + 0.12,
        "p_one_sided": None if undefined else 0.5 - estimate,
        "n": 0 if undefined else 120,
        "in_family": True,
        "holm": None if undefined else estimate > 0.15,
        "bh": not undefined and estimate > 0.1,
    }


def synthetic_contrasts(seed: int = 11) -> pa.Table:
    rng = random.Random(seed)
    rows = [
        contrast_row(rng, effect, key, branch, item_class)
        for key in ("source", "citation")
        for branch in BRANCHES
        for item_class in ITEM_CLASSES
        for effect in SETTINGS
    ]
    return pa.Table.from_pylist(rows, schema=schemas.CONTRASTS)


def without(table: pa.Table, columns: tuple[str, ...], *, branch: str) -> pa.Table:
    nulls = dict.fromkeys(columns)
    rows = [{**row, **nulls} if row["branch"] == branch else row for row in table.to_pylist()]
    return pa.Table.from_pylist(rows, schema=table.schema)


def without_estimates(table: pa.Table, *, branch: str) -> pa.Table:
    return without(table, ("estimate", "low", "high"), branch=branch)


def pixel_size(path: Path) -> tuple[int, int]:
    width, height = INCHES[path.name]
    return round(width * DPI), round(height * DPI)


def colors(path: Path) -> set[tuple[int, int, int]]:
    with Image.open(path) as image:
        assert image.format == "PNG"
        counted = image.convert("RGB").getcolors(maxcolors=1 << 24)
    return {color for _, color in counted}


def assert_valid_pngs(paths: list[Path]) -> None:
    assert [p.name for p in paths] == [UPDATE_STABILITY, CHANGED_OUTCOMES, CONTRASTS_BY_CLASS]
    for path in paths:
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert image.size == pixel_size(path)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("figures")
    return write_figures(synthetic_measures(), synthetic_contrasts(), out, BACKEND)


def test_three_pngs_of_the_fixed_pixel_size(written):
    assert_valid_pngs(written)


def test_every_figure_draws_its_series_colors(written):
    expected = {
        UPDATE_STABILITY: {BLUE, ORANGE},
        CHANGED_OUTCOMES: {GREEN, ORANGE, VERMILLION, GREY},
        CONTRASTS_BY_CLASS: {BLUE, ORANGE, PURPLE},
    }
    for path in written:
        drawn = colors(path)
        assert len(drawn) > 100
        assert {ImageColor.getrgb(c) for c in expected[path.name]} <= drawn


def test_a_rerun_writes_the_same_bytes(written, tmp_path):
    again = write_figures(synthetic_measures(), synthetic_contrasts(), tmp_path, BACKEND)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]


def test_null_estimates_and_no_contrasts_still_give_every_figure(tmp_path):
    measures = without_estimates(synthetic_measures(), branch="def")
    measures = without(measures, ("low", "high"), branch="src")
    paths = write_figures(measures, schemas.CONTRASTS.empty_table(), tmp_path, BACKEND)
    assert_valid_pngs(paths)
    assert all(len(colors(p)) > 10 for p in paths)


def test_empty_tables_still_give_every_figure(tmp_path):
    empty = schemas.MEASURES.empty_table(), schemas.CONTRASTS.empty_table()
    assert_valid_pngs(write_figures(*empty, tmp_path / "new" / "dir", BACKEND))


def test_branches_without_a_defined_estimate_get_no_panel():
    measures = without_estimates(synthetic_measures(), branch="def")
    layout = system_layout(overall_estimates(measures, OUTCOMES))
    assert layout.branches == ["src", "del"]
    assert layout.undefined_branches == ["none", "def"]
    shares = system_layout(overall_estimates(measures, SHARES))
    assert shares.branches == ["none", "src", "del"]


def test_contrast_points_are_defined_b_and_bxd_effects_on_update_off_the_none_branch():
    points = effect_points(synthetic_contrasts())
    assert {branch for branch, _, _, _ in points} == {"src", "def", "del"}
    assert [e.label for e in EFFECTS if e in {effect for *_, effect in points}] == [
        "B effect at D=0",
        "B effect at D=1",
        "B effect at D=m",
        "B×D (D=1)",
    ]
    assert not [key for key in points if key[0] == "del" and key[2] == "free text"]


def test_systems_run_from_holdmem_cells_by_detection_to_baselines_then_custom():
    shuffled = ["my-memory", "rag", "holdmem-dm-source", "oracle", "holdmem-d1-append"]
    shuffled += ["holdmem-d0-source", "bm25", "holdmem-d0-audit", "holdmem-d0-append"]
    shuffled += ["bm25+audit", "holdmem-source", "holdmem", "holdmem-d0-append+audit"]
    assert ordered_systems(shuffled) == [
        "holdmem",  # callers in the cost table: the store before the fork, then a detection
        "holdmem-d0-append",
        "holdmem-d0-append+audit",
        "holdmem-d1-append",
        "holdmem-source",
        "holdmem-d0-source",
        "holdmem-dm-source",
        "holdmem-d0-audit",
        "bm25",
        "bm25+audit",
        "rag",
        "oracle",
        "my-memory",
    ]


def by_checkpoint(systems: list[str]) -> pa.Table:
    """Update at every checkpoint of two shifts; the floor's is zero, as always-abstain's is
    where no gold abstains."""
    rows = [
        {"system": system, "branch": branch, "checkpoint": k, "measure": "update",
         "estimate": 0.0 if system == "always-abstain" else 0.2 + 0.1 * k, "low": None,
         "high": None, "numerator": 1, "n": 2, "worlds": 1}
        for system in systems for branch in ("src", "del") for k in range(5)
    ]  # fmt: skip
    return pa.Table.from_pylist(rows, schema=schemas.MEASURES_BY_CHECKPOINT)


def test_update_over_the_weeks_draws_a_line_per_system_and_the_floor_at_zero(tmp_path):
    systems = ["holdmem-d1-source", "bm25", "always-abstain"]
    paths = write_figures(
        synthetic_measures(), synthetic_contrasts(), tmp_path, BACKEND, by_checkpoint(systems)
    )
    assert [p.name for p in paths][-1] == UPDATE_BY_WEEK
    weeks = paths[-1]
    with Image.open(weeks) as image:
        assert image.size == pixel_size(weeks)
    # the systems' first two colors, and the floor's line (at 0%) in its own color
    drawn = colors(weeks)
    assert {ImageColor.getrgb(c) for c in (BLUE, ORANGE)} <= drawn
    assert any(_near(c, ImageColor.getrgb(VERMILLION)) for c in drawn)
    again = write_figures(
        synthetic_measures(), synthetic_contrasts(), tmp_path / "again", BACKEND,
        by_checkpoint(systems),
    )  # fmt: skip
    assert again[-1].read_bytes() == weeks.read_bytes()


def _near(color: tuple[int, int, int], target: tuple[int, int, int]) -> bool:
    """The floor's line color as drawn: its own at FLOOR_ALPHA over the white ground."""
    over_white = [255 - FLOOR_ALPHA * (255 - t) for t in target]
    return all(abs(c - w) <= 2 for c, w in zip(color, over_white, strict=True))
