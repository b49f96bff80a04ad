"""Study configuration: seed ranges and one-line errors naming the problem and the choices."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memshift.config import check_config, load_config, parse_seeds
from memshift.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_seed_ranges_lists_and_split_names():
    assert parse_seeds("1000-1003") == [1000, 1001, 1002, 1003]
    assert parse_seeds("0-2,900") == [0, 1, 2, 900]
    assert parse_seeds("test") == list(range(1000, 1020))
    assert parse_seeds(["dev", 42]) == [*range(10), 42]
    assert parse_seeds(7) == [7]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("10-2", "ends before it starts"),
        ("1000..1019", "is not a seed, a range 'A-B' or a split name (dev, calibration, test"),
        ("tests", "is not a seed"),
        ("1-3,2", "listed more than once"),
        ("-5", "is not a seed"),
        (True, "not a seed range"),
    ],
)
def test_bad_seed_ranges_name_the_problem(spec, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_seeds(spec)


def base_config():
    return {"study": "t", "worlds": {"seeds": "1-2"}, "branches": ["none", "src"]}


def test_the_shipped_configs_are_valid():
    for path in [ROOT / "config/config.yaml", *sorted((ROOT / "config/studies").glob("*.yaml"))]:
        assert load_config(path)["seed_list"], path


def test_every_preset_is_valid_as_snakemake_merges_it_over_the_default():
    snakemake_utils = pytest.importorskip("snakemake.utils")
    for path in sorted((ROOT / "config/studies").glob("*.yaml")):
        merged = yaml.safe_load((ROOT / "config/config.yaml").read_text())
        snakemake_utils.update_config(merged, yaml.safe_load(path.read_text()))
        assert check_config(merged)["seed_list"], path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c.update(extra=1), "config key 'extra' is not known; valid keys here: branches"),
        (lambda c: c["worlds"].update(seed=3), "config key 'worlds.seed' is not known; valid keys"),
        (
            lambda c: c.update(branches=["none", "sideways"]),
            "config branches.1: 'sideways' is not valid; choose one of none, src, def, del, cons",
        ),
        (lambda c: c["worlds"].update(history_months=6), "choose one of 1, 3, 9"),
        (lambda c: c["worlds"].update(seeds="a-b"), "seeds: 'a-b' is not a seed"),
        (lambda c: c.pop("branches"), "'branches' is a required property"),
        (
            lambda c: c.update(systems={"baselines": ["bm25"], "answer_audit": ["rag"]}),
            "systems.answer_audit: 'rag' is not a system of this study; choose from "
            "holdmem-d0-append, holdmem-d1-append",
        ),
    ],
)
def test_bad_config_gets_one_line_naming_the_problem(change, message):
    config = base_config()
    change(config)
    with pytest.raises(ConfigError) as info:
        check_config(config)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_answer_audited_systems_are_planned():
    config = {**base_config(), "systems": {"answer_audit": ["bm25", "holdmem-d1-source"]}}
    assert check_config(config)["system_plan"]["answer_audit"] == ["bm25", "holdmem-d1-source"]
    assert check_config(base_config())["system_plan"]["answer_audit"] == []


def test_an_unreadable_config_file_is_named(tmp_path):
    bad = tmp_path / "c.yaml"
    bad.write_text(yaml.safe_dump(["not", "a", "mapping"]))
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(bad)
