"""The run manifest records what produced a run; verify re-hashes its outputs."""

from __future__ import annotations

import json
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


PROFILE = Profile(
    "remote", "openai", model="m-1", revision="r7", base_url="http://x/v1", api_key_env="KEY"
)


def test_manifest_records_code_config_seeds_model_and_output_hashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEY", "sk-secret-value")
    manifest = run_manifest.build(outputs(tmp_path), tmp_path, PROFILE, "s", [3, 1], "c0ffee")
    assert manifest["seeds"] == [1, 3]
    assert manifest["config_sha256"] == "c0ffee"
    assert manifest["model"] == {
        "profile": "remote",
        "backend": "openai",
        "model": "m-1",
        "revision": "r7",
        "base_url": "http://x/v1",
    }
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
