"""Code fingerprints: an edit reruns exactly the stages whose code it touches."""

from __future__ import annotations

import shutil

import pytest

from memshift import fingerprint

STAGES = ("world", "branches", "gold", "probes", "manifest", "probe", "score", "report")


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    copy = tmp_path / "memshift"
    shutil.copytree(fingerprint.ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "ROOT", copy)
    fingerprint.closure.cache_clear()
    yield copy
    fingerprint.closure.cache_clear()


def prints():
    fingerprint.closure.cache_clear()
    return {s: fingerprint.code_fingerprint(f"memshift.stages.{s}") for s in STAGES}


# The jobs of a study with the simulator as its model, as the rules fingerprint them.
JOBS = {
    "prefork": dict(stage="prefork", roles=("writer",)),
    "ingest source": dict(stage="ingest", roles=("writer",), detection="source"),
    "ingest audit": dict(stage="ingest", roles=("writer", "auditor"), detection="audit"),
    "audit_repair": dict(stage="audit_repair", roles=("program",)),
    "probe cell": dict(stage="probe", roles=("reader",), system="holdmem"),
    "probe bm25": dict(stage="probe", roles=("reader",), system="bm25"),
    "probe rag": dict(stage="probe", roles=("reader",), system="rag"),
    "probe oracle": dict(stage="probe", roles=("reader",), system="oracle"),
    "probe custom": dict(stage="probe", roles=("reader",)),
    "answer_audit": dict(stage="answer_audit", roles=("auditor",)),
    "score": dict(stage="score"),
    "report": dict(stage="report"),
}


def modules(job: str) -> tuple[str, ...]:
    spec = dict(JOBS[job])
    stage = spec.pop("stage")
    return fingerprint.job_modules(stage, backend="rules", **spec)


def holding(module: str) -> set[str]:
    """The jobs whose code includes `module` (or a module inside it)."""
    return {
        job for job in JOBS if any(m == module or m.startswith(module + ".") for m in modules(job))
    }


def test_repair_code_is_in_no_detection_job():
    assert holding("memshift.memory.repair") == {"audit_repair"}
    assert holding("memshift.memory.programs") == {"audit_repair"}
    assert holding("memshift.sandbox") == {"audit_repair"}


def test_each_simulated_role_is_only_in_the_jobs_that_ask_it():
    assert holding("memshift.simulator.reader") == {
        "probe cell",
        "probe bm25",
        "probe rag",
        "probe oracle",
        "probe custom",
    }
    assert holding("memshift.simulator.writer") == {"prefork", "ingest source", "ingest audit"}
    assert holding("memshift.simulator.programs") == {"audit_repair"}
    assert holding("memshift.simulator.auditor") == {"ingest audit", "answer_audit"}


def test_one_systems_code_is_in_no_other_systems_jobs():
    assert holding("memshift.retrieval.embeddings") == {"probe rag"}
    assert holding("memshift.memory.dense") == {"probe rag"}
    assert holding("memshift.memory.served") == {"probe cell"}
    assert holding("memshift.memory.baselines") == {
        "probe bm25",
        "probe rag",  # the shared base of the baselines that keep the live records
        "probe oracle",
    }
    assert holding("memshift.memory.audited") == {"ingest audit"}
    # the report runs the gate and the semantic check on the trap suite
    assert holding("memshift.audit") == {"ingest audit", "answer_audit", "report"}


def test_analysis_and_scoring_code_stays_out_of_the_model_jobs():
    assert holding("memshift.analysis") == {"report"}
    assert holding("memshift.scoring") <= {"score", "report"}


def test_an_http_backend_counts_its_module_and_no_simulated_role():
    found = fingerprint.job_modules("probe", backend="openai", roles=("reader",), system="bm25")
    assert "memshift.models.openai_backend" in found
    assert not any(m.startswith("memshift.simulator") for m in found)


def test_closure_follows_imports_and_stops_at_the_package():
    manifest = fingerprint.closure("memshift.stages.manifest")
    assert "memshift.artifacts" in manifest
    assert not any(m.startswith("memshift.world") for m in manifest)
    assert "memshift.world.filler" in fingerprint.closure("memshift.stages.world")


def test_editing_a_module_changes_the_stages_that_import_it_and_no_other(package_copy):
    before = prints()
    filler = package_copy / "world" / "filler.py"
    filler.write_text(filler.read_text() + "\n# an edit\n")
    after = prints()
    assert {s for s in STAGES if before[s] != after[s]} == {
        "world",
        "branches",
        "gold",
        "probes",
        "probe",
        "report",  # it loads worlds to price a full re-read
    }
    probes = package_copy / "probes.py"
    probes.write_text(probes.read_text() + "\n# another edit\n")
    last = prints()
    # the probe stage asks only the probes the measures count (probes.measured)
    assert {s for s in STAGES if after[s] != last[s]} == {"probes", "probe"}


def test_the_scorer_reruns_scoring_and_the_analysis_sql_reruns_the_report(package_copy):
    before = prints()
    scorer = package_copy / "scoring" / "scorer.py"
    scorer.write_text(scorer.read_text() + "\n# an edit\n")
    after = prints()
    assert {s for s in STAGES if before[s] != after[s]} == {"score"}
    sql = package_copy / "analysis" / "sql" / "measure_ratios.sql"
    sql.write_text(sql.read_text() + "\n-- an edit\n")
    last = prints()
    assert {s for s in STAGES if after[s] != last[s]} == {"report"}


def test_the_auditors_code_changes_only_the_audit_jobs_prints(package_copy):
    def job_prints() -> dict[str, str]:
        fingerprint.closure.cache_clear()
        return {job: fingerprint.modules_fingerprint(modules(job)) for job in JOBS}

    before = job_prints()
    gate = package_copy / "audit" / "gate.py"
    gate.write_text(gate.read_text() + "\n# an edit\n")
    after = job_prints()
    changed = {job for job in JOBS if before[job] != after[job]}
    assert changed == {"ingest audit", "answer_audit", "report"}  # the report's trap suite


def test_type_only_imports_do_not_count():
    assert "memshift.audit.arbiter" not in fingerprint.closure("memshift.memory.write_tables")
