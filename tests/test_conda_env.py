"""envs/memshift.yaml, the environment of `--sdm conda` runs, checked without conda: Snakemake
creates it from a copy under .snakemake/conda, so it names no relative path, and it pins exactly
memshift's runtime dependencies at their versions in requirements/constraints.txt."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
ENV = ROOT / "envs" / "memshift.yaml"
POST_DEPLOY = ROOT / "envs" / "memshift.post-deploy.sh"


def constraints() -> dict[str, str]:
    lines = (ROOT / "requirements" / "constraints.txt").read_text().splitlines()
    pins = [line.split("==") for line in lines if line.strip() and not line.startswith("#")]
    return {canonicalize_name(name): version for name, version in pins}


def environment() -> tuple[list[str], list[str]]:
    """The conda specs and the pip lines of the environment file."""
    dependencies = yaml.safe_load(ENV.read_text())["dependencies"]
    conda = [d for d in dependencies if isinstance(d, str)]
    pip = [line for d in dependencies if isinstance(d, dict) for line in d["pip"]]
    return conda, pip


def runtime_closure() -> set[str]:
    """memshift's dependencies (no extras) and theirs, as installed here, by canonical name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = [(Requirement(r), "") for r in project["dependencies"]]
    seen: dict[str, set[str]] = {}
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        if name in seen and requirement.extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | requirement.extras
        try:
            requires = distribution(requirement.name).requires or []
        except PackageNotFoundError:
            continue  # then it is missing from the pins too, and the comparison says so
        for extra_of_name in ["", *sorted(seen[name])]:
            todo.extend((Requirement(r), extra_of_name) for r in requires)
    return set(seen)


def test_the_environment_names_no_path_and_no_pip_option():
    conda, pip = environment()
    for line in [*conda, *pip]:
        assert not line.startswith("-"), line  # no -e, -r or -c: they would resolve from the copy
        assert "/" not in line and ".." not in line, line


def test_every_pip_pin_equals_requirements_constraints():
    pinned = constraints()
    _, pip = environment()
    for line in pip:
        name, equals, version = line.partition("==")
        assert equals, f"{line} is not pinned with =="
        assert pinned.get(canonicalize_name(name)) == version, line


def test_the_pins_are_exactly_memshifts_runtime_dependencies():
    _, pip = environment()
    names = [canonicalize_name(line.partition("==")[0]) for line in pip]
    assert len(names) == len(set(names))
    assert "memshift" not in names  # installed from the checkout by the post-deploy script
    assert set(names) == runtime_closure()


def test_python_and_pip_come_from_conda_forge():
    conda, _ = environment()
    assert yaml.safe_load(ENV.read_text())["channels"] == ["conda-forge"]
    assert conda == ["python=3.11", "pip"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11"


def test_the_post_deploy_script_installs_the_checkout_without_dependencies():
    script = POST_DEPLOY.read_text()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "MEMSHIFT_CHECKOUT" in script
    assert 'pip install --no-deps --editable "$checkout"' in script
    assert "pip check" in script
