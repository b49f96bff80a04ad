"""The validation grid's writers are drawn, not chosen: the same seed gives the same writers,
their rates cover [0, 1]² one stratum each, and none is the paper-calibrated writer's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.config import DEFAULT_CONFIG, check_config, study_config
from memshift.errors import ConfigError
from memshift.models.profiles import load_profile, load_profiles
from memshift.studies.validation.grid_design_analysis import (
    ANCHORS,
    anchor_writers,
    drawn_writers,
    latin_hypercube,
    profile_entry,
)
from memshift.studies.validation.grid_stage import grid_plan, write_models
from memshift.world.items import ITEM_GROUPS

ROOT = Path(__file__).resolve().parents[2]
GRID_STUDY = ROOT / "config/studies/validation-grid.yaml"
MODELS = ROOT / "config/models.yaml"
PAPER_WRITER = "sim-qwen3.5-9b"


def committed_plan():
    config = check_config(study_config(DEFAULT_CONFIG, [GRID_STUDY]))
    return grid_plan(config["validation"], MODELS)


@settings(max_examples=80, deadline=None)
@given(count=st.integers(1, 60), seed=st.integers(0, 2**40))
def test_each_rate_has_one_writer_in_each_of_its_strata(count: int, seed: int) -> None:
    points = np.array(latin_hypercube(count, seed))
    assert points.shape == (count, 2)
    assert np.all((points >= 0) & (points < 1))
    for column in points.T:
        assert sorted(np.floor(column * count).astype(int)) == list(range(count))


@settings(max_examples=30, deadline=None)
@given(count=st.integers(2, 30), seed=st.integers(0, 2**40))
def test_the_same_seed_draws_the_same_writers_and_another_seed_others(count: int, seed: int):
    first, again = drawn_writers(count, seed), drawn_writers(count, seed)
    assert first == again
    other = drawn_writers(count, seed + 1)
    assert [w.errors for w in other] != [w.errors for w in first]
    assert len({w.seed for w in first}) == count  # each writer's errors from a seed of its own
    for writer in first:
        # one error rate and one overlook rate, the same on every class
        assert len({writer.error(g) for g in ITEM_GROUPS}) == 1
        assert len({writer.overlook(g) for g in ITEM_GROUPS}) == 1


def test_the_committed_grid_spreads_at_least_twelve_writers_over_the_whole_square() -> None:
    plan = committed_plan()
    rates = np.array([(w.error("definition"), w.overlook("definition")) for w in plan.drawn])
    assert len(rates) >= 12
    # every quarter of [0, 1]² holds a writer, and each rate spans most of its range
    quarters = {(bool(e >= 0.5), bool(o >= 0.5)) for e, o in rates}
    assert len(quarters) == 4
    assert np.all(rates.min(axis=0) < 1 / len(rates)) and np.all(rates.max(axis=0) > 0.9)
    corners = {(w.error("other"), w.overlook("other")) for w in plan.anchors}
    assert corners == set(ANCHORS.values()) == {(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)}
    assert plan.reference.name == "rules" and not plan.reference.errors


def test_no_drawn_rate_is_one_of_the_paper_calibrated_writers() -> None:
    plan = committed_plan()
    paper = load_profile(MODELS, PAPER_WRITER).error_model
    paper_rates = {
        *paper["rates"].values(),
        *paper["overlooks"].values(),
    }
    drawn = {
        rate for w in plan.drawn for table in (w.errors, w.overlooks) for rate in table.values()
    }
    assert not drawn & paper_rates
    # the paper's writer is a labelled point of the grid, not a source of its rates
    assert [w.name for w in plan.labelled] == [PAPER_WRITER]
    assert plan.labelled[0].error("definition") == paper["rates"]["definition"]


def test_the_grid_writers_are_profiles_memshift_loads(tmp_path: Path) -> None:
    plan = committed_plan()
    path = write_models(plan, MODELS, tmp_path)
    profiles = load_profiles(path)
    for writer in [*plan.anchors, *plan.drawn]:
        model = profiles[writer.name].error_model
        assert profiles[writer.name].backend == "rules"
        assert model["seed"] == writer.seed
        assert model.get("rates", {}) == (
            dict(writer.errors) if any(writer.errors.values()) else {}
        )
        assert model.get("overlooks", {}) == (
            dict(writer.overlooks) if any(writer.overlooks.values()) else {}
        )
    # every profile of the study's models file is still there, unchanged
    original = yaml.safe_load(MODELS.read_text())["profiles"]
    written = yaml.safe_load(path.read_text())["profiles"]
    assert {k: written[k] for k in original} == original
    before = path.read_bytes()
    write_models(plan, MODELS, tmp_path)
    assert path.read_bytes() == before


def test_a_grid_name_taken_by_a_profile_is_refused(tmp_path: Path) -> None:
    plan = committed_plan()
    models = tmp_path / "models.yaml"
    taken = {"profiles": {"rules": {"backend": "rules"}, "grid-01": {"backend": "rules"}}}
    models.write_text(yaml.safe_dump(taken))
    with pytest.raises(ConfigError, match="'grid-01' is a validation-grid writer's name"):
        write_models(plan, models, tmp_path / "out")


def test_the_anchors_sit_at_the_corners() -> None:
    for writer in anchor_writers(5):
        entry = profile_entry(writer)
        corner = ANCHORS[writer.name]
        assert (writer.error("free_text"), writer.overlook("free_text")) == corner
        assert entry["error_model"].get("rates", {}).get("definition", 0.0) == corner[0]
        assert entry["error_model"].get("overlooks", {}).get("definition", 0.0) == corner[1]
