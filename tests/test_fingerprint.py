"""Code fingerprints: an edit reruns exactly the stages whose code it touches."""

from __future__ import annotations

import json
import shutil

import pytest

from memshift.workflow import fingerprint

STAGES = ("world", "branches", "gold", "probes", "manifest", "probe", "score", "report")


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    copy = tmp_path / "memshift"
    shutil.copytree(fingerprint.ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "ROOT", copy)
    fingerprint.forget()
    yield copy
    fingerprint.forget()


def prints():
    fingerprint.forget()
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
        "score",  # the floors read the world's items
        "report",  # it loads worlds to price a full re-read
    }
    probes = package_copy / "probes/build.py"
    probes.write_text(probes.read_text() + "\n# another edit\n")
    last = prints()
    # the probe stage asks only the probes the measures count (probes.measured), and so do the
    # floors, which the score stage answers
    assert {s for s in STAGES if after[s] != last[s]} == {"probes", "probe", "score"}


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
        fingerprint.forget()
        return {job: fingerprint.modules_fingerprint(modules(job)) for job in JOBS}

    before = job_prints()
    gate = package_copy / "audit" / "gate.py"
    gate.write_text(gate.read_text() + "\n# an edit\n")
    after = job_prints()
    changed = {job for job in JOBS if before[job] != after[job]}
    assert changed == {"ingest audit", "answer_audit", "report"}  # the report's trap suite


def test_type_only_imports_do_not_count():
    assert "memshift.audit.arbiter" not in fingerprint.closure("memshift.memory.write_tables")


# ---- the memo of what each source imports, kept between runs ----


@pytest.fixture
def fresh_memo(monkeypatch):
    """An empty memo in place of the process's, with the closures computed again."""

    def fresh() -> fingerprint.ImportMemo:
        memo = fingerprint.ImportMemo()
        monkeypatch.setattr(fingerprint, "MEMO", memo)
        fingerprint.forget()
        return memo

    yield fresh
    fingerprint.forget()


def all_jobs_modules() -> dict[str, tuple[str, ...]]:
    return {job: modules(job) for job in JOBS}


def test_a_remembered_memo_gives_the_same_closures_without_parsing(
    fresh_memo, tmp_path, monkeypatch
):
    memo_file = tmp_path / "imports.json"
    fresh_memo()
    parsed = all_jobs_modules()
    fingerprint.save_remembered_imports(memo_file)
    fresh_memo()
    fingerprint.remember_imports(memo_file)

    def no_parsing(*args, **kwargs):
        raise AssertionError("a remembered source was parsed again")

    monkeypatch.setattr(fingerprint.ast, "parse", no_parsing)
    assert all_jobs_modules() == parsed
    # nothing new was parsed, so nothing is written
    memo_file.unlink()
    fingerprint.save_remembered_imports(memo_file)
    assert not memo_file.exists()


def test_an_edited_import_is_parsed_again_not_taken_from_the_memo(
    fresh_memo, package_copy, tmp_path
):
    memo_file = tmp_path / "imports.json"
    fresh_memo()
    assert "memshift.world.filler" not in fingerprint.closure("memshift.stages.manifest")
    fingerprint.save_remembered_imports(memo_file)
    stage = package_copy / "stages" / "manifest.py"
    stage.write_text(stage.read_text() + "\nimport memshift.world.filler  # an edit\n")
    fresh_memo()
    fingerprint.remember_imports(memo_file)
    assert "memshift.world.filler" in fingerprint.closure("memshift.stages.manifest")


BAD_MEMOS = {
    "not JSON": b"{entries: nope",
    "not UTF-8": b"\xff\xfe\x00{",
    "a list": b"[1, 2, 3]",
    "another version": json.dumps({"version": 99, "entries": {}}).encode(),
    "entries not a mapping": json.dumps({"version": 1, "entries": [1]}).encode(),
    "deeply nested": b'{"version": 1, "entries": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "oversized": b" " * (fingerprint.ImportMemo.MAX_BYTES + 1) + b"{}",
}


@pytest.mark.parametrize("content", BAD_MEMOS.values(), ids=BAD_MEMOS.keys())
def test_a_bad_memo_file_is_ignored(fresh_memo, tmp_path, content):
    fresh_memo()
    expected = all_jobs_modules()
    memo_file = tmp_path / "imports.json"
    memo_file.write_bytes(content)
    fresh_memo()
    fingerprint.remember_imports(memo_file)
    assert all_jobs_modules() == expected


def test_entries_of_the_wrong_type_are_skipped(fresh_memo, tmp_path):
    memo_file = tmp_path / "imports.json"
    memo_file.write_text(
        json.dumps({"version": 1, "entries": {"a": "memshift.x", "b": [1], "c": ["memshift.y"]}})
    )
    memo = fresh_memo()
    fingerprint.remember_imports(memo_file)
    assert memo.entries == {"c": frozenset({"memshift.y"})}


def test_a_memo_that_cannot_be_written_costs_only_the_parsing(fresh_memo, tmp_path):
    fresh_memo()
    all_jobs_modules()
    blocked = tmp_path / "a file"
    blocked.write_text("")
    fingerprint.save_remembered_imports(blocked / "imports.json")  # its folder is a file
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_probe_sample_reruns_the_memory_and_probe_jobs_and_no_world_job(package_copy):
    def stage_prints(stages: tuple[str, ...]) -> dict[str, str]:
        fingerprint.forget()
        return {s: fingerprint.code_fingerprint(f"memshift.stages.{s}") for s in stages}

    sampled = ("prefork", "ingest", "audit_repair", "probe", "answer_audit", "predictions")
    stages = (*STAGES, *sampled)
    before = stage_prints(stages)
    draw = package_copy / "probes/sample.py"
    draw.write_text(draw.read_text() + "\n# an edit\n")
    after = stage_prints(stages)
    # the score stage answers the floors on the probes the sample asks
    assert {s for s in stages if before[s] != after[s]} == {*sampled, "score", "report"}
    # the probes' part is read by the stages that ask probes only
    table = package_copy / "probes/sampled.py"
    table.write_text(table.read_text() + "\n# an edit\n")
    last = stage_prints(stages)
    assert {s for s in stages if after[s] != last[s]} == {
        "probe",
        "answer_audit",
        "predictions",
        "score",
    }


@pytest.mark.parametrize("role", ["writer", "reader", "program", "auditor"])
def test_a_jobs_code_holds_the_prompts_of_its_roles_alone(role):
    """Each role's prompt is a module of its own: a job counts the prompts of the roles it calls,
    so an edit to one role's prompt reruns only that role's jobs."""
    from memshift.registry import PROMPTS, module_of

    for backend in ("rules", "openai"):
        found = fingerprint.job_modules("probe", backend=backend, roles=(role,), system="bm25")
        prompts = {m for m in found if m.startswith("memshift.models.prompts.")}
        assert module_of(PROMPTS[role]) in prompts
        assert {module_of(PROMPTS[other]) for other in PROMPTS if other != role} & prompts == set()


def test_a_shift_in_its_own_module_is_in_the_world_jobs_code(package_copy, monkeypatch):
    """A shift registered by name (docs/extending.md) is loaded, not imported: the world job's
    code still holds its module, so editing the shift reruns the worlds."""
    from memshift.registry import SHIFTS, Shift

    shift = package_copy / "my_shift.py"
    shift.write_text("from memshift.timeutil import WEEKDAYS\n\n\ndef build(ctx):\n    return []\n")
    monkeypatch.setattr(
        fingerprint, "SHIFTS", {**SHIFTS, "mine": Shift("mine", "memshift.my_shift:build")}
    )

    def world_code(*shifts: str) -> str:
        fingerprint.forget()
        stages = ("world", "branches", "gold", "probes", "manifest")
        found = {m for s in stages for m in fingerprint.job_modules(s, shifts=shifts)}
        return fingerprint.modules_fingerprint(sorted(found))

    with_it = fingerprint.job_modules("branches", shifts=("src", "mine"))
    assert {"memshift.my_shift", "memshift.timeutil"} <= set(with_it)
    assert "memshift.my_shift" not in fingerprint.job_modules("branches", shifts=("src",))
    before, without = world_code("none", "src", "mine"), world_code("none", "src")
    shift.write_text(shift.read_text() + "\n# an edit\n")
    assert world_code("none", "src", "mine") != before
    # worlds built without the shift do not rerun for it
    assert world_code("none", "src") == without


def test_a_memory_job_holds_no_world_building_stage_in_its_code():
    """A memory job reads a built world; an edit to the stages that build one (the world job's)
    reruns the world job, and the memory jobs only through the world's changed files."""
    building = {f"memshift.stages.{s}" for s in ("world", "branches", "gold", "probes", "chain")}
    for stage in ("prefork", "ingest", "audit_repair", "probe", "answer_audit", "score"):
        assert not building & set(fingerprint.job_modules(stage)), stage


# Jobs that load one registry entry of each kind, beside `JOBS`.
ENTRY_JOBS = {
    **JOBS,
    "world src": dict(stage="branches", shifts=("none", "src")),
    "world src del": dict(stage="branches", shifts=("none", "src", "del")),
    "native mem0": dict(stage="probe_native", system="mem0"),
    "native lightrag": dict(stage="probe_native", system="lightrag"),
    "probe bm25 openai": dict(stage="probe", system="bm25", roles=("reader",), backend="openai"),
}


def entry_job_prints() -> dict[str, str]:
    fingerprint.forget()
    found = {}
    for job, spec in ENTRY_JOBS.items():
        spec = dict(spec)
        stage = spec.pop("stage")
        backend = spec.pop("backend", "rules")
        modules = fingerprint.job_modules(stage, backend=backend, **spec)
        found[job] = fingerprint.modules_fingerprint(modules)
    return found


def rerun_by_registry_edit(package_copy, old: str, new: str) -> set[str]:
    registry = package_copy / "registry.py"
    source = registry.read_text()
    assert source.count(old) == 1, old
    before = entry_job_prints()
    registry.write_text(source.replace(old, new))
    after = entry_job_prints()
    registry.write_text(source)
    return {job for job in ENTRY_JOBS if before[job] != after[job]}


@pytest.mark.parametrize(
    ("entry", "jobs"),
    [
        ("memshift.branches:deletion", {"world src del"}),
        ("memshift.memory.baselines:bm25_system", {"probe bm25", "probe bm25 openai"}),
        ("memshift.memory.dense:rag_system", {"probe rag"}),
        ("memshift.memory.served:store_system", {"probe cell"}),
        ("memshift.native.mem0_memory:Mem0Memory", {"native mem0"}),
        ("memshift.models.openai_backend:OpenAIBackend", {"probe bm25 openai"}),
        (
            "memshift.simulator.writer:simulated_writer",
            {"prefork", "ingest source", "ingest audit"},
        ),
        ("memshift.models.prompts.auditor:messages", {"ingest audit", "answer_audit"}),
        ("memshift.memory.audited:AuditStep", {"ingest audit"}),
    ],
)
def test_pointing_a_registry_entry_elsewhere_reruns_its_jobs_alone(package_copy, entry, jobs):
    """Item by item, the registry counts only in the jobs that load an entry: an edit to where a
    shift, a system, a native library, a backend, a simulated role, a prompt or a detection step
    points reruns the jobs of that entry and no other."""
    module, _, attribute = entry.partition(":")
    assert rerun_by_registry_edit(package_copy, f'"{entry}"', f'"{module}:{attribute}_v2"') == jobs


def test_a_new_name_or_label_in_the_registry_reruns_every_job_and_a_comment_none(package_copy):
    """Names and labels are the vocabulary every job's spec is checked against, and some stages
    iterate them (the calibration walks every branch): a change to them reruns everything."""
    every = set(ENTRY_JOBS)
    new_baseline = '"oracle": "memshift.memory.baselines:oracle_system",'
    added = new_baseline + '\n    "bm26": "memshift.memory.baselines:bm25_system",'
    assert rerun_by_registry_edit(package_copy, new_baseline, added) == every
    assert rerun_by_registry_edit(package_copy, '"deletion"', '"removal"') == every
    assert rerun_by_registry_edit(package_copy, "# Memory systems built in", "# Systems") == set()


# Where the package loads a registry entry by name, and the table it reads: each is declared to
# `fingerprint.job_modules` by one of its keywords, so a job's code counts the entries it loads.
LOADERS = {
    ("memshift.branches", "SHIFT_ENTRIES"),  # shifts=
    ("memshift.memory.named", "SYSTEMS"),  # system=
    ("memshift.native.settings", "NATIVE_SYSTEMS"),  # system=
    ("memshift.models.client", "BACKENDS"),  # backend=
    ("memshift.simulator.backend", "SIMULATED_ROLES"),  # roles= (a direct backend's)
    ("memshift.models.prompts", "PROMPTS"),  # roles=
    ("memshift.memory.holdmem", "DETECTION_STEPS"),  # detection=
    ("memshift.workflow.fingerprint", "BACKENDS"),  # whether a backend is the simulator
}


def test_every_place_that_loads_a_registry_entry_is_declared_to_the_fingerprint():
    """A new place that loads entries by name must be declared to `job_modules` (a keyword), or
    the jobs that run it would not rerun when its entries are pointed elsewhere."""
    import ast

    found = set()
    for path in sorted(fingerprint.ROOT.rglob("*.py")):
        relative = path.relative_to(fingerprint.ROOT).with_suffix("")
        parts = [p for p in relative.parts if p != "__init__"]
        module = ".".join(["memshift", *parts])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "load":
                tables = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
                found |= {(module, t) for t in tables if t.isupper()}
    assert found == LOADERS
