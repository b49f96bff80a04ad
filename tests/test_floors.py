"""The floors (memshift/scoring/floors.py): always-abstain and frozen-at-fork, answered without a
model beside every system, scored by the score stage and measured by the report's SQL and bootstrap.

On a one-month world (seed 1000, four branches) with the rule-based writer's pre-fork store:
always-abstain's Update and Stability are the shares of changed and unchanged item-times whose
gold abstains, counted here from the probes; frozen-at-fork serves the pre-fork store at every
checkpoint and never detects (m = 1 wherever an item changed); a pre-fork store that holds the
gold at the fork keeps every unchanged item-time and no changed one; and the floors leave every
other system's scores as they were."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from memshift import layout, schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import read_table, write_table
from memshift.cli import cli
from memshift.config import check_config
from memshift.definitions.catalog import FIXED_SET
from memshift.errors import ConfigError
from memshift.probes.build import measured
from memshift.report.markdown import Header, render
from memshift.report.order import ordered_systems
from memshift.scoring import floors
from memshift.scoring.scorer import score
from memshift.stages.score import run as score_run
from memshift.stages.specs import ModelAccess, PreforkJob, WorldJob
from memshift.vocabulary import ALWAYS_ABSTAIN, FLOORS, FROZEN_AT_FORK, is_reserved
from memshift.world.records import canonical_json
from memshift.world.stored import load

ROOT = Path(__file__).resolve().parents[1]
SEED = 1000
BRANCHES = ("none", "src", "def", "del")
DRAWS = Resampling(draws=20)


@dataclass(frozen=True)
class World:
    worlds: Path  # the worlds' folder
    run: Path  # the world's run folder, w1000
    echo: list[Path]  # a system that answers every probe it is asked with the gold

    @property
    def world_dir(self) -> Path:
        return self.worlds / f"w{SEED}"

    @property
    def prefork(self) -> Path:
        return layout.prefork(self.run)

    def asked(self, branch: str) -> pa.Table:
        """The probes every system is asked on `branch`."""
        return measured(read_table(layout.probes(self.world_dir, branch), schemas.PROBES))


def invoke(*args: str) -> None:
    done = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert done.exit_code == 0, done.output


def echo_answers(world: World, branch: str) -> Path:
    rows = schemas.empty_columns(schemas.ANSWERS)
    for p in world.asked(branch).to_pylist():
        for name, value in (
            ("probe_id", p["probe_id"]), ("world", SEED), ("branch", branch), ("system", "echo"),
            ("checkpoint", p["checkpoint"]), ("item_id", p["item_id"]),
            ("status", p["gold_status"]), ("value", p["gold_value"]), ("failure", None),
            ("evidence_items", 0), ("evidence_tokens", 0), ("evidence_hash", ""),
        ):  # fmt: skip
            rows[name].append(value)
    path = layout.table(layout.system_dir(world.run, branch, "echo"), layout.ANSWERS)
    write_table(pa.Table.from_pydict(rows, schema=schemas.ANSWERS), schemas.ANSWERS, path)
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("floors")
    worlds, run = root / "worlds", root / "run" / f"w{SEED}"
    world_dir = worlds / f"w{SEED}"
    invoke("job", "world", WorldJob(SEED, world_dir, 1, FIXED_SET, BRANCHES).to_json())
    access = ModelAccess({"writer": "rules"}, ROOT / "config/models.yaml", None)
    invoke("job", "prefork", PreforkJob(world_dir, run, access).to_json())
    found = World(worlds, run, [])
    found.echo.extend(echo_answers(found, branch) for branch in BRANCHES)
    return found


def scored(world: World, out: Path, run: Path | None = None) -> list[dict[str, Any]]:
    """The echo system's scores and the floors', from the pre-fork store of `run` (a run folder
    of the world: the echo system's answers are copied there), by default the rule-based
    writer's."""
    answers = world.echo
    if run is not None:
        answers = [run / p.relative_to(world.run) for p in world.echo]
        for source, copy in zip(world.echo, answers, strict=True):
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(source.read_bytes())
    score_run(answers, world.worlds, out, [layout.prefork(run or world.run)])
    return pq.read_table(out).to_pylist()


def measured_rows(scores: Path) -> Iterator[dict[str, Any]]:
    con = open_study(scores, [])
    measures.compute(con, DRAWS)
    rows = measures.measures_table(con).to_pylist()
    assert measures.check_identity(rows) > 0
    yield from rows


def overall(rows: Iterator[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(system, branch, measure) -> the row over every item class and cause."""
    return {
        (r["system"], r["branch"], r["measure"]): r
        for r in rows
        if r["item_class"] == "all" and r["cause"] == "all"
    }


@pytest.fixture(scope="module")
def report(world: World, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("scores") / "scores.parquet"
    rows = scored(world, out)
    table = list(measured_rows(out))
    return {"scores": rows, "measures": table, "overall": overall(iter(table)), "path": out}


def direct(table: pa.Table) -> list[dict[str, Any]]:
    return [p for p in table.to_pylist() if p["kind"] == "direct"]


def test_always_abstains_update_is_the_share_of_changed_item_times_whose_gold_abstains(
    world, report
):
    """Counted from the probes: after the deletion most changed item-times abstain, after the
    other shifts few; Stability is the same share of the sampled unchanged ones."""
    found = report["overall"]
    for branch in BRANCHES:
        probes = direct(world.asked(branch))
        changed = [p for p in probes if p["changed"]]
        unchanged = [p for p in probes if p["sampled"] and not p["changed"]]
        update = found[(ALWAYS_ABSTAIN, branch, "update")]
        abstaining = sum(p["gold_status"] == "abstain" for p in changed)
        assert (update["numerator"], update["n"]) == (abstaining, len(changed)) != (0, 0)
        assert update["estimate"] == pytest.approx(abstaining / len(changed))
        stability = found[(ALWAYS_ABSTAIN, branch, "stability")]
        kept = sum(p["gold_status"] == "abstain" for p in unchanged)
        assert (stability["numerator"], stability["n"]) == (kept, len(unchanged))
        # it detects nothing: m = 1, a = Update, r undefined
        assert found[(ALWAYS_ABSTAIN, branch, "m")]["estimate"] == 1.0
        assert found[(ALWAYS_ABSTAIN, branch, "a")]["estimate"] == update["estimate"]
        assert found[(ALWAYS_ABSTAIN, branch, "r")]["estimate"] is None
    deletion = found[(ALWAYS_ABSTAIN, "del", "update")]["estimate"]
    assert deletion > 0.5 > found[(ALWAYS_ABSTAIN, "src", "update")]["estimate"]
    # every probe it is asked (premise, implicit, unnamed too) is an abstention
    mine = [s for s in report["scores"] if s["system"] == ALWAYS_ABSTAIN]
    assert mine and {s["status"] for s in mine} == {"abstain"}
    assert all(s["correct"] == (s["gold_status"] == "abstain") for s in mine)


def test_frozen_at_fork_answers_the_pre_fork_store_at_every_checkpoint_and_never_detects(
    world, report
):
    stored = floors.fork_values(read_table(world.prefork, schemas.WRITES))
    assert len(stored) == 48
    items = {i.item_id: i for i in load(world.world_dir, with_events=False).items}
    found = report["overall"]
    for branch in BRANCHES:
        asked = world.asked(branch)
        answers = floors.answers(asked, stored, items, SEED, branch)[FROZEN_AT_FORK].to_pylist()
        assert [a["probe_id"] for a in answers] == asked.column("probe_id").to_pylist()
        for probe, answer in zip(asked.to_pylist(), answers, strict=True):
            if probe["kind"] != "implicit":  # direct, premise, unnamed: the value as stored
                value = stored[probe["item_id"]]
                assert (answer["status"], answer["value"]) == (
                    "abstain" if value is None else "answer",
                    value,
                )
        # m = 1 wherever an item changed: nothing is ever invalidated
        m = found[(FROZEN_AT_FORK, branch, "m")]
        changed = sum(p["changed"] for p in direct(asked))
        assert (m["estimate"], m["numerator"], m["n"]) == (1.0, changed, changed)
        assert found[(FROZEN_AT_FORK, branch, "m_from_fork")]["estimate"] == 1.0
        assert found[(FROZEN_AT_FORK, branch, "unchanged_invalidated")]["numerator"] == 0
        update = found[(FROZEN_AT_FORK, branch, "update")]
        assert found[(FROZEN_AT_FORK, branch, "a")]["estimate"] == update["estimate"]
        assert update["estimate"] < 0.1  # a store that never changes is almost never right
    # at the fork it is the pre-fork store scored without the reader, as a cell's stored state
    fork = [
        s
        for s in report["scores"]
        if s["system"] == FROZEN_AT_FORK and s["checkpoint"] == 0 and s["kind"] == "direct"
    ]
    probes = {p["probe_id"]: p for p in direct(world.asked("none"))}
    for s in (s for s in fork if s["branch"] == "none"):
        p, value = probes[s["probe_id"]], stored[s["item_id"]]
        state = ("abstain", None) if value is None else ("answer", value)
        gold = (p["value_type"], p["gold_status"], p["gold_value"])
        assert s["correct"] == score(*gold, *state).correct


def perfect_store(world: World, path: Path, failed: str | None = None) -> Path:
    """A pre-fork store holding each item's gold at the fork (no value where it abstains); the
    write of `failed` failed."""
    rows = schemas.empty_columns(schemas.WRITES)
    forks = [p for p in direct(world.asked("none")) if p["checkpoint"] == 0]
    assert len(forks) == 48
    for p in forks:
        for name, value in (
            ("write_id", f"{p['item_id']}@0"), ("item_id", p["item_id"]), ("checkpoint", 0),
            ("time", p["time"]), ("version", 1), ("kind", "prefork"), ("selection", []),
            ("value", p["gold_value"] if p["gold_status"] == "answer" else None),
            ("statement", ""), ("citations", []),
            ("failure", "invalid_json" if p["item_id"] == failed else None),
            ("delta_since", None), ("new_item", None),
        ):  # fmt: skip
            rows[name].append(value)
    write_table(pa.Table.from_pydict(rows, schema=schemas.WRITES), schemas.WRITES, path)
    return path


def test_a_store_frozen_with_the_forks_gold_keeps_every_unchanged_item_and_no_changed_one(
    world, tmp_path
):
    """Frozen-at-fork is right exactly where nothing changed: before the shift and on every
    unchanged item-time it is right, on every changed one wrong; an implicit probe is answered
    through its relation at its own time, so it is right wherever its item did not change."""
    perfect_store(world, layout.prefork(tmp_path / "w1000"))
    out = tmp_path / "scores.parquet"
    scores = scored(world, out, tmp_path / "w1000")
    found = overall(measured_rows(out))
    for branch in BRANCHES:
        assert found[(FROZEN_AT_FORK, branch, "before_shift")]["estimate"] == 1.0
        assert found[(FROZEN_AT_FORK, branch, "stability")]["estimate"] == 1.0
        assert found[(FROZEN_AT_FORK, branch, "update")]["numerator"] == 0
        twins = {(p["item_id"], p["checkpoint"]): p for p in direct(world.asked(branch))}
        implicit = [
            s
            for s in scores
            if (s["system"], s["branch"], s["kind"]) == (FROZEN_AT_FORK, branch, "implicit")
        ]
        assert implicit
        for s in implicit:
            twin = twins[(s["item_id"], s["checkpoint"])]
            if not twin["changed"]:
                assert s["correct"], s


def test_a_failed_pre_fork_write_is_an_abstention_at_every_checkpoint(world, tmp_path):
    item = "person.home_city"
    store = perfect_store(world, tmp_path / "prefork-writes.parquet", failed=item)
    stored = floors.fork_values(read_table(store, schemas.WRITES))
    assert stored[item] is None
    items = {i.item_id: i for i in load(world.world_dir, with_events=False).items}
    answers = floors.answers(world.asked("del"), stored, items, SEED, "del")[FROZEN_AT_FORK]
    mine = [a for a in answers.to_pylist() if a["item_id"] == item]
    assert mine and {(a["status"], a["value"]) for a in mine} == {("abstain", None)}


def test_a_pre_fork_store_with_two_writes_of_an_item_is_refused(world, tmp_path):
    table = read_table(world.prefork, schemas.WRITES)
    twice = pa.concat_tables([table, table.slice(0, 1)])
    with pytest.raises(Exception, match="one write per item"):
        floors.fork_values(twice)


def test_the_floors_come_after_the_systems_on_their_branches_and_change_none_of_theirs(
    world, tmp_path
):
    """Scored with a pre-fork store, a world's table is the one scored without it, then each
    floor on each branch its systems were scored on (here two of the four)."""
    two = [p for p in world.echo if layout.answers_of(p)[1] in ("src", "del")]
    alone, beside = tmp_path / "alone.parquet", tmp_path / "beside.parquet"
    score_run(two, world.worlds, alone)
    score_run(two, world.worlds, beside, [world.prefork])
    systems = pq.read_table(alone).to_pylist()
    rows = pq.read_table(beside).to_pylist()
    assert rows[: len(systems)] == systems
    added = rows[len(systems) :]
    assert {(r["system"], r["branch"]) for r in added} == {
        (floor, branch) for floor in FLOORS for branch in ("src", "del")
    }
    for floor in FLOORS:
        for branch in ("src", "del"):
            ids = [r["probe_id"] for r in added if (r["system"], r["branch"]) == (floor, branch)]
            assert ids == world.asked(branch).column("probe_id").to_pylist()
    with pytest.raises(Exception, match="exactly one world"):
        score_run(two, world.worlds, tmp_path / "x.parquet", [tmp_path / "prefork-writes.parquet"])


def test_the_report_shows_the_floors_last_marked_as_floors(report):
    assert ordered_systems(["always-abstain", "bm25", "frozen-at-fork", "holdmem-d1-source"]) == [
        "holdmem-d1-source",
        "bm25",
        "always-abstain",
        "frozen-at-fork",
    ]
    header = Header("floors", "rules", "rules", [SEED], DRAWS.draws, DRAWS.seed)
    text = render(header, report["measures"], [], [], 1)
    update = text[text.index("## Update") : text.index("## Stability")]
    lines = [line for line in update.splitlines() if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in lines[1:]] == [
        "| echo",
        "| always-abstain (floor)",
        "| frozen-at-fork (floor)",
    ]
    assert "does worse there than saying nothing" in update


def test_no_other_system_may_take_a_floors_name():
    assert all(is_reserved(floor) for floor in FLOORS)
    study = {"study": "t", "worlds": {"seeds": "1-2"}, "branches": ["none", "src"]}
    study["systems"] = {"predictions": {ALWAYS_ABSTAIN: "predictions.jsonl"}}
    with pytest.raises(ConfigError, match="taken by another system"):
        check_config(study)
    study["systems"] = {"custom": {FROZEN_AT_FORK: "custom_memory:NewestRecords"}}
    with pytest.raises(ConfigError, match="taken by a built-in system"):
        check_config(study)


def test_every_frozen_value_is_the_canonical_json_a_store_writes(world):
    for value in floors.fork_values(read_table(world.prefork, schemas.WRITES)).values():
        assert value is None or canonical_json(json.loads(value)) == value
