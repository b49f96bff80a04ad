"""The run manifest records what produced a run; verify re-hashes its outputs."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memshift.artifacts import ArtifactError, write_json
from memshift.cli import cli
from memshift.models.profiles import Profile
from memshift.stages import run_manifest


def outputs(tmp_path: Path) -> list[Path]:
    files = []
    for name, text in (("runs/a.txt", "alpha"), ("worlds/w1/b.txt", "beta")):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        files.append(path)
    return files


REMOTE = Profile(
    "remote", "openai", model="m-1", revision="r7", base_url="http://x/v1", api_key_env="KEY"
)
PROFILE = {role: REMOTE for role in ("writer", "reader", "program", "auditor")}


def test_manifest_records_code_config_seeds_model_and_output_hashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEY", "sk-secret-value")
    manifest = run_manifest.build(outputs(tmp_path), tmp_path, PROFILE, "s", [3, 1], "c0ffee")
    assert manifest["seeds"] == [1, 3]
    assert manifest["config_sha256"] == "c0ffee"
    assert manifest["model"]["reader"] == {
        "profile": "remote",
        "backend": "openai",
        "model": "m-1",
        "revision": "r7",
        "base_url": "http://x/v1",
    }
    assert set(manifest["model"]) == {"writer", "reader", "program", "auditor"}
    assert set(manifest["outputs"]) == {"runs/a.txt", "worlds/w1/b.txt"}
    assert len(manifest["code"]["fingerprint"]) == 64
    assert "sk-secret-value" not in json.dumps(manifest)


def test_verify_names_missing_and_changed_outputs(tmp_path: Path) -> None:
    files = outputs(tmp_path)
    path = tmp_path / "manifest.json"
    write_json(run_manifest.build(files, tmp_path, PROFILE, "s", [1], "c"), path)
    assert run_manifest.verify(path, tmp_path) == (2, [])
    files[0].write_text("alpha, edited")
    files[1].unlink()
    checked, problems = run_manifest.verify(path, tmp_path)
    assert checked == 2
    assert [(p.path, p.what) for p in problems] == [
        ("runs/a.txt", "differs from the manifest"),
        ("worlds/w1/b.txt", "missing"),
    ]
    result = CliRunner().invoke(cli, ["verify", str(path), "--base", str(tmp_path)])
    assert result.exit_code == 1
    assert "runs/a.txt: differs from the manifest" in result.output


def test_a_missing_output_cannot_be_recorded(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="missing artifact"):
        run_manifest.build([tmp_path / "nope"], tmp_path, PROFILE, "s", [1], "c")


def test_verify_refuses_a_file_that_is_not_a_run_manifest(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"files": {}}')
    with pytest.raises(ArtifactError, match="not a memshift run manifest"):
        run_manifest.verify(path, tmp_path)


def test_config_hash_ignores_key_order_and_sees_values() -> None:
    assert run_manifest.config_hash({"a": 1, "b": [2]}) == run_manifest.config_hash(
        {"b": [2], "a": 1}
    )
    assert run_manifest.config_hash({"a": 1}) != run_manifest.config_hash({"a": 2})


def recorded(tmp_path: Path) -> tuple[Path, dict]:
    """A results directory with two outputs and a valid manifest of them where a run keeps it,
    runs/<study>/h<N>/<llm>/."""
    manifest = run_manifest.build(outputs(tmp_path), tmp_path, PROFILE, "s", [1], "c")
    path = tmp_path / "runs/s/h9/r/manifest.json"
    write_json(manifest, path)
    return path, manifest


def verified(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memshift.cli", "verify", str(path), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def cannot_verify(run: subprocess.CompletedProcess[str], problem: str) -> None:
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and run.stdout == ""
    [line] = run.stderr.splitlines()
    assert line.startswith("memshift verify: cannot verify: ") and problem in line, line


def test_matching_outputs_exit_0_and_differing_outputs_exit_1(tmp_path):
    path, _ = recorded(tmp_path)
    assert verified(path).returncode == 0
    (tmp_path / "runs/a.txt").write_text("changed")
    run = verified(path)
    assert run.returncode == 1 and run.stdout == "runs/a.txt: differs from the manifest\n"


def rewritten(tmp_path: Path, change) -> Path:
    path, manifest = recorded(tmp_path)
    change(manifest)
    path.write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda m: m.update(outputs=["runs/a.txt"]), "outputs is not of type object"),
        (lambda m: m["outputs"].update({"runs/a.txt": 7}), "outputs/runs/a.txt is not of type"),
        (lambda m: m["outputs"].update({"runs/a.txt": "abc"}), "is not a sha256 hex digest"),
        (lambda m: m.pop("outputs"), "'outputs' is a required property"),
        (lambda m: m.pop("seeds"), "'seeds' is a required property"),
        (lambda m: m.update(seeds="1"), "seeds is not of type array"),
        (lambda m: m["code"].pop("fingerprint"), "'fingerprint' is a required property"),
        (lambda m: m.update(format="memshift-run-manifest-1"), "is not a memshift run manifest"),
    ],
)
def test_a_manifest_of_the_wrong_shape_cannot_be_verified(tmp_path, change, problem):
    cannot_verify(verified(rewritten(tmp_path, change)), problem)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"not json at all", "is not valid JSON: Expecting value (line 1, column 1)"),
        (b'["memshift-run-manifest-2"]', "is not a memshift run manifest"),
        (b"\xff\xfe{}", "is not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nests arrays and objects deeper than 64 levels"),
        (b'{"format": "memshift-run-manifest-2", "format": "x"}', "'format' appears twice"),
    ],
)
def test_a_manifest_that_is_not_one_cannot_be_verified(tmp_path, content, problem):
    path = tmp_path / "runs/s/h9/r/manifest.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    cannot_verify(verified(path), problem)


def test_a_huge_manifest_is_refused_without_being_read(tmp_path):
    path = tmp_path / "runs/s/h9/r/manifest.json"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        handle.truncate(run_manifest.MAX_MANIFEST_BYTES + 1)  # sparse: no disk used
    cannot_verify(verified(path), "the limit is")


@pytest.mark.parametrize(
    "name",
    [
        "/etc/passwd",
        "../outside.txt",
        "runs/../../outside.txt",
        "runs/./../../outside.txt",
    ],
)
def test_an_output_path_outside_the_base_is_refused(tmp_path, name):
    (tmp_path / "outside.txt").write_text("secret")
    base = tmp_path / "results"
    base.mkdir()
    path = base / "runs/s/h9/r/manifest.json"
    digest = hashlib.sha256(
        Path("/etc/passwd" if name[0] == "/" else tmp_path / "outside.txt").read_bytes()
    ).hexdigest()
    manifest = run_manifest.build([], base, PROFILE, "s", [1], "c")
    manifest["outputs"] = {name: digest}
    write_json(manifest, path)
    cannot_verify(verified(path), "is not a path inside the base directory")


def test_an_output_reached_through_a_link_out_of_the_base_is_refused(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret.txt").write_text("secret")
    base = tmp_path / "results"
    (base / "runs").mkdir(parents=True)
    (base / "runs/escape").symlink_to(tmp_path / "outside")
    manifest = run_manifest.build([], base, PROFILE, "s", [1], "c")
    digest = hashlib.sha256(b"secret").hexdigest()
    manifest["outputs"] = {"runs/escape/secret.txt": digest}
    write_json(manifest, base / "runs/s/h9/r/manifest.json")
    cannot_verify(verified(base / "runs/s/h9/r/manifest.json"), "outside the base directory")


def test_a_link_that_stays_inside_the_base_is_followed(tmp_path):
    path, _ = recorded(tmp_path)
    (tmp_path / "runs/a.txt").rename(tmp_path / "runs/real.txt")
    (tmp_path / "runs/a.txt").symlink_to("real.txt")
    assert verified(path).returncode == 0


def test_a_manifest_outside_a_results_directory_needs_a_base(tmp_path):
    with pytest.raises(run_manifest.CannotVerify, match="give the results directory with --base"):
        run_manifest.results_dir(Path("/manifest.json"))
    path, _ = recorded(tmp_path)
    cannot_verify(verified(path, "--base", str(tmp_path / "nowhere")), "does not exist")


def test_the_exit_statuses_are_in_the_help():
    run = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "verify", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "1  outputs differ" in run.stdout and "2  cannot verify" in run.stdout


def test_a_folder_output_is_recorded_file_by_file_without_the_workflows_mark(tmp_path):
    """A job's folder (the detections, the stores) is tracked by the workflow as one output;
    the manifest holds each table in it, so verify names the one that changed."""
    folder = tmp_path / "runs/w1/stores"
    for name in ("src/holdmem-d1-source/store.parquet", "del/holdmem-d1-source/store.parquet"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(name)
    (folder / ".snakemake_timestamp").write_text("")
    path = tmp_path / "manifest.json"
    write_json(run_manifest.build([folder], tmp_path, PROFILE, "s", [1], "c"), path)
    assert set(json.loads(path.read_text())["outputs"]) == {
        "runs/w1/stores/del/holdmem-d1-source/store.parquet",
        "runs/w1/stores/src/holdmem-d1-source/store.parquet",
    }
    (folder / "del/holdmem-d1-source/store.parquet").write_text("changed")
    assert [p.path for p in run_manifest.verify(path, tmp_path)[1]] == [
        "runs/w1/stores/del/holdmem-d1-source/store.parquet"
    ]


def test_a_link_in_a_folder_output_is_refused(tmp_path):
    folder = tmp_path / "runs/w1/detections"
    folder.mkdir(parents=True)
    (folder / "writes.parquet").symlink_to("/etc/passwd")
    with pytest.raises(ArtifactError, match="is not a plain file"):
        run_manifest.build([folder], tmp_path, PROFILE, "s", [1], "c")
