"""The rewritten-worlds study pairs two finished runs: one scores table with the rewritten run's
systems renamed, and both runs' maintenance logs, the rewritten run's linked under the renamed
detections, where the analysis reads each log's world, branch and detection from its place."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import write_table
from memshift.studies.rewritten.stage import RW, paired_inputs


def finished_run(run: Path) -> Path:
    """A run with one score row and one detection's maintenance log of world 1000."""
    rows = schemas.empty_columns(schemas.SCORES)
    # every other column null, or the zero of its type where the schema forbids a null
    for name, field in zip(schemas.SCORES.names, schemas.SCORES, strict=True):
        rows[name].append(
            "w1000-p1" if name == "probe_id" else "holdmem-d1-source" if name == "system" else
            1000 if name == "world" else "none" if name == "branch" else
            None if field.nullable else pa.array([], field.type).type.to_pandas_dtype()()
        )  # fmt: skip
    write_table(pa.Table.from_pydict(rows, schema=schemas.SCORES), schemas.SCORES,
                layout.run_scores(run))  # fmt: skip
    log = layout.table(
        layout.detection_dir(layout.world_in(run, 1000), "none", "holdmem-source"),
        layout.MAINTENANCE,
    )
    log.parent.mkdir(parents=True)
    log.write_bytes(b"a maintenance log")
    return log


def test_the_rewritten_runs_maintenance_logs_are_linked_under_the_renamed_detection(tmp_path):
    template_log = finished_run(tmp_path / "template")
    rewritten_log = finished_run(tmp_path / "rewritten")
    _, logs = paired_inputs(tmp_path / "template", tmp_path / "rewritten", tmp_path / "out")
    assert logs[0] == template_log and len(logs) == 2
    linked = layout.run_log(logs[1])
    assert linked is not None and linked.kind == layout.MAINTENANCE
    assert (linked.world, linked.branch, linked.name) == (1000, "none", f"source{RW}")
    assert logs[1].read_bytes() == rewritten_log.read_bytes()
