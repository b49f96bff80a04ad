"""The run manifest: what produced a run, and the sha256 of every artifact it made.

`build` records the code version (package version and a fingerprint of every module and data
file of the package), the config hash, the study's seeds, the generator version, the model
profile (backend, model, revision, base URL; never a key) and the hash of each output. `verify`
re-hashes the outputs against a manifest and names every file that is missing or differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from memshift.artifacts import ArtifactError, read_json, sha256
from memshift.fingerprint import ROOT
from memshift.models.profiles import Profile
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


def config_hash(config: dict[str, Any]) -> str:
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def build(
    outputs: Sequence[Path],
    base: Path,
    profile: Profile,
    study: str,
    seeds: Sequence[int],
    config_digest: str,
) -> dict[str, Any]:
    files = {}
    for path in sorted(outputs):
        if not path.exists():
            raise ArtifactError(f"missing artifact {path}")
        files[path.resolve().relative_to(base.resolve()).as_posix()] = sha256(path)
    return {
        "format": FORMAT,
        "study": study,
        "code": {"memshift": version("memshift"), "fingerprint": package_fingerprint()},
        "config_sha256": config_digest,
        "seeds": sorted(seeds),
        "generator_version": GENERATOR_VERSION,
        "model": {
            "profile": profile.name,
            "backend": profile.backend,
            "model": profile.model,
            "revision": profile.revision,
            "base_url": profile.base_url,
        },
        "outputs": files,
    }


@dataclass(frozen=True)
class Problem:
    path: str
    what: str


def results_dir(manifest_path: Path) -> Path:
    """The results directory of a manifest written where the pipeline writes it
    (<results>/runs/<run>/manifest.json)."""
    return manifest_path.resolve().parents[2]


def verify(manifest_path: Path, base: Path | None = None) -> tuple[int, list[Problem]]:
    """(files checked, problems): every listed output re-hashed under `base` (by default the
    results directory the manifest lies in)."""
    manifest = read_json(manifest_path)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArtifactError(
            f"{manifest_path} is not a memshift run manifest ({FORMAT}); a manifest of an "
            "older format is rewritten by running the study again"
        )
    base = base if base is not None else results_dir(manifest_path)
    problems = []
    outputs = manifest["outputs"]
    for name, expected in sorted(outputs.items()):
        path = base / name
        if not path.exists():
            problems.append(Problem(name, "missing"))
        elif sha256(path) != expected:
            problems.append(Problem(name, "differs from the manifest"))
    return len(outputs), problems
