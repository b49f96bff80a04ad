"""docs/extending.md as a user follows it: the baseline it adds, with its module and its two
edits copied from the page into a copy of the package, is accepted by a study's config and
answers every probe of a world through the probe stage."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import memshift

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs/extending.md"


def section(title: str) -> str:
    text = PAGE.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def new_module(text: str) -> tuple[str, str]:
    """(path, source) of the page's new module: the python block whose first line names it."""
    block = re.search(r"```python\n# (\S+) \(new\)\n(.*?)```", text, re.S)
    assert block, "the page shows no new module"
    return block.group(1), block.group(2)


def apply_diff(text: str, package: Path) -> list[str]:
    """Apply the page's diff: each `+` line goes after the context line before it, each `-` line
    is replaced by the `+` lines after it. Returns the files changed."""
    diff = re.search(r"```diff\n(.*?)```", text, re.S)
    assert diff, "the page shows no diff"
    changed: list[str] = []
    for part in re.split(r"^--- a/", diff.group(1), flags=re.M)[1:]:
        name = part.splitlines()[0]
        target = package.parents[1] / name
        source = target.read_text()
        lines = [line for line in part.splitlines()[2:] if not line.startswith("@@")]
        anchor, removed = "", ""
        for line in lines:
            if line.startswith(" "):
                anchor = line[1:]
            elif line.startswith("-"):
                removed = line[1:]
            elif line.startswith("+"):
                if removed:
                    assert source.count(removed) == 1, (name, removed)
                    source = source.replace(removed, line[1:])
                    removed = ""
                else:
                    assert source.count(anchor + "\n") == 1, (name, anchor)
                    source = source.replace(anchor + "\n", anchor + "\n" + line[1:] + "\n")
                    anchor = line[1:]
        target.write_text(source)
        changed.append(name)
    return changed


SCRIPT = """
import sys
from pathlib import Path

from memshift.config import check_config
from memshift.models.profiles import Profile
from memshift.stages import gold, probe, probes
from memshift.stages import world as world_stage
from memshift.stages.branches import run as branches

study = {"study": "extended", "worlds": {"seeds": "1000"}, "branches": ["none"],
         "systems": {"baselines": ["bm25", "recent"]}}
assert check_config(study)["system_plan"]["baselines"] == ["bm25", "recent"]
out = Path(sys.argv[1])
world_dir, run_dir = out / "w1000", out / "run"
world_stage.run(1000, world_dir)
branches(world_dir, "none")
gold.run(world_dir, "none")
probes.run(world_dir, "none")
print(probe.run(world_dir, run_dir, "none", "recent", Profile("rules", "rules"), None))
"""


def test_the_documented_baseline_runs_after_its_two_edits(tmp_path):
    package = tmp_path / "src" / "memshift"
    shutil.copytree(
        Path(memshift.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    text = section("A baseline")
    path, source = new_module(text)
    (tmp_path / path).write_text(source)
    assert sorted(apply_diff(text, package)) == [
        "src/memshift/registry.py",
        "src/memshift/schemas/config.schema.yaml",
    ]
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    answered = int(run.stdout.strip().splitlines()[-1])
    assert answered > 0
    answers = tmp_path / "out/run/baselines/none/recent/answers.parquet"
    assert answers.is_file()


def test_the_documented_shift_edits_two_files():
    text = section("A shift")
    path, _ = new_module(text)
    assert path.startswith("src/memshift/")
    files = re.findall(r"^--- a/(\S+)", text, re.M)
    assert files == ["src/memshift/registry.py", "src/memshift/schemas/config.schema.yaml"]
