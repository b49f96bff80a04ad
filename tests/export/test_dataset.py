"""The exported dataset: what a system in any language may read, and nothing it may not; the
same worlds give the same bytes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.export.dataset import export_dataset
from memshift.probes import measured
from memshift.stages.chain import build_world

BRANCHES = ("none", "def", "cons", "undef")


@pytest.fixture(scope="module")
def worlds(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("worlds")
    build_world(1000, root / "w1000", BRANCHES)
    return root


def test_the_dataset_holds_the_public_view_and_no_gold(worlds, tmp_path):
    counts = export_dataset(worlds, [1000], BRANCHES, tmp_path / "a", "test")
    probes = pq.read_table(tmp_path / "a/probes.parquet")
    assert probes.schema.equals(schemas.PUBLIC_PROBES)
    expected = sum(
        measured(read_table(layout.probes(worlds / "w1000", b), schemas.PROBES)).num_rows
        for b in BRANCHES
    )
    assert counts["probes"] == probes.num_rows == expected
    events = pq.read_table(tmp_path / "a/events.parquet").to_pylist()
    # no unstated redefinition and no generator label reaches the dataset
    defines = [json.loads(e["fields"]) for e in events if e["op"] == "define"]
    assert defines and all(d["stated"] is True for d in defines)
    assert [e for e in events if e["op"] == "define" and e["branch"] == "def"]
    assert not {"event_id", "asserts", "component", "shift", "tokens"} & set(events[0])
    rows = probes.to_pylist()
    unstated = [p for p in rows if p["branch"] == "undef" and p["item_class"] == "definition"]
    assert unstated and all(p["definition_version"] is None for p in unstated)
    named = [p for p in rows if p["branch"] == "def" and p["item_class"] == "definition"
             and p["kind"] == "direct"]  # fmt: skip
    assert named and all(p["definition_version"] in (1, 2) for p in named)
    with gzip.open(tmp_path / "a/probes.jsonl.gz", "rt") as lines:
        assert [json.loads(line)["probe_id"] for line in lines] == [p["probe_id"] for p in rows]
    assert "gold answers" in (tmp_path / "a/DATASHEET.md").read_text()


def test_the_same_worlds_give_the_same_bytes(worlds, tmp_path):
    export_dataset(worlds, [1000], BRANCHES, tmp_path / "a", "test")
    export_dataset(worlds, [1000], BRANCHES, tmp_path / "b", "test")
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_unbuilt_worlds_are_named(worlds, tmp_path):
    with pytest.raises(MemshiftError, match=r"not built, first .*w1001"):
        export_dataset(worlds, [1000, 1001], BRANCHES, tmp_path / "a", "test")
