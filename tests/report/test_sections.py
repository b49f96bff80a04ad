"""The report's sections as one registry: every entry names a module with `compute` and
`render`, its tables' schemas exist and no table is named twice; a study's conditions choose
the sections; the Snakefile's report outputs are the registry's tables."""

from __future__ import annotations

import importlib
import itertools

import pyarrow as pa
import pytest

from memshift import schemas
from memshift.report import sections
from memshift.stages.report import table_schemas


def test_every_section_module_computes_and_renders():
    for entry in sections.SECTIONS:
        module = importlib.import_module(sections.module_name(entry))
        assert callable(module.compute) and callable(module.render), entry.module
        assert entry.when in sections.CONDITIONS


def test_every_table_has_a_schema_and_one_name():
    every = [*sections.BODY, *(t for s in sections.SECTIONS for t in s.tables)]
    names = [t.name for t in every]
    assert len(names) == len(set(names))
    found = table_schemas(list(sections.CONDITIONS[1:]))
    assert set(found) == set(names)
    assert all(isinstance(schema, pa.Schema) for schema in found.values())
    for table in sections.BODY:
        assert found[table.name] is getattr(schemas, table.schema)


@pytest.mark.parametrize(
    "conditions",
    [
        list(c)
        for n in range(4)
        for c in itertools.combinations((sections.SYNC, sections.SWITCH, sections.EXPORT), n)
    ],
)
def test_a_studys_conditions_choose_its_sections_tables(conditions):
    chosen = sections.tables(conditions)
    met = {sections.ALWAYS, *conditions}
    expected = [*sections.BODY, *(t for s in sections.SECTIONS if s.when in met for t in s.tables)]
    assert list(chosen) == expected
    assert set(table_schemas(conditions)) == {t.name for t in chosen}


def test_an_unknown_condition_is_refused():
    with pytest.raises(ValueError, match="unknown report conditions"):
        sections.applying(["weekly"])


def test_a_section_computing_other_tables_than_its_entry_declares_is_stopped(monkeypatch):
    import sys
    import types

    from memshift.errors import MemshiftError
    from memshift.stages.report import run_sections

    fake = types.ModuleType("memshift.report.fake")
    fake.compute = lambda inputs: {"made": pa.table({"n": [1]})}
    fake.render = lambda rows, inputs: "## Fake"
    monkeypatch.setitem(sys.modules, "memshift.report.fake", fake)
    entry = sections.Section("fake", (sections.Table("declared", "MEASURES", "Fake"),))
    monkeypatch.setattr(sections, "SECTIONS", (entry,))
    with pytest.raises(MemshiftError, match=r"fake computed \['made'\].*declares \['declared'\]"):
        run_sections(None, [], {})
    right = sections.Section("fake", (sections.Table("made", "MEASURES", "Fake"),))
    monkeypatch.setattr(sections, "SECTIONS", (right,))
    tables: dict = {}
    assert run_sections(None, [], tables) == ["## Fake"]
    assert list(tables) == ["made"]
