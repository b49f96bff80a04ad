"""The exported dataset: what a system in any language may read, and nothing it may not; the
same worlds give the same bytes."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.probes.build import measured
from memshift.probes.public import branch_label, public_id
from memshift.stages.chain import build_world
from memshift.studies.export.dataset import export_dataset
from memshift.world.stored import load

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
    assert counts["probes"] == probes.num_rows
    label = {b: branch_label(1000, b) for b in BRANCHES}
    assert len(set(label.values())) == len(BRANCHES)
    rows = probes.to_pylist()
    world = load(worlds / "w1000", with_events=False)
    checkpoints = len(world.timeline.checkpoints)
    for branch in BRANCHES:
        mine = [p for p in rows if p["branch"] == label[branch]]
        # every item at every checkpoint, whatever changed
        asked = {(p["item_id"], p["checkpoint"]) for p in mine if p["kind"] == "direct"}
        assert len(asked) == len(world.items) * checkpoints, branch
        # every probe the measures count is asked, under an id that names nothing of it
        counted = measured(read_table(layout.probes(worlds / "w1000", branch), schemas.PROBES))
        assert counted.num_rows < len(mine)
        ids = {p["probe_id"] for p in mine}
        assert all(re.fullmatch(r"w1000-[0-9a-f]{16}", i) for i in ids)
        for probe_id in counted.column("probe_id").to_pylist():
            # a held probe asks the words of the direct probe at its item-time: one question
            twin = probe_id.removesuffix("-held")
            assert public_id(1000, branch, twin) in ids, probe_id
    assert not {p["branch"] for p in rows} & set(BRANCHES)
    events = pq.read_table(tmp_path / "a/events.parquet").to_pylist()
    assert {e["branch"] for e in events} == set(label.values())
    # no unstated redefinition and no generator label reaches the dataset
    defines = [json.loads(e["fields"]) for e in events if e["op"] == "define"]
    assert defines and all(d["stated"] is True for d in defines)
    assert [e for e in events if e["op"] == "define" and e["branch"] == label["def"]]
    assert not {"event_id", "asserts", "component", "shift", "tokens"} & set(events[0])
    definitions = [p for p in rows if p["item_class"] == "definition"]
    unstated = [p for p in definitions if p["branch"] == label["undef"]]
    assert unstated and all(p["definition_version"] is None for p in unstated)
    named = [p for p in rows if p["branch"] == label["def"] and p["item_class"] == "definition"
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
