"""The Snakemake workflow end to end on one small study, run as a user runs it."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from memshift import layout
from memshift.analysis.cost_model import PARTS as COST_PARTS
from memshift.probes.build import measured
from memshift.report.markdown import NO_INTERVAL_NOTE, interval
from memshift.vocabulary import BRANCHES, FLOORS, FROZEN_AT_FORK

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def workflow_copy(target: Path, config: dict) -> Path:
    target.mkdir(parents=True)
    shutil.copy(ROOT / "Snakefile", target / "Snakefile")
    for folder in ("rules", "workflow", "profiles", "config", "envs"):
        shutil.copytree(ROOT / folder, target / folder, symlinks=False)
    (target / "study.yaml").write_text(yaml.safe_dump(config))
    return target


def snakemake(
    where: Path, *args: str, package: Path | None = None, configfile: str = "study.yaml"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SNAKEMAKE), "--configfile", configfile, "--cores", "2", *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=job_env(package),
    )


def job_env(package: Path | None = None) -> dict[str, str]:
    """The environment of a command on the study: the custom system of the study lives beside
    this test, and jobs import it by module name. With `package`, the workflow and its jobs
    import memshift from that copy instead."""
    front = [str(package)] if package else []
    path = os.pathsep.join([*front, str(Path(__file__).parent), *sys.path])
    return {**os.environ, "PYTHONPATH": path}


def run_of(study: dict, llm: str = "rules") -> Path:
    """A study's run directory, relative to its workflow copy."""
    worlds = study["worlds"]
    return layout.run_dir(
        Path(study["results"]), study["study"], worlds.get("history_months", 9), llm
    )


def assert_verified(where: Path, run: Path) -> None:
    """`memshift verify` re-hashes the run's outputs against its manifest and finds them equal."""
    verify = subprocess.run(
        [str(SNAKEMAKE.with_name("memshift")), "verify", str(run / "manifest.json")],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


STUDY = {
    "study": "e2e",
    "results": "results",
    # three months of history: every stage runs as on twelve, on half the records
    "worlds": {"seeds": "1000", "history_months": 3},
    "branches": ["none", "src", "del", "cons"],
    "systems": {
        "holdmem": {
            "detections": ["source", "append"],
            "repairs": ["0", "1"],
            "extra_cells": ["holdmem-dcheck-source"],
        },
        "baselines": ["bm25", "rag", "oracle"],
        "custom": {"mine": "custom_memory:NewestRecords"},
        "answer_audit": ["holdmem-d0-source"],
        "unshifted_all_items": [
            "holdmem-d0-append",
            "holdmem-d1-append",
            "holdmem-d0-source",
            "holdmem-d1-source",
        ],
    },
    "report": {"draws": 200},
    "writer_switch": {
        "switches": {
            "identity": {"to": "rules-copy"},
            "weak-def": {"to": "rules-weak-definitions"},
        },
        "cells": ["holdmem-d0-append", "holdmem-d0-source", "holdmem-d1-source"],
        "calibration_seeds": "900",
    },
    "export": {"cells": ["holdmem-d1-source"]},
    "sync": {},
}
RUN = run_of(STUDY)
WORLDS = layout.worlds_dir(Path(STUDY["results"]), STUDY["worlds"]["history_months"])
UNSHIFTED_ALL = tuple(STUDY["systems"]["unshifted_all_items"])
REPORT_FILES = (
    "report.md",
    "report.html",
    "tables/measures.parquet",
    "tables/contrasts.parquet",
    "tables/diagnostics.parquet",
    "tables/calls.parquet",
    "tables/unshifted.parquet",
    "figures/update_stability.png",
    "figures/update_by_week.png",
    "figures/changed_outcomes.png",
    "figures/contrasts_by_class.png",
    "tables/retention.parquet",
    "tables/switch_survival.parquet",
    "tables/switch_prediction.parquet",
    "figures/switch_calibration.png",
)


def planned(where: Path, *args: str, package: Path | None = None) -> dict[str, list[str]]:
    """The jobs a dry run would run: rule name -> the wildcards line of each job."""
    run = snakemake(where, "-n", *args, package=package)
    assert run.returncode == 0, run.stderr[-3000:]
    return jobs_of(run.stdout + run.stderr)


def jobs_of(output: str) -> dict[str, list[str]]:
    """The jobs a dry run's output lists: rule name -> the wildcards line of each job."""
    jobs: dict[str, list[str]] = {}
    rule = None
    for line in output.splitlines():
        if line.startswith(("rule ", "localrule ")) and line.endswith(":"):
            rule = line.split()[1].rstrip(":")
            jobs.setdefault(rule, [])
        elif rule and line.strip().startswith("wildcards:"):
            jobs[rule].append(line.strip().removeprefix("wildcards: "))
    return jobs


# what any new answer reruns: its world's scores (and fork check), then the study's
AGGREGATES = {"score_world", "score", "report", "run_manifest", "failures_gate", "all"}
# the writer switch: its jobs re-derive, repair and read like the cells
SWITCHING = {"switch", "calibrate_writer", "switch_score"}
# the export shift: its bundle states each item's repair check; the import re-derives and repairs
EXPORTING = {"export_pm", "import_pm"}
# the sync study: its HoldMem cells write, repair and read in one job
SYNCING = {"sync"}


def edited(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))
    return text


def rerun_by_edit(where: Path, package: Path, module: str) -> dict[str, list[str]]:
    """The jobs a dry run plans after an edit to `module` (a file under `package`)."""
    path = package / module
    original = path.read_text()
    path.write_text(original + "\n# an edit\n")
    try:
        return planned(where, package=package)
    finally:
        path.write_text(original)


PROBING = {"probe_cell", "probe_baselines", "probe_reporting", "answer_audit"}


def answers_table(run_world: Path, branch: str, system: str) -> Path:
    return layout.table(layout.system_dir(run_world, branch, system), layout.ANSWERS)


def check_writer_switch(where: Path) -> None:
    """The identity switch re-derives every item of a B=1 cell because the writer changed and
    changes no value; the append cell calls no model; the report has the switch's section and a
    retention row per switch and cell."""
    switched = where / RUN / "w1000/switch/identity"
    maintenance = pq.read_table(switched / "holdmem-source/maintenance.parquet").to_pylist()
    after = [m for m in maintenance if m["checkpoint"] == 1]
    assert len(after) == 48 and all(m["reason"] == "writer changed" for m in after)
    writes = pq.read_table(switched / "holdmem-source/writes.parquet").to_pylist()
    before = {w["item_id"]: w["value"] for w in writes if w["checkpoint"] == 0}
    assert all(w["value"] == before[w["item_id"]] for w in writes if w["checkpoint"] == 1)
    calls = pq.read_table(switched / "calls.parquet").to_pylist()
    assert not [c for c in calls if c["system"] == "holdmem-append" and c["role"] == "writer"]
    scores = pq.read_table(where / RUN / "switch/scores.parquet").to_pylist()
    identity = [s for s in scores if s["switch"] == "identity" and s["correct_before"]]
    assert identity and all(s["survived"] for s in identity)
    report = (where / RUN / "report/report.md").read_text()
    assert "## Writer switch" in report and "passes by construction" in report
    diagnostics = pq.read_table(where / RUN / "report/tables/diagnostics.parquet").to_pylist()
    retention = [d for d in diagnostics if d["test"] == "retention"]
    assert len(retention) == 2 * 3
    memshift = str(SNAKEMAKE.with_name("memshift"))
    target = ["--world", "1000", "--switch", "identity", "--system", "holdmem-d1-source"]
    explained = subprocess.run(
        [memshift, "explain", "--configfile", "study.yaml", *target, "--item", "contact01.city"],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=job_env(),
    )
    assert explained.returncode == 0, explained.stderr
    assert "reason: writer changed" in explained.stdout
    assert "contact01.city@1:rederive (new writer, at the switch)" in explained.stdout


def check_export(where: Path) -> None:
    """Imported with the keys, the second implementation shows the reader what HoldMem(1,1)
    shows on every probe of every branch, so the leaving test's difference is exactly zero;
    without the keys it differs."""
    runs = where / RUN / "w1000"
    for branch in STUDY["branches"]:
        original = pq.read_table(answers_table(runs, branch, "holdmem-d1-source")).to_pylist()
        imported = pq.read_table(answers_table(runs, branch, "pm-d1-source-ext")).to_pylist()
        assert [a["evidence_hash"] for a in imported] == [a["evidence_hash"] for a in original]
    bundle = runs / "export/pm-d1-source-ext.mem"
    assert json.loads((bundle / "manifest.json").read_text())["counts"]["episode"] == 48
    # a user exports the same bundle by study, world and cell
    done = memshift_command(where, None, "export-bundle", "--configfile", "study.yaml",
                            "--world", "1000", "--cell", "holdmem-d1-source",
                            "--out", "mine.mem")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in (where / "mine.mem").rglob("*")) == sorted(
        p.name for p in bundle.rglob("*")
    )
    for theirs in (p for p in bundle.rglob("*") if p.is_file()):
        assert (where / "mine.mem" / theirs.relative_to(bundle)).read_bytes() == theirs.read_bytes()
    diagnostics = pq.read_table(where / RUN / "report/tables/diagnostics.parquet").to_pylist()
    leaving = {d["system"]: d for d in diagnostics if d["test"] == "leaving"}
    assert leaving["pm-d1-source-ext"]["estimate"] == 0.0
    assert leaving["pm-d1-source-noext"]["estimate"] < -0.5
    bundles = pq.read_table(where / RUN / "report/tables/bundles.parquet").to_pylist()
    assert [(b["arm"], b["ok"], b["episodes"]) for b in bundles] == [
        ("ext", True, 48),
        ("noext", True, 48),
    ]


def check_unshifted(where: Path) -> None:
    """The four cells that answer every unshifted item-time pair each shift-caused item-time
    with its unshifted twin (the study's single world: estimates without intervals)."""
    rows = pq.read_table(where / RUN / "report/tables/unshifted.parquet").to_pylist()
    for branch in ("src", "del"):
        probes = pq.read_table(where / WORLDS / f"w1000/probes-{branch}.parquet").to_pylist()
        caused = [
            p for p in probes if p["kind"] == "direct" and p["changed"] and p["caused_by_shift"]
        ]
        found = {
            r["quantity"]: r
            for r in rows
            if (r["detection"], r["branch"], r["item_class"]) == ("source", branch, "all")
        }
        assert set(found) == {"shifted", "unshifted", "difference", "moved"}
        assert all(r["n"] == len(caused) > 0 for r in found.values()), branch
        assert found["difference"]["estimate"] == pytest.approx(
            found["shifted"]["estimate"] - found["unshifted"]["estimate"]
        )
        # with the shift, B×D is the four cells' Update on the changes the shift caused
        caused = {
            (row["system"]): row["estimate"]
            for row in pq.read_table(where / RUN / "report/tables/measures.parquet").to_pylist()
            if (row["branch"], row["item_class"], row["cause"], row["measure"])
            == (branch, "all", "caused", "update")
        }
        interaction = (caused["holdmem-d1-source"] - caused["holdmem-d1-append"]) - (
            caused["holdmem-d0-source"] - caused["holdmem-d0-append"]
        )
        assert found["shifted"]["estimate"] == pytest.approx(interaction)
    report = (where / RUN / "report/report.md").read_text()
    assert "## Without the shift" in report


def check_floors(where: Path) -> None:
    """The floors answer, on every branch, what a baseline is asked; at the fork frozen-at-fork
    is right exactly where each HoldMem cell's stored state (the pre-fork store) is; neither
    detects a change; the Update table shows both last, marked as floors."""
    scores = pq.read_table(where / RUN / "scores.parquet").to_pylist()
    for branch in STUDY["branches"]:
        asked = sorted(
            s["probe_id"] for s in scores if (s["system"], s["branch"]) == ("bm25", branch)
        )
        for floor in FLOORS:
            mine = [s["probe_id"] for s in scores if (s["system"], s["branch"]) == (floor, branch)]
            assert sorted(mine) == asked, (floor, branch)
        at_fork = [
            s
            for s in scores
            if s["branch"] == branch and s["checkpoint"] == 0 and s["kind"] == "direct"
        ]
        frozen = {s["probe_id"]: s["correct"] for s in at_fork if s["system"] == FROZEN_AT_FORK}
        for cell in ("holdmem-d0-append", "holdmem-d1-source", "holdmem-dcheck-source"):
            stored = {s["probe_id"]: s["store_correct"] for s in at_fork if s["system"] == cell}
            assert stored == frozen, (cell, branch)
        for floor in FLOORS:
            found = overall(where, floor, branch)
            assert found["m"] == 1.0 and found["update"] == found["a"], (floor, branch)
    report = (where / RUN / "report/report.md").read_text()
    update = report[report.index("## Update") : report.index("## Stability")]
    names = [line.split(" | ")[0] for line in update.splitlines() if line.startswith("| ")]
    assert names[-2:] == ["| always-abstain (floor)", "| frozen-at-fork (floor)"]


def overall(where: Path, system: str, branch: str) -> dict[str, float]:
    """A system's measures on one branch over every item class and cause."""
    measures = pq.read_table(where / RUN / "report/tables/measures.parquet").to_pylist()
    return {
        row["measure"]: row["estimate"]
        for row in measures
        if (row["system"], row["branch"], row["item_class"], row["cause"])
        == (system, branch, "all", "all")
    }


def check_reported_invalidations(where: Path) -> None:
    """Systems other than HoldMem's cells that log their invalidations get m, r and a: the
    imported memory with the keys has HoldMem(1,1)'s, the one without never detects (m = 1 and
    Update = a), and the custom system of the study, which logs them, gets them too."""
    for branch in ("src", "del"):
        original = overall(where, "holdmem-d1-source", branch)
        with_keys = overall(where, "pm-d1-source-ext", branch)
        assert {k: with_keys[k] for k in ("update", "m", "r", "a")} == {
            k: original[k] for k in ("update", "m", "r", "a")
        }
        without = overall(where, "pm-d1-source-noext", branch)
        assert without["m"] == 1.0 and without["update"] == without["a"]
        mine = overall(where, "mine", branch)
        logged = pq.read_table(where / RUN / f"w1000/{branch}/mine/invalidations.parquet")
        assert logged.num_rows > 0 and mine["m"] is not None and mine["r"] is not None
    assert "m" not in overall(where, "bm25", "src")  # a baseline reports no invalidations


def check_failure_modes(where: Path) -> None:
    """Consent as the paper measures it: every consent probe is answered, abstained on or
    refused; a B=0 cell never refuses, so it leaks at least as much as the B=1 cell of the same
    repair; the oracle context is blocked exactly where gold is."""
    scores = pq.read_table(where / RUN / "scores.parquet").to_pylist()
    held = [s for s in scores if s["branch"] == "cons" and s["kind"] == "held"]
    assert held and {s["status"] for s in held} <= {"answer", "abstain", "blocked"}
    assert "blocked" in {s["gold_status"] for s in held}
    rows = pq.read_table(where / RUN / "report/tables/failure_modes.parquet").to_pylist()
    by = {(r["system"], r["quantity"]): r for r in rows}
    for repair in ("0", "1"):
        b0, b1 = f"holdmem-d{repair}-append", f"holdmem-d{repair}-source"
        assert by[(b0, "leak")]["estimate"] >= by[(b1, "leak")]["estimate"]
        assert not [s for s in scores if s["system"] == b0 and s["status"] == "blocked"]
    oracle = [s for s in held if s["system"] == "oracle"]
    assert all((s["status"] == "blocked") == (s["gold_status"] == "blocked") for s in oracle)
    report = (where / RUN / "report/report.md").read_text()
    assert "## Consent" in report


def check_sync(where: Path) -> None:
    """The sync study answers every sync probe under both deliveries with each of its systems,
    and the report has its table and section."""
    scores = pq.read_table(where / RUN / "w1000/sync/sync-scores.parquet").to_pylist()
    pairs = {(s["probe_id"], s["system"], s["delivery"]) for s in scores}
    probes = {s["probe_id"] for s in scores}
    assert len(pairs) == len(scores) == len(probes) * 3 * 2
    assert {s["source"] for s in scores} >= {"calendar", "email", "tasks"}
    rows = pq.read_table(where / RUN / "report/tables/sync.parquet").to_pylist()
    assert {(r["system"], r["source"]) for r in rows if r["quantity"] == "difference"} >= {
        ("sync x key", "all"),
        ("bm25", "calendar"),
        ("holdmem-d1-source", "all"),
    }
    assert "## Sync contracts" in (where / RUN / "report/report.md").read_text()


def memshift_command(where: Path, package: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SNAKEMAKE.with_name("memshift")), *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=job_env(package),
    )


def check_predictions(where: Path, package: Path) -> None:
    """A system outside Python: the study exported as a dataset without gold, a shell script with
    jq predicting from its JSON lines, and the predictions scored into the report like a
    built-in system, with m, r and a from the invalidations it gives."""
    done = memshift_command(where, package, "export-dataset", "--configfile", "study.yaml",
                            "--out", "dataset")  # fmt: skip
    assert done.returncode == 0, done.stderr
    probes = pq.read_table(where / "dataset/probes.parquet")
    assert not {"gold_status", "gold_value", "changed", "sampled"} & set(probes.column_names)
    events = pq.read_table(where / "dataset/events.parquet")
    assert not {"event_id", "asserts", "component"} & set(events.column_names)
    script = Path(__file__).with_name("predict.sh")
    with (where / "predictions.jsonl").open("w") as out:
        subprocess.run(["sh", str(script), "dataset"], cwd=where, stdout=out, check=True)
    # a file that also answers a probe it was not given is refused before anything runs
    forged = where / "forged.jsonl"
    forged.write_text(
        (where / "predictions.jsonl").read_text()
        + '{"probe_id": "w1000-0000000000000000", "status": "abstain", "value": null, '
        '"invalidated": true}\n'
    )
    refused = memshift_command(where, package, "score-predictions", "forged.jsonl",
                               "--configfile", "study.yaml", "--name", "forged")  # fmt: skip
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr[-3000:]
    assert "1 prediction(s) for probes the study's dataset does not give, first " \
        "w1000-0000000000000000" in refused.stderr.strip().splitlines()[-1]  # fmt: skip
    assert not (where / RUN / "w1000/none/forged").exists()
    # against another study: one of more worlds is refused at once, nothing built; one whose
    # worlds are not built yet has its worlds built alone, then the file is refused before the
    # study runs
    wider = {**STUDY, "results": "wider", "worlds": {**STUDY["worlds"], "seeds": "1000-1001"}}
    elsewhere = {**STUDY, "results": "elsewhere"}
    for name, study in (("wider", wider), ("elsewhere", elsewhere)):
        (where / f"{name}.yaml").write_text(yaml.safe_dump(study))
    refused = memshift_command(where, package, "score-predictions", "predictions.jsonl",
                               "--configfile", "wider.yaml", "--name", "jq")  # fmt: skip
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr[-3000:]
    assert refused.stderr.strip().splitlines()[-1] == (
        "memshift: error: predictions.jsonl: no prediction for 1 of the 2 worlds of the study "
        "wider.yaml (first: world 1001); is it the study you predicted? (predict the probes of "
        "memshift export-dataset --configfile wider.yaml)"
    )
    assert not (where / "wider").exists()
    refused = memshift_command(where, package, "score-predictions", "forged.jsonl",
                               "--configfile", "elsewhere.yaml", "--name", "forged")  # fmt: skip
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr[-3000:]
    assert "1 prediction(s) for probes the study's dataset does not give" in refused.stderr
    assert (where / "elsewhere" / WORLDS.relative_to("results") / "w1000/manifest.json").exists()
    assert not (where / "elsewhere/runs").exists()
    done = memshift_command(where, package, "score-predictions", "predictions.jsonl",
                            "--configfile", "study.yaml", "--name", "jq-abstain")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    scores = pq.read_table(where / RUN / "scores.parquet").to_pylist()
    mine = [s for s in scores if s["system"] == "jq-abstain"]
    # scored on the probes every system is asked, which the dataset hides among more; abstaining
    # everywhere, exactly as the always-abstain floor
    floor = [s for s in scores if s["system"] == "always-abstain"]
    assert len(floor) < probes.num_rows
    assert sorted((s["branch"], s["probe_id"], s["correct"]) for s in mine) == sorted(
        (s["branch"], s["probe_id"], s["correct"]) for s in floor
    )
    changed = [s for s in mine if s["branch"] == "src" and s["changed"] and s["kind"] == "direct"
               and s["checkpoint"] > 0]  # fmt: skip
    found = overall(where, "jq-abstain", "src")
    assert found["m"] == 0.0
    assert found["update"] == pytest.approx(sum(s["correct"] for s in changed) / len(changed))
    assert "| jq-abstain |" in (where / RUN / "report/report.md").read_text()


def check_code_reruns(where: Path, package: Path) -> None:
    """An edit to one room's code reruns that room's jobs and what reads their outputs, no
    other: the fingerprint of a job holds its stage, system, detection and model roles."""
    jobs = rerun_by_edit(where, package, "memshift/memory/repair.py")
    assert set(jobs) == (
        {"audit_repair", "probe_cell", "answer_audit"}
        | AGGREGATES
        | SWITCHING
        | EXPORTING
        | SYNCING
    )
    jobs = rerun_by_edit(where, package, "memshift/simulator/reader.py")
    assert set(jobs) == (PROBING | AGGREGATES | SWITCHING | SYNCING | {"import_pm"})
    jobs = rerun_by_edit(where, package, "memshift/retrieval/embeddings.py")
    # one job per world probes every built-in baseline
    assert set(jobs) == {"probe_baselines"} | AGGREGATES
    assert jobs["probe_baselines"] == ["world=1000"]
    jobs = rerun_by_edit(where, package, "custom_memory.py")
    assert set(jobs) == {"probe_reporting"} | AGGREGATES
    assert jobs["probe_reporting"] == ["world=1000, system=mine"]
    # each role's prompt is its own module: an edit reruns the jobs that call that role alone
    reading = {"probe_cell", "probe_baselines", "probe_reporting", "answer_audit", "import_pm"}
    jobs = rerun_by_edit(where, package, "memshift/models/prompts/reader.py")
    assert set(jobs) == reading | AGGREGATES | SWITCHING | SYNCING
    # (every role's prompt module in its own jobs' code alone: tests/test_fingerprint.py)
    jobs = rerun_by_edit(where, package, "memshift/models/prompts/writer.py")
    assert {"prefork", "ingest"} <= set(jobs) and not {"probe_baselines", "probe_reporting"} & set(
        jobs
    )


def check_precise_reruns(where: Path, package: Path) -> None:
    """Each change reruns exactly the jobs that depend on it (dry runs on a finished study)."""
    check_code_reruns(where, package)
    models = where / "config/models.yaml"
    original = edited(
        models,
        "    backend: rules\n    description: The built-in",
        "    backend: rules\n    roles: {reader: {decoding: {max_tokens: 256}}}\n"
        "    description: The built-in",
    )
    jobs = planned(where, package=package)
    assert set(jobs) == (
        {"probe_cell", "probe_baselines", "probe_reporting", "answer_audit", "import_pm"}
        | AGGREGATES
        | SWITCHING
        | SYNCING
    )
    models.write_text(original)

    # the new writer of one switch: that switch, that writer's calibration, and what reads them
    original = edited(
        models,
        "error_model: {seed: 7, rates: {definition: 0.3}}",
        "error_model: {seed: 8, rates: {definition: 0.3}}",
    )
    jobs = planned(where, package=package)
    assert set(jobs) == SWITCHING | {"report", "run_manifest", "failures_gate", "all"}
    assert jobs["switch"] == ["switch=weak-def"]
    assert jobs["calibrate_writer"] == ["profile=rules-weak-definitions"]
    models.write_text(original)

    # the auditor role and the answer-level audit's own code rerun that stage alone
    original = edited(
        models,
        "    backend: rules\n    description: The built-in",
        "    backend: rules\n    roles: {auditor: {decoding: {max_tokens: 256}}}\n"
        "    description: The built-in",
    )
    jobs = planned(where, package=package)
    assert set(jobs) == {"answer_audit"} | AGGREGATES
    assert jobs["answer_audit"] == ["world=1000"]  # one job audits every audited system
    models.write_text(original)
    audit_code = package / "memshift/audit/answers.py"
    original = audit_code.read_text()
    audit_code.write_text(original + "\n# an edit to the answer-level audit\n")
    assert set(planned(where, package=package)) == {"answer_audit"} | AGGREGATES
    audit_code.write_text(original)

    scorer = package / "memshift/scoring/scorer.py"
    original = scorer.read_text()
    scorer.write_text(original + "\n# an edit to the scorer\n")
    # the sync study scores its answers in its own job
    assert set(planned(where, package=package)) == AGGREGATES | {"switch_score"} | SYNCING
    scorer.write_text(original)

    study = where / "study.yaml"
    original = edited(study, "custom_memory:NewestRecords", "custom_memory:NewestRecordsRenamed")
    jobs = planned(where, package=package)
    assert set(jobs) == {"probe_reporting"} | AGGREGATES
    assert jobs["probe_reporting"] == ["world=1000, system=mine"]  # one job: every branch
    study.write_text(original)

    original = edited(study, "- '1'\n", "- '1'\n    - m\n")
    jobs = planned(where, package=package)
    # one job per world runs every cell, so the audited cell's answers are written again and
    # audited again (every model call of it cached); no ingest
    assert set(jobs) == {"audit_repair", "probe_cell", "answer_audit"} | AGGREGATES
    assert jobs["audit_repair"] == jobs["probe_cell"] == ["world=1000"]
    study.write_text(original)

    original = edited(study, "seeds: '1000'", "seeds: 1000-1001")
    jobs = planned(where, package=package)
    # a switch is one job over every world of the study
    assert sorted(jobs.pop("switch")) == ["switch=identity", "switch=weak-def"]
    per_world = {rule: w for rule, w in jobs.items() if rule not in AGGREGATES | SWITCHING}
    assert "world" in per_world and "ingest" in per_world
    assert all("world=1001" in w for waves in per_world.values() for w in waves)
    study.write_text(original)

    assert planned(where, package=package) == {}


def check_costs(where: Path) -> None:
    """The cost table charges each system exactly the tokens its call logs hold: the reader's
    for serving, the detection's writer calls for maintenance, the pre-fork store's on every
    branch for ingestion, nothing written for retrieval without a store."""
    runs = where / RUN

    def logged(
        pattern: str,
        role: str,
        system: str | None = None,
        columns: tuple[str, ...] = ("tokens_in", "tokens_out"),
    ) -> int:
        """The tokens of `role` (for `system` only, where a job's log holds several) in the
        call logs `pattern` finds."""
        paths = sorted(runs.glob(pattern))
        assert paths, pattern
        total = 0
        for path in paths:
            for row in pq.read_table(path).to_pylist():
                if row["role"] == role and system in (None, row["system"]):
                    total += sum(row[column] for column in columns)
        return total

    costs = {
        (r["system"], r["part"]): r
        for r in pq.read_table(runs / "report/tables/costs.parquet").to_pylist()
    }
    branches = len(STUDY["branches"])
    assert costs[("bm25", "serving_in")]["tokens"] == logged(
        "w*/calls-baselines.parquet", "reader", "bm25", ("tokens_in",)
    )
    assert costs[("holdmem-d1-append", "maintenance")]["tokens"] == logged(
        "w*/calls-ingest.parquet", "writer", "holdmem-append"
    )
    assert costs[("holdmem-d0-source", "ingestion")]["tokens"] == branches * logged(
        "w*/calls-prefork.parquet", "writer"
    )
    assert costs[("holdmem-d0-source+audit", "programs_audits")]["tokens"] == logged(
        "w*/calls-audit.parquet", "auditor", "holdmem-d0-source+audit"
    )
    for system in ("bm25", "rag", "oracle"):
        assert [costs[(system, p)]["tokens"] for p in ("ingestion", "maintenance")] == [0, 0]
    for system in {s for s, _ in costs if "/" not in s}:
        parts = [costs[(system, p)]["tokens"] for p in COST_PARTS]
        assert sum(parts) == costs[(system, "total")]["tokens"], system


def embedded_page(report: str, name: str) -> str:
    """An HTML result inside Snakemake's report, as the data URI its viewer shows in a frame."""
    uri = re.search(
        rf"data:text/html;charset=utf8;filename={re.escape(name)};base64,([\w+/=]+)", report
    )
    assert uri, f"{name} is not in the report as an HTML page"
    return base64.b64decode(uri.group(1)).decode()


def check_snakemake_report(where: Path, package: Path) -> None:
    """`snakemake --report` for the study's own --configfile, the same command the run printed:
    its Update table shows the run's numbers, and figures and tables carry names."""
    built = snakemake(where, "--report", "study-report.html", package=package)
    assert built.returncode == 0, built.stderr[-2000:]
    report = (where / "study-report.html").read_text()
    assert "Update (share correct on changed item-times)" in report  # a figure's caption
    assert "memshift study" in report and "e2e" in report  # the workflow description
    for label in ("Update and Stability", "Tables and figures (read here)", "Measures"):
        assert f'"{label}"' in report, label
    page = embedded_page(report, "report.html")
    assert page == (where / RUN / "report/report.html").read_text()
    update = page[page.index('<h2 id="update">Update</h2>') :]
    update = update[: update.index("</table>")]
    assert "<th>system</th><th>no shift</th><th>source revision</th>" in update
    measures = pq.read_table(where / RUN / "report/tables/measures.parquet")
    cell = next(
        row
        for row in measures.to_pylist()
        if (row["system"], row["branch"], row["measure"]) == ("holdmem-d1-source", "src", "update")
        and row["item_class"] == row["cause"] == "all"
    )
    row = re.search(r"<tr><td>holdmem-d1-source</td>.*?</tr>", update)
    assert row, update
    # one world: the report says once that no estimate has an interval, so the cell is bare
    shown = NO_INTERVAL_NOTE.sub("", interval(cell))
    assert f'<td class="number">{html.escape(shown)}</td>' in row.group(0)
    assert "<tr><td>always-abstain (floor)</td>" in update


@pytest.mark.slow(minutes=5)
def test_the_study_runs_reruns_nothing_and_reproduces_every_artifact(tmp_path):
    package = tmp_path / "package"
    shutil.copytree(
        ROOT / "src/memshift", package / "memshift", ignore=shutil.ignore_patterns("__pycache__")
    )
    # the study's custom system, where an edit to it reaches the jobs
    shutil.copy(Path(__file__).with_name("custom_memory.py"), package)
    first = workflow_copy(tmp_path / "a", STUDY)
    run = snakemake(first, package=package)
    assert run.returncode == 0, run.stderr[-3000:]
    manifest = json.loads((first / WORLDS / "w1000/manifest.json").read_text())
    # every branch, whatever the study's: worlds are shared by studies of other branches
    assert len(manifest["files"]) == 2 + 4 * len(BRANCHES)
    runs = first / RUN / "w1000"
    for branch in STUDY["branches"]:
        for system in (
            "holdmem-d0-source",
            "holdmem-d1-append",
            "bm25",
            "oracle",
            "mine",
            "holdmem-d0-source+audit",
        ):
            answers = pq.read_table(answers_table(runs, branch, system))
            probes = pq.read_table(first / WORLDS / f"w1000/probes-{branch}.parquet")
            # the cells answering every unshifted item-time answer the whole file; the others
            # (an answer-level audit of such a cell too) what the measures count
            asked = probes if system in UNSHIFTED_ALL else measured(probes)
            assert answers.num_rows == asked.num_rows, (branch, system)
        assert (measured(probes).num_rows < probes.num_rows) == (branch == "none")
    assert json.loads((runs / "fork-check.json").read_text())["identical"]
    scores = pq.read_table(first / RUN / "scores.parquet").to_pylist()
    # in the jobs' folders (the cells', the baselines', the audited systems') and the systems'
    jobs = (layout.CELLS_JOB, layout.BASELINES_JOB, layout.AUDIT_JOB)
    answered = [
        *runs.glob("*/*/answers.parquet"),
        *(p for job in jobs for p in layout.job_answers(layout.job_dir(runs, job))),
    ]
    # the floors are answered by the score stage itself, without an answers table
    systems = [s for s in scores if s["system"] not in FLOORS]
    assert len(answered) == len(STUDY["branches"]) * len({s["system"] for s in systems})
    assert len(systems) == sum(pq.read_table(p).num_rows for p in answered)
    cell = [s for s in scores if s["system"] == "holdmem-d1-source" and s["branch"] == "del"]
    assert all(s["correct"] for s in cell if s["changed"] and s["checkpoint"] > 0)
    report = (first / RUN / "report/report.md").read_text()
    assert "rule-based backend" in report and "| mine |" in report
    assert "holdmem-d1-source" in report and "B×D" in report
    assert "| holdmem-d0-source+audit |" in report and "### Premise resistance" in report
    assert "| holdmem-d0-source+audit | auditor |" in report  # the model-call table
    assert str(RUN / "report/report.md") in run.stderr  # the run names its report
    assert "snakemake --configfile study.yaml --report study-report.html" in run.stderr
    check_unshifted(first)
    check_writer_switch(first)
    check_export(first)
    check_reported_invalidations(first)
    check_floors(first)
    check_failure_modes(first)
    check_sync(first)
    check_costs(first)
    check_snakemake_report(first, package)
    dry = snakemake(first, "-n", package=package)
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr
    assert_verified(first, RUN)
    check_precise_reruns(first, package)
    second = workflow_copy(tmp_path / "b", STUDY)
    assert snakemake(second, package=package).returncode == 0
    again = json.loads((second / WORLDS / "w1000/manifest.json").read_text())
    assert again == manifest
    manifests = [
        json.loads((where / RUN / "manifest.json").read_text()) for where in (first, second)
    ]
    assert manifests[0] == manifests[1]
    for name in REPORT_FILES:
        path = RUN / "report" / name
        assert (first / path).read_bytes() == (second / path).read_bytes(), name
    check_predictions(first, package)


def test_a_bad_config_stops_with_one_line(tmp_path):
    where = workflow_copy(tmp_path / "bad", {**STUDY, "branches": ["none", "sideways"]})
    run = snakemake(where, "-n")
    assert run.returncode != 0
    assert "memshift: config error: config branches.1: 'sideways' is not valid" in run.stderr


def config_error(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode != 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith("memshift: config error: "), run.stderr[-3000:]
    return line


@pytest.mark.parametrize(
    ("custom", "problem"),
    [
        ("os:abort", "systems.custom.mine: 'os:abort' is a function, not a class"),
        ("custom_memory:Missing", "systems.custom.mine: 'custom_memory:Missing': custom_memory "),
        ("not_installed_anywhere:Memory", "cannot import not_installed_anywhere"),
    ],
)
def test_a_custom_system_that_cannot_run_fails_the_dry_run(tmp_path, custom, problem):
    systems = {**STUDY["systems"], "custom": {"mine": custom}}
    where = workflow_copy(tmp_path / "custom", {**STUDY, "systems": systems})
    assert problem in config_error(snakemake(where, "-n"))


def test_a_yaml_alias_bomb_fails_the_dry_run_at_once(tmp_path):
    where = workflow_copy(tmp_path / "bomb", STUDY)
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (where / "study.yaml").write_text("\n".join(lines) + "\n")
    assert "study.yaml: anchors and aliases (&name, *name) are not allowed" in config_error(
        snakemake(where, "-n")
    )


def test_the_default_config_goes_through_the_safe_loader(tmp_path):
    where = workflow_copy(tmp_path / "default", STUDY)
    default = where / "config/config.yaml"
    default.write_text("llm: &profile rules\nmodels: *profile\n" + default.read_text())
    assert "config/config.yaml: anchors and aliases" in config_error(snakemake(where, "-n"))


def test_a_models_file_with_aliases_fails_the_dry_run_in_one_line(tmp_path):
    where = workflow_copy(tmp_path / "models", {**STUDY, "llm": "mine", "models": "models.yaml"})
    (where / "models.yaml").write_text("profiles:\n  base: &base {backend: rules}\n  mine: *base\n")
    line = config_error(snakemake(where, "-n"))
    assert "model profiles models.yaml: anchors and aliases" in line


def test_the_slurm_profile_plans_the_study(tmp_path):
    """A dry run through the SLURM executor plugin: the profile's every key is one the plugin
    and Snakemake accept, and the study's jobs are planned for submission."""
    where = workflow_copy(tmp_path / "slurm", STUDY)
    run = snakemake(where, "-n", "--workflow-profile", "profiles/slurm")
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout + run.stderr
    assert "Using workflow specific profile profiles/slurm" in out
    assert "ingest" in out and "report" in out


def test_each_role_calls_its_own_profile_and_the_run_folder_names_it(tmp_path):
    """A study that gives only the reader another profile: every reading stage is planned with
    that profile, every writing stage with `llm`, in a run folder that names the reader."""
    study = {
        **{key: value for key, value in STUDY.items() if key != "writer_switch"},
        "roles": {"reader": "sim-all-20"},
    }
    where = workflow_copy(tmp_path / "roles", study)
    run = snakemake(where, "-n", "-p")
    assert run.returncode == 0, run.stderr[-3000:]
    commands = [
        line.split("Shell command: ", 1)[1]
        for line in (run.stdout + run.stderr).splitlines()
        if "Shell command: memshift " in line
    ]
    by_stage: dict[str, set[str]] = {}
    for command in commands:
        words = shlex.split(command)
        if "--llm" in words:
            by_stage.setdefault(words[1], set()).add(words[words.index("--llm") + 1])
        if words[1] == "job":
            roles = json.loads(words[3]).get("access", {}).get("roles", {})
            by_stage.setdefault(words[2], set()).update(roles.values())
    assert by_stage["probe"] == {"sim-all-20"}
    assert by_stage["prefork"] == by_stage["ingest"] == by_stage["audit_repair"] == {"rules"}
    [report] = [
        json.loads(shlex.split(c)[3]) for c in commands if c.startswith("memshift job report")
    ]
    assert report["llm"] == "rules" and report["access"]["roles"]["reader"] == "sim-all-20"
    assert all(
        f"results/runs/e2e/h{STUDY['worlds']['history_months']}/rules+reader=sim-all-20/" in c
        for c in commands
        if "--run-dir" in c or '"run":' in c
    )
