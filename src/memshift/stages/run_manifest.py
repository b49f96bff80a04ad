"""The run manifest: what produced a run, and the sha256 of every artifact it made.

`build` records the code version (package version and a fingerprint of every module and data
file of the package), the config hash, the study's seeds, the generator version, the model
profile (backend, model, revision, base URL; never a key) and the hash of each output. `verify`
re-hashes the outputs against a manifest and names every file that is missing or differs.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema

from memshift import layout
from memshift.artifacts import ArtifactError, sha256
from memshift.intake.reading import InputError, load_json, one_line, shortened
from memshift.models.profiles import Profile
from memshift.models.redaction import shown_url
from memshift.stages.specs import RunManifestJob
from memshift.workflow.fingerprint import ROOT
from memshift.world.generate import GENERATOR_VERSION

# Output paths are relative to the results directory (the one holding worlds/ and runs/), so a
# manifest stays valid wherever the results live.
FORMAT = "memshift-run-manifest-2"


def package_fingerprint(root: Path = ROOT) -> str:
    """sha256 over every source and data file of the package, by relative path."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


# what Snakemake keeps in a folder it tracks as one output: the folder's time, not a result
WORKFLOW_MARKS = (".snakemake_timestamp",)


def folder_files(folder: Path) -> list[Path]:
    """Every file under `folder` but the workflow's marks, sorted; an ArtifactError for anything
    else that is not a plain file or folder (a link could point anywhere)."""
    files = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise ArtifactError(f"{path} in output folder {folder} is not a plain file")
        if path.is_file() and path.name not in WORKFLOW_MARKS:
            files.append(path)
    return files


def described(profile: Profile) -> dict[str, str]:
    """What the manifest records of a profile: never a key, its variable, or credentials in its
    URL (a profile made in code was never checked)."""
    return {
        "profile": profile.name,
        "backend": profile.backend,
        "model": profile.model,
        "revision": profile.revision,
        "base_url": shown_url(profile.base_url),
    }


def config_hash(config: dict[str, Any]) -> str:
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def build(
    outputs: Sequence[Path],
    base: Path,
    profiles: Mapping[str, Profile],
    study: str,
    seeds: Sequence[int],
    config_digest: str,
) -> dict[str, Any]:
    """The manifest of a run whose roles used `profiles` (role -> profile). An output that is a
    folder (a job's tables, `layout.detections_dir`) is recorded file by file."""
    files = {}
    root = base.resolve()
    for path in sorted(outputs):
        if not path.exists():
            raise ArtifactError(f"missing artifact {path}")
        if not path.resolve().is_relative_to(root):
            raise ArtifactError(f"output {path} lies outside the base directory {root}")
        for file in folder_files(path) if path.is_dir() else [path]:
            files[file.resolve().relative_to(root).as_posix()] = sha256(file)
    return {
        "format": FORMAT,
        "study": study,
        "code": {"memshift": version("memshift"), "fingerprint": package_fingerprint()},
        "config_sha256": config_digest,
        "seeds": sorted(seeds),
        "generator_version": GENERATOR_VERSION,
        "model": {role: described(profile) for role, profile in profiles.items()},
        "outputs": files,
    }


@dataclass(frozen=True)
class Problem:
    path: str
    what: str


class CannotVerify(ArtifactError):
    """The manifest cannot be checked: unreadable, malformed, or naming a file outside the base."""


MAX_MANIFEST_BYTES = 64 << 20
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_TEXT = {"type": "string"}
MANIFEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "format",
        "study",
        "code",
        "config_sha256",
        "seeds",
        "generator_version",
        "model",
        "outputs",
    ],
    "properties": {
        "format": {"const": FORMAT},
        "study": _TEXT,
        "code": {
            "type": "object",
            "required": ["memshift", "fingerprint"],
            "properties": {"memshift": _TEXT, "fingerprint": _SHA256},
        },
        "config_sha256": _TEXT,
        "seeds": {"type": "array", "items": {"type": "integer"}},
        "generator_version": _TEXT,
        "model": {"type": "object"},
        "outputs": {
            "type": "object",
            "propertyNames": {"minLength": 1, "maxLength": 4096},
            "additionalProperties": _SHA256,
        },
    },
}


def _schema_problem(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    if error.validator == "required":
        return f"{where}: {one_line(error.message)}"
    if error.validator == "type":
        return f"{where} is not of type {error.validator_value}"
    if error.validator == "pattern":
        return f"{where} is not a sha256 hex digest"
    return f"{where}: {one_line(error.message)[:200]}"


def load_manifest(manifest_path: Path) -> dict[str, Any]:
    """A run manifest, checked against its format; CannotVerify in one line otherwise."""
    try:
        manifest = load_json(manifest_path, "run manifest", MAX_MANIFEST_BYTES)
    except InputError as exc:
        raise CannotVerify(str(exc)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CannotVerify(
            f"{manifest_path} is not a memshift run manifest ({FORMAT}); a manifest of an "
            "older format is rewritten by running the study again"
        )
    validator = jsonschema.Draft202012Validator(MANIFEST_SCHEMA)
    error = jsonschema.exceptions.best_match(validator.iter_errors(manifest))
    if error is not None:
        raise CannotVerify(f"run manifest {manifest_path}: {_schema_problem(error)}")
    return manifest


def results_dir(manifest_path: Path) -> Path:
    """The results directory of a manifest written where the pipeline writes it
    (<results>/runs/<study>/h<N>/<llm>/manifest.json, `layout.py`)."""
    run = manifest_path.resolve().parent
    if len(run.parents) < 4:
        raise CannotVerify(
            f"{manifest_path} does not lie in <results>/runs/<study>/h<N>/<llm>/; give the "
            "results directory with --base"
        )
    return layout.results_of_run(run)


def inside(base: Path, name: str) -> Path:
    """The path an output `name` of a manifest stands for under `base` (resolved); CannotVerify
    if it is absolute, climbs out with '..', or resolves outside `base` through a link."""
    relative = PurePosixPath(name)
    if "\0" in name or relative.is_absolute() or ".." in relative.parts:
        raise CannotVerify(f"output {shortened(name)} is not a path inside the base directory")
    try:
        path = (base / relative).resolve()
    except (OSError, RuntimeError) as exc:  # a symbolic link loop
        raise CannotVerify(f"output {shortened(name)} cannot be resolved: {exc}") from None
    if not path.is_relative_to(base):
        raise CannotVerify(
            f"output {shortened(name)} resolves to {path}, outside the base directory {base}"
        )
    return path


def _base(manifest_path: Path, base: Path | None) -> Path:
    root = (base if base is not None else results_dir(manifest_path)).resolve()
    if not root.is_dir():
        raise CannotVerify(f"the base directory {root} does not exist")
    return root


def _compare(name: str, path: Path, expected: str) -> Problem | None:
    try:
        if not path.exists():
            return Problem(name, "missing")
        if not path.is_file():
            return Problem(name, "is not a regular file")
        found = sha256(path)
    except OSError as exc:
        raise CannotVerify(f"cannot read output {shortened(name)}: {exc.strerror or exc}") from None
    return None if found == expected else Problem(name, "differs from the manifest")


def verify(manifest_path: Path, base: Path | None = None) -> tuple[int, list[Problem]]:
    """(files checked, problems): every listed output re-hashed under `base` (by default the
    results directory the manifest lies in). A problem is an output missing or different;
    CannotVerify when the manifest is malformed or names a file outside `base`."""
    manifest = load_manifest(manifest_path)
    root = _base(manifest_path, base)
    outputs: dict[str, str] = manifest["outputs"]
    paths = {name: inside(root, name) for name in sorted(outputs)}
    found = (_compare(name, path, outputs[name]) for name, path in paths.items())
    return len(outputs), [problem for problem in found if problem is not None]


def run_job(job: RunManifestJob) -> None:
    """The run's manifest (`RunManifestJob`)."""
    from memshift.artifacts import write_json

    profiles = {role: job.access.profile(role) for role in job.access.roles}
    manifest = build(list(job.outputs), job.base, profiles, job.study, job.seeds,
                     job.config_sha256)  # fmt: skip
    write_json(manifest, job.out)
    print(f"{len(manifest['outputs'])} outputs recorded -> {job.out}", file=sys.stderr)
