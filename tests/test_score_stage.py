"""The score stage: every answer joined to its probe and scored."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.errors import MemshiftError
from memshift.probes.build import probes_to_table
from memshift.stages.score import join, run


def test_answers_are_scored_against_their_probes_and_strangers_are_refused(tmp_path, data_1000):
    probes = probes_to_table(data_1000["src"].probes, world=1000, branch="src")
    write_table(probes, schemas.PROBES, tmp_path / "w1000" / "probes-src.parquet")
    rows = [
        {
            "probe_id": p["probe_id"],
            "world": 1000,
            "branch": "src",
            "system": "echo",
            "checkpoint": p["checkpoint"],
            "item_id": p["item_id"],
            "status": p["gold_status"],
            "value": p["gold_value"],
            "failure": None,
            "evidence_items": 0,
            "evidence_tokens": 0,
            "evidence_hash": "",
        }
        for p in probes.to_pylist()
    ]
    rows[0] = {**rows[0], "status": "failed", "value": None}
    answers = tmp_path / "answers.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.ANSWERS), schemas.ANSWERS, answers)
    out = tmp_path / "scores.parquet"
    assert run([answers], tmp_path, out) == len(rows)
    scored = pq.read_table(out).to_pylist()
    assert [s["correct"] for s in scored] == [False] + [True] * (len(rows) - 1)
    assert scored[0]["reason"] == "answer failed"
    stranger = tmp_path / "stranger.parquet"
    write_table(
        pa.Table.from_pylist([{**rows[1], "probe_id": "nope"}], schema=schemas.ANSWERS),
        schemas.ANSWERS,
        stranger,
    )
    with pytest.raises(MemshiftError, match="answer to unknown probe nope"):
        run([stranger], tmp_path, tmp_path / "x.parquet")


def test_a_cells_store_is_scored_without_the_reader(tmp_path, data_1000):
    """The newest served row of the probe's item at its checkpoint is compared with gold, status
    and value: a right value, a wrong one, an older right row under a newer wrong one, and
    nothing served (right only where gold abstains)."""
    probes = probes_to_table(data_1000["src"].probes, world=1000, branch="src")
    write_table(probes, schemas.PROBES, tmp_path / "w1000" / "probes-src.parquet")
    direct = [p for p in probes.to_pylist() if p["kind"] == "direct"]
    answered = [p for p in direct if p["gold_status"] == "answer"][:3]
    abstaining = next(p for p in direct if p["gold_status"] == "abstain")
    unserved = next(p for p in direct if p["gold_status"] == "answer" and p not in answered)
    store = [
        (answered[0], 0, answered[0]["gold_value"]),
        (answered[1], 0, '"somewhere else"'),
        (answered[2], 0, answered[2]["gold_value"]),
        (answered[2], 1, '"a newer wrong value"'),
    ]
    rows = schemas.empty_columns(schemas.STORE)
    for probe, position, value in store:
        for name, v in (
            ("checkpoint", probe["checkpoint"]),
            ("item_id", probe["item_id"]),
            ("position", position),
            ("write_id", "w"),
            ("origin", "writer"),
            ("check", "not_checked"),
            ("value", value),
            ("text", "a statement"),
            ("read_scopes", ["email"]),
            ("cited_scopes", ["email"]),
        ):
            rows[name].append(v)
    cell = layout.system_dir(tmp_path / "run", "src", "holdmem-d0-source")
    write_table(
        pa.Table.from_pydict(rows, schema=schemas.STORE),
        schemas.STORE,
        layout.cell_store(tmp_path / "run", "src", "holdmem-d0-source"),
    )
    asked = [*answered, abstaining, unserved]
    answers = [
        {
            "probe_id": p["probe_id"],
            "world": 1000,
            "branch": "src",
            "system": "holdmem-d0-source",
            "checkpoint": p["checkpoint"],
            "item_id": p["item_id"],
            "status": "abstain",
            "value": None,
            "failure": None,
            "evidence_items": 0,
            "evidence_tokens": 0,
            "evidence_hash": "",
        }
        for p in asked
    ]
    path = cell / "answers.parquet"
    write_table(pa.Table.from_pylist(answers, schema=schemas.ANSWERS), schemas.ANSWERS, path)
    stores = {1000: layout.stores_dir(tmp_path / "run")}
    run([path], tmp_path, tmp_path / "scores.parquet", stores=stores)
    scored = {
        s["probe_id"]: s["store_correct"]
        for s in pq.read_table(tmp_path / "scores.parquet").to_pylist()
    }
    assert [scored[p["probe_id"]] for p in asked] == [True, False, False, True, False]


def _echo_answers(tmp_path, data_1000, world: int):
    """The gold of world 1000's src probes as world `world`'s answers, its probes beside them."""
    probes = probes_to_table(data_1000["src"].probes, world=world, branch="src")
    write_table(probes, schemas.PROBES, tmp_path / f"w{world}" / "probes-src.parquet")
    rows = [
        {
            "probe_id": p["probe_id"], "world": world, "branch": "src", "system": "echo",
            "checkpoint": p["checkpoint"], "item_id": p["item_id"],
            "status": p["gold_status"] if i % 3 else "abstain",
            "value": p["gold_value"] if i % 3 else None,
            "failure": None, "evidence_items": 0, "evidence_tokens": 0, "evidence_hash": "",
        }
        for i, p in enumerate(probes.to_pylist())
    ]  # fmt: skip
    answers = tmp_path / "runs" / f"w{world}" / "src" / "echo" / "answers.parquet"
    write_table(pa.Table.from_pylist(rows, schema=schemas.ANSWERS), schemas.ANSWERS, answers)
    return answers


def test_the_worlds_scores_joined_are_the_table_one_job_over_every_answer_writes(
    tmp_path, data_1000
):
    answers = [_echo_answers(tmp_path, data_1000, world) for world in (1000, 1001, 999)]
    whole = tmp_path / "whole.parquet"
    run(answers, tmp_path, whole)
    parts = []
    for path in answers:
        parts.append(path.parents[2] / "scores.parquet")
        run([path], tmp_path, parts[-1])
    joined = tmp_path / "joined.parquet"
    assert join(list(reversed(parts)), joined) == pq.read_metadata(whole).num_rows
    assert joined.read_bytes() == whole.read_bytes()
    # in the order of the paths (w1000 < w1001 < w999), as one job over every answer sorts them
    assert pq.read_table(joined).column("world").unique().to_pylist() == [1000, 1001, 999]


def test_a_world_scored_in_two_parts_is_refused(tmp_path, data_1000):
    answers = _echo_answers(tmp_path, data_1000, 1000)
    first, second = tmp_path / "a" / "scores.parquet", tmp_path / "b" / "scores.parquet"
    run([answers], tmp_path, first)
    run([answers], tmp_path, second)
    with pytest.raises(MemshiftError, match="world 1000 is scored in both"):
        join([first, second], tmp_path / "joined.parquet")


def test_a_jobs_folder_is_scored_table_by_table_in_the_order_of_branch_and_system(
    tmp_path, data_1000
):
    """A job's folder of answers (the cells', the baselines') scores as its tables would one by
    one, and the rows come by world, branch and system wherever each system's answers live."""
    echo = _echo_answers(tmp_path, data_1000, 1000)
    run_world = echo.parents[2]
    table = pq.read_table(echo)
    names = ("bm25", "zz-custom", "aa-custom")
    paths = []
    for name in names:
        path = layout.table(layout.system_dir(run_world, "src", name), layout.ANSWERS)
        renamed = table.set_column(
            table.schema.get_field_index("system"), "system", pa.array([name] * table.num_rows)
        )
        write_table(renamed, schemas.ANSWERS, path)
        paths.append(path)
    assert paths[0].parents[2] == layout.job_dir(run_world, layout.BASELINES_JOB)
    by_folder, by_table = tmp_path / "folder.parquet", tmp_path / "tables.parquet"
    run([layout.job_dir(run_world, layout.BASELINES_JOB), *paths[1:], echo], tmp_path, by_folder)
    run(list(reversed([*paths, echo])), tmp_path, by_table)
    assert by_folder.read_bytes() == by_table.read_bytes()
    systems = pq.read_table(by_folder).column("system").unique().to_pylist()
    assert systems == sorted([*names, "echo"])
    empty = layout.job_dir(run_world, layout.CELLS_JOB)
    empty.mkdir()
    with pytest.raises(MemshiftError, match=r"no <branch>/<system>/answers\.parquet"):
        run([empty], tmp_path, tmp_path / "x.parquet")
