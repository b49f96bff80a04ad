"""One vocabulary: the config schema, the model profiles' schema, the Snakefile's wildcards and the
report take their names from the registry and the vocabulary, and a test keeps the schema's lists
(written out so that a study's typo fails with the choices) equal to them."""

from __future__ import annotations

from memshift import registry, vocabulary
from memshift.intake.reading import config_schema
from memshift.models.profiles import PROFILE_SCHEMA
from memshift.report.order import ordered_branches, ordered_systems


def test_the_config_schema_lists_exactly_the_vocabularys_names():
    props = config_schema()["properties"]
    systems = props["systems"]["properties"]
    holdmem = systems["holdmem"]["properties"]
    assert holdmem["detections"]["items"]["enum"] == list(vocabulary.DETECTIONS)
    assert holdmem["repairs"]["items"]["enum"] == list(vocabulary.REPAIRS)
    assert systems["baselines"]["items"]["enum"] == list(vocabulary.BASELINES)
    assert props["branches"]["items"]["enum"] == list(vocabulary.BRANCHES)
    arms = props["export"]["properties"]["arms"]
    assert arms["items"]["enum"] == arms["default"] == list(vocabulary.EXPORT_ARMS)


def test_every_default_name_is_a_known_one():
    props = config_schema()["properties"]
    holdmem = props["systems"]["properties"]["holdmem"]["properties"]
    assert set(holdmem["detections"]["default"]) <= set(vocabulary.DETECTIONS)
    assert set(holdmem["repairs"]["default"]) <= set(vocabulary.REPAIRS)
    assert set(props["systems"]["properties"]["baselines"]["default"]) <= set(vocabulary.BASELINES)


def test_profiles_choose_among_the_registered_backends():
    backend = PROFILE_SCHEMA["properties"]["backend"]["enum"]
    assert backend == list(registry.BACKENDS)


def test_every_registry_entry_loads():
    for shift in registry.SHIFTS.values():
        assert callable(registry.load(shift.builder))
    for table in (
        registry.SYSTEMS,
        registry.BACKENDS,
        registry.SIMULATED_ROLES,
        registry.DETECTION_STEPS,
    ):
        for entry in table.values():
            assert callable(registry.load(entry)), entry


def test_the_system_name_grammar_round_trips():
    for detection in vocabulary.DETECTIONS:
        for repair in vocabulary.REPAIRS:
            cell = vocabulary.cell_system(detection, repair)
            assert vocabulary.cell_parts(cell) == (repair, detection)
            assert vocabulary.audited_base(vocabulary.audited_system(cell)) == cell
            for arm in vocabulary.EXPORT_ARMS:
                imported = vocabulary.portable_system(cell, arm)
                assert vocabulary.portable_parts(imported) == (cell, arm)
                assert vocabulary.cell_parts(imported) is None
    assert vocabulary.cell_parts("bm25") is None
    assert vocabulary.audited_base("bm25") is None
    assert vocabulary.is_reserved("holdmem-mine") and vocabulary.is_reserved("rag")
    assert vocabulary.is_reserved("pm-d1-source-ext") and vocabulary.portable_parts("bm25") is None
    assert not vocabulary.is_reserved("mine")


def test_the_report_orders_by_the_vocabulary():
    assert ordered_branches(["del", "none", "src"]) == ["none", "src", "del"]
    cells = [vocabulary.cell_system(d, "0") for d in reversed(vocabulary.DETECTIONS)]
    assert ordered_systems(["mine", "rag", "bm25", *cells]) == [
        *[vocabulary.cell_system(d, "0") for d in vocabulary.DETECTIONS],
        "bm25",
        "rag",
        "mine",
    ]
