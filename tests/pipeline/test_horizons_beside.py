"""Two horizons of one study in one results directory: each writes its own worlds and run and
leaves the other's files byte for byte as they were, the horizons report sets them side by side,
and a report rerun on one core writes the same bytes as on two."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from test_snakemake import (
    SNAKEMAKE,
    STUDY,
    assert_verified,
    job_env,
    planned,
    run_of,
    snakemake,
    workflow_copy,
)

from memshift import layout

# two studies run whole: in make test-studies, beside make test's ten minutes
pytestmark = pytest.mark.studies

SHORT = {
    **{key: value for key, value in STUDY.items() if key not in ("writer_switch", "export")},
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"]},
        "baselines": [],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
}
LONGER = {**SHORT, "worlds": {**SHORT["worlds"], "history_months": 3}}


def report_bytes(where: Path, study: dict) -> dict[str, bytes]:
    report = where / run_of(study) / "report"
    return {str(p.relative_to(report)): p.read_bytes() for p in report.rglob("*") if p.is_file()}


def test_two_horizons_share_a_results_folder_and_are_reported_side_by_side(tmp_path: Path):
    where = workflow_copy(tmp_path / "horizons", LONGER)
    first = snakemake(where)
    assert first.returncode == 0, first.stderr[-3000:]
    before = report_bytes(where, LONGER)
    (where / "study-h1.yaml").write_text(yaml.safe_dump(SHORT))
    short = snakemake(where, configfile="study-h1.yaml")
    assert short.returncode == 0, short.stderr[-3000:]
    assert (where / run_of(SHORT) / "report/report.md").is_file()
    for months in (1, 3):
        assert (where / f"results/worlds-h{months}/w1000/manifest.json").is_file()
    assert_verified(where, run_of(LONGER))
    assert_verified(where, run_of(SHORT))
    assert planned(where) == {}
    horizons = subprocess.run(
        [str(SNAKEMAKE.with_name("memshift")), "horizons-report", "--configfile", "study-h1.yaml",
         "--horizons", "1,3"],
        cwd=where, capture_output=True, text=True, check=False, env=job_env(),
    )  # fmt: skip
    assert horizons.returncode == 0, horizons.stderr[-3000:]
    results = Path(SHORT["results"])
    out = where / layout.runs_report_dir(results, SHORT["study"], "horizons", "rules")
    sizes = pq.read_table(layout.report_table(out, "horizon_worlds")).to_pylist()
    assert [r["horizon_months"] for r in sizes] == [1, 3]
    assert sizes[0]["events_per_world"] < sizes[1]["events_per_world"]
    assert sizes[0]["tokens_per_world"] < sizes[1]["tokens_per_world"]
    costs = pq.read_table(layout.report_table(out, "horizon_costs")).to_pylist()
    stored = {
        r["horizon_months"]: r["tokens"]
        for r in costs
        if (r["system"], r["part"]) == ("holdmem-d0-source", "ingestion")
    }
    # the pre-fork store of a longer history reads more records
    assert 0 < stored[1] < stored[3]
    assert "# Horizons: study e2e" in (out / "report.md").read_text()
    assert (out / "figures/horizons.png").stat().st_size > 0

    # on one core the report draws its figures and runs the trap suite in its own process
    one = snakemake(where, "--cores", "1", "-p", "--forcerun", "report")
    assert one.returncode == 0 and "--threads 1" in one.stdout + one.stderr, one.stderr[-3000:]
    after = report_bytes(where, LONGER)
    assert sorted(after) == sorted(before)
    assert [name for name in before if after[name] != before[name]] == []
