"""The SLURM profile survives the command the docs give: the command's `--default-resources`
(which replaces the profile's list) names the profile's defaults again, and a world's group job
asks SLURM for less than a 24-hour partition allows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PROFILE = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
DAY = 24 * 60


def resources(entries: list[str]) -> dict[str, str]:
    return dict(entry.split("=", 1) for entry in entries)


def documented_defaults(page: Path) -> dict[str, str]:
    command = re.search(
        r"snakemake --workflow-profile profiles/slurm \\\n\s+(.*)", page.read_text()
    )
    assert command, f"{page.name} gives the cluster command"
    words = command[1].split()
    assert words[0] == "--default-resources"
    return resources(words[1:])


@pytest.mark.parametrize("page", ["README.md", "docs/running.md"])
def test_the_documented_command_keeps_the_profiles_default_resources(page: str):
    given = documented_defaults(ROOT / page)
    assert resources(PROFILE["default-resources"]).items() <= given.items()
    assert {"slurm_account", "slurm_partition"} <= set(given)


def group_minutes(rules: set[str]) -> int:
    default = int(resources(PROFILE["default-resources"])["runtime"])
    grouped = {entry.split("=")[0] for entry in PROFILE["groups"]}
    return sum(
        int(PROFILE["set-resources"].get(rule, {}).get("runtime", default))
        for rule in rules & grouped
    )


@pytest.mark.parametrize(
    "study", ["config/config.yaml", "config/studies/smoke.yaml", "config/studies/export.yaml"]
)
def test_a_worlds_group_job_fits_a_24_hour_partition(study: str):
    planned = subprocess.run(
        [str(Path(sys.executable).with_name("snakemake")), "-n", "-F", "--configfile", study,
         "--cores", "1"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr[-2000:]
    rules = {m[1] for m in re.finditer(r"^([a-z_]+)\s+\d+$", planned.stdout, re.MULTILINE)}
    assert "ingest" in rules
    # one world's jobs, plus a custom system's, in one allocation
    assert group_minutes(rules | {"probe_reporting"}) < DAY
