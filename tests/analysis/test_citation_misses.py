"""What the citation key missed and why (MemShift Fig. 5, Table 17), on constructed cases whose
class is known."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest
from test_measures import maintenance, opened, score

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, register_weights
from memshift.analysis.citation_misses import citation_miss_tables, report_tables
from memshift.artifacts import ArtifactError, write_table

FORK = datetime(2026, 10, 1)
T = {0: FORK, 1: FORK + timedelta(days=7), 2: FORK + timedelta(days=14)}
WORLDS = range(1, 6)
# item -> (cited at the write, deps at the write, deps at checkpoint 2, events (object, day))
CASES = {
    "it.cited": (["r1"], ["r1"], ["r1"], [("r1", 3)]),
    "it.a": (["r1"], ["r1", "r2"], ["r1", "r2"], [("r2", 3)]),
    "it.bold": (["r1"], ["r1"], ["r1", "r3"], [("r3", -30)]),
    "it.bnew": (["r1"], ["r1"], ["r1", "r4"], [("r4", 4)]),
    "it.c": (["r1"], ["r1", "r5"], ["r1"], [("r5", -60)]),
    "it.clock": (["r1"], ["r1"], ["r1"], []),
    "it.caught": (["r6"], ["r6"], ["r6"], [("r6", 2)]),  # the key invalidated it at checkpoint 1
}
CLASS = {
    "it.cited": "cited",
    "it.a": "a",
    "it.bold": "b old",
    "it.bnew": "b new",
    "it.c": "c",
    "it.clock": "clock",
}


def build(tmp_path: Path, *, forced_right: bool = True, drop_write: str | None = None):
    scores, logs = [], []
    for world in WORLDS:
        for detection, right in (("citation", False), ("source", forced_right), ("append", True)):
            for repair in ("0", "1"):
                scores += [
                    score(item, 2, right, system=f"holdmem-d{repair}-{detection}", world=world)
                    for item in CASES
                ]
            rows = [("it.caught", 1, True)] if detection == "citation" else []
            path = tmp_path / f"w{world}/detections/src/holdmem-{detection}/maintenance.parquet"
            write_table(maintenance(rows), schemas.MAINTENANCE, path)
            logs.append(path)
    con = opened(tmp_path, scores, logs)
    con.execute(
        "CREATE TABLE citation_writes (world INTEGER, branch VARCHAR, item_id VARCHAR, "
        "checkpoint TINYINT, time TIMESTAMP, cited VARCHAR[])"
    )
    con.execute(
        "CREATE TABLE gold_deps (world INTEGER, branch VARCHAR, item_id VARCHAR, "
        "checkpoint TINYINT, object_id VARCHAR)"
    )
    con.execute(
        "CREATE TABLE events (world INTEGER, branch VARCHAR, time TIMESTAMP, op VARCHAR, "
        "object_id VARCHAR)"
    )
    con.execute(
        "CREATE TABLE checkpoint_times (world INTEGER, branch VARCHAR, checkpoint TINYINT, "
        "time TIMESTAMP)"
    )
    for world in WORLDS:
        con.executemany(
            "INSERT INTO checkpoint_times VALUES (?, 'src', ?, ?)",
            [(world, k, t) for k, t in T.items()],
        )
        for item, records in CASES.items():
            # each item its own records, so one item's events touch no other
            cited, before, after = ([f"{item}/{o}" for o in group] for group in records[:3])
            events = [(f"{item}/{o}", day) for o, day in records[3]]
            if item != drop_write:
                con.execute(
                    "INSERT INTO citation_writes VALUES (?, 'src', ?, 0, ?, ?)",
                    [world, item, FORK, cited],
                )
            con.executemany(
                "INSERT INTO gold_deps VALUES (?, 'src', ?, ?, ?)",
                [(world, item, 0, o) for o in before] + [(world, item, 2, o) for o in after],
            )
            for o, day in events:
                con.execute(
                    "INSERT INTO events VALUES (?, 'src', ?, 'revise', ?)",
                    [world, FORK + timedelta(days=day), o],
                )
    resampling = Resampling(draws=50)
    register_weights(con, list(WORLDS), [], resampling)
    return con, resampling


def test_each_missed_item_time_falls_in_the_class_its_records_give(tmp_path: Path):
    con, resampling = build(tmp_path)
    misses, _ = citation_miss_tables(con, resampling)
    rows = {
        r["miss_class"]: r
        for r in misses.to_pylist()
        if (r["branch"], r["item_class"], r["cause"]) == ("src", "all", "all")
    }
    per_item = dict(
        con.execute(
            "SELECT item_id, any_value(miss_class) FROM citation_missed GROUP BY 1"
        ).fetchall()
    )
    assert per_item == CLASS  # the invalidated item is not a miss
    assert rows["all"]["missed"] == len(CLASS) * len(WORLDS)
    assert rows["all"]["changed"] == len(CASES) * len(WORLDS)
    assert rows["all"]["share"] == pytest.approx(len(CLASS) / len(CASES))
    assert all(rows[c]["missed"] == len(WORLDS) for c in CLASS.values())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_forced_gain_is_what_the_source_key_cell_served_on_the_misses(tmp_path: Path, seed):
    con, _ = build(tmp_path)
    resampling = Resampling(draws=100, seed=seed)
    register_weights(con, list(WORLDS), [], resampling)
    _, forced = citation_miss_tables(con, resampling)
    rows = {(r["repair"], r["quantity"]): r for r in forced.to_pylist() if r["item_class"] == "all"}
    for repair in ("0", "1"):
        assert rows[(repair, "cited")]["estimate"] == 0.0
        assert rows[(repair, "forced")]["estimate"] == 1.0
        assert rows[(repair, "no_key")]["estimate"] == 1.0
        gain = rows[(repair, "gain")]
        assert (gain["estimate"], gain["low"], gain["high"]) == (1.0, 1.0, 1.0)
        assert gain["n"] == len(CLASS) * len(WORLDS)


def test_a_miss_without_a_write_of_its_own_is_refused(tmp_path: Path):
    con, resampling = build(tmp_path, drop_write="it.a")
    with pytest.raises(ArtifactError, match="no write of theirs"):
        citation_miss_tables(con, resampling)


def test_the_report_reads_the_gold_files_and_the_writes_beside_the_keys_log(tmp_path: Path):
    """The same cases, with the gold dependencies and the citation key's writes read from the
    files the pipeline leaves: gold-<branch>.parquet and writes.parquet beside maintenance."""
    con, resampling = build(tmp_path)
    worlds_dir = tmp_path / "worlds"
    for world in WORLDS:
        deps = con.execute(
            "SELECT item_id, checkpoint, list(object_id ORDER BY object_id) FROM gold_deps "
            "WHERE world = ? GROUP BY ALL ORDER BY ALL",
            [world],
        ).fetchall()
        gold = [
            {
                "world": world,
                "branch": "src",
                "item_id": item,
                "item_class": "contact",
                "value_type": "entity",
                "free_text": False,
                "agent": "assistant",
                "checkpoint": checkpoint,
                "time": T[checkpoint],
                "definition_version": 1,
                "status": "answer",
                "value": '"x"',
                "deps": [{"object_id": o, "revision": 1} for o in objects],
                "changed": checkpoint > 0,
                "caused_by_shift": checkpoint > 0,
                "clock_alone": False,
                "last_change": checkpoint,
            }
            for item, checkpoint, objects in deps
        ]
        write_table(
            pa.Table.from_pylist(gold, schema=schemas.GOLD),
            schemas.GOLD,
            worlds_dir / f"w{world}" / "gold-src.parquet",
        )
        writes = [
            {
                "write_id": f"{item}-0",
                "item_id": item,
                "checkpoint": 0,
                "time": FORK,
                "version": 1,
                "kind": "prefork",
                "selection": [],
                "value": '"x"',
                "statement": "",
                "citations": [{"object_id": o, "revision": 1, "quote": ""} for o in cited],
                "new_item": False,
            }
            for item, cited in con.execute(
                "SELECT item_id, cited FROM citation_writes WHERE world = ? ORDER BY item_id",
                [world],
            ).fetchall()
        ]
        write_table(
            pa.Table.from_pylist(writes, schema=schemas.WRITES),
            schemas.WRITES,
            tmp_path / f"w{world}/detections/src/holdmem-citation/writes.parquet",
        )
    con.execute("DROP TABLE citation_writes")
    con.execute("DROP TABLE gold_deps")
    logs = [
        (
            world,
            "src",
            detection,
            tmp_path / f"w{world}/detections/src/holdmem-{detection}/maintenance.parquet",
        )
        for world in WORLDS
        for detection in ("citation", "source", "append")
    ]
    misses, forced = report_tables(con, resampling, worlds_dir, logs)
    per_item = dict(
        con.execute(
            "SELECT item_id, any_value(miss_class) FROM citation_missed GROUP BY 1"
        ).fetchall()
    )
    assert per_item == CLASS
    [overall] = [
        r
        for r in misses.to_pylist()
        if (r["branch"], r["item_class"], r["cause"], r["miss_class"])
        == ("src", "all", "all", "all")
    ]
    assert overall["missed"] == len(CLASS) * len(WORLDS)
    assert forced.num_rows > 0
