"""Stage `manifest`: a world's seed, generator version and the hash of every artifact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memshift import layout
from memshift.artifacts import read_json, sha256, write_json


def run(world_dir: Path, branches: tuple[str, ...]) -> dict[str, Any]:
    description = read_json(layout.world_description(world_dir))
    files = [layout.world_events(world_dir), layout.world_description(world_dir)]
    for branch in branches:
        files += layout.branch_files(world_dir, branch)
    manifest = {
        "seed": description["seed"],
        "generator_version": description["generator_version"],
        "history_months": description["history_months"],
        "branches": list(branches),
        "files": {f.name: sha256(f) for f in files},
    }
    write_json(manifest, layout.manifest(world_dir))
    return manifest
