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
    return {
        s: fingerprint.code_fingerprint(f"memshift.stages.{s}", without=fingerprint.AUDIT_ONLY)
        for s in STAGES
    }


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
    assert {s for s in STAGES if after[s] != last[s]} == {"probes"}


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


def test_the_auditors_code_reruns_only_the_audit_jobs(package_copy):
    def ingest(audit: bool) -> str:
        fingerprint.closure.cache_clear()
        without = () if audit else fingerprint.AUDIT_ONLY
        return fingerprint.code_fingerprint("memshift.stages.ingest", without=without)

    before = {audit: ingest(audit) for audit in (True, False)}
    stages_before = prints()
    gate = package_copy / "audit" / "gate.py"
    gate.write_text(gate.read_text() + "\n# an edit\n")
    after = {audit: ingest(audit) for audit in (True, False)}
    assert after[True] != before[True]
    assert after[False] == before[False]
    assert prints() == stages_before  # as the rules count code, only audit jobs see it
