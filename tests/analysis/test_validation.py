"""Known against recovered, on runs built by hand: every check reads the run it should, and
recovers what was put in."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from memshift import schemas
from memshift.analysis.bootstrap import Resampling
from memshift.artifacts import write_table
from memshift.errors import MemshiftError
from memshift.studies.validation.analysis import Writer, checks

WORLDS = range(1, 9)
ITEMS = 10  # changed item-times per world, all definition items, one checkpoint


def _score(world: int, system: str, item: int, correct: bool) -> dict[str, object]:
    return {
        "probe_id": f"w{world}-src-c1-i{item}",
        "world": world,
        "branch": "src",
        "system": system,
        "checkpoint": 1,
        "item_id": f"i{item}",
        "evidence_tokens": 10,
        "item_class": "definition",
        "value_type": "entity_set",
        "free_text": False,
        "changed": True,
        "caused_by_shift": True,
        "clock_alone": False,
        "last_change": 1,
        "sampled": False,
        "gold_status": "answer",
        "status": "answer",
        "correct": correct,
        "reason": "",
        "kind": "direct",
        "accepted_premise": False,
    }


def _maintenance(path: Path, invalidated: list[bool]) -> None:
    columns = schemas.empty_columns(schemas.MAINTENANCE)
    for item, flag in enumerate(invalidated):
        for name, value in (
            ("item_id", f"i{item}"),
            ("checkpoint", 1),
            ("invalidated", flag),
            ("reason", ""),
            ("key_before", ""),
            ("key_after", ""),
            ("rederived", flag),
            ("write_id", ""),
        ):
            columns[name].append(value)
    write_table(
        pa.Table.from_pydict(columns, schema=schemas.MAINTENANCE), schemas.MAINTENANCE, path
    )


def _run(root: Path, struck: int) -> Path:
    """A run where the source key re-derives every item (right on 8 of 10, less `struck` the
    writer's errors), the append-only cell serves stale values (right on 1), and the leaky
    control is blind to items 0-2 of each world."""
    rows = []
    for world in WORLDS:
        for item in range(ITEMS):
            right = item < 8
            rows += [
                _score(world, "holdmem-d0-source", item, right and item >= struck),
                _score(world, "holdmem-d1-source", item, True),
                _score(world, "holdmem-d0-append", item, item == 9),
                _score(world, "holdmem-d1-append", item, item >= 5),
                _score(world, "holdmem-d0-leaky", item, item >= 3 and right),
                _score(world, "holdmem-d1-leaky", item, item >= 3),
            ]
        for detection, flags in (
            ("source", [True] * ITEMS),
            ("append", [False] * ITEMS),
            ("leaky", [item >= 3 for item in range(ITEMS)]),
        ):
            folder = root / f"w{world}/detections/src/holdmem-{detection}"
            _maintenance(folder / "maintenance.parquet", flags)
    write_table(
        pa.Table.from_pylist(rows, schema=schemas.SCORES), schemas.SCORES, root / "scores.parquet"
    )
    return root


def _by(found, writer: str, check: str):
    return next(
        c
        for c in found
        if (c.writer, c.shift, c.check, c.item_class[:3])
        == (writer, "src", check, "def" if check == "writer error" else "all")
    )


def test_every_check_recovers_what_the_runs_hold(tmp_path: Path) -> None:
    reference = Writer("exact", _run(tmp_path / "exact", struck=0), {})
    weak = Writer("weak", _run(tmp_path / "weak", struck=2), {"definition": 0.25})
    found = checks([reference, weak], Resampling(draws=200))
    error = _by(found, "weak", "writer error")
    # right on 8, 2 of them struck: 1 - 6/8
    assert error.found.estimate == pytest.approx(0.25) and error.known == 0.25
    leaky = _by(found, "exact", "m, leaky control")
    assert leaky.found.estimate == pytest.approx(0.3) and leaky.known == 0.25
    assert _by(found, "exact", "m, source key").found.estimate == 0.0
    # B×D = (S1 - A1) - (S0 - A0) = (1 - 0.5) - (0.8 - 0.1)
    measured = _by(found, "exact", "B×D measured")
    assert measured.found.estimate == pytest.approx(-0.2)
    assert _by(found, "exact", "B×D predicted by the terms").found.estimate == pytest.approx(-0.2)
    sign = _by(found, "exact", "sign: B×D")
    assert sign.paper == pytest.approx(0.074) and sign.sign_matches is False


def test_the_reference_writer_has_no_error_model(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", struck=0)
    with pytest.raises(MemshiftError, match="must have no error model"):
        checks([Writer("a", run, {"definition": 0.1}), Writer("b", run, {})], Resampling(draws=10))


def test_a_writer_without_a_finished_run_is_named(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", struck=0)
    with pytest.raises(MemshiftError, match=r"missing: no scores.parquet; run that writer's"):
        checks([Writer("a", run, {}), Writer("b", tmp_path / "missing", {})], Resampling(draws=10))
