"""docs/extending.md as a user follows it: the baseline it adds, with its module and its two
edits copied from the page into a copy of the package, is accepted by a study's config and
answers every probe of a world through the probe stage; its shift in its own module builds its
branch, gold and probes and is in the world job's code; its report section, one module and one
entry, is among a study's tables and renders from a scored run; its backend, one module and one
entry, is answered by a server that refuses what the OpenAI backend sends."""

from __future__ import annotations

import json
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


def followed(tmp_path: Path, title: str) -> tuple[Path, list[str]]:
    """A copy of the package with the page's section `title` applied: its new module and its
    diff; the copy's package folder and the files the diff changed."""
    package = tmp_path / "src" / "memshift"
    shutil.copytree(
        Path(memshift.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    text = section(title)
    path, source = new_module(text)
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(source)
    return package, sorted(apply_diff(text, package))


def run_in_copy(tmp_path: Path, package: Path, script: str) -> str:
    """`script` run on the copied package, given an output folder; its stdout."""
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def test_the_documented_baseline_runs_after_its_two_edits(tmp_path):
    package, changed = followed(tmp_path, "A baseline")
    assert changed == ["src/memshift/data/config.schema.yaml", "src/memshift/registry.py"]
    answered = int(run_in_copy(tmp_path, package, SCRIPT).strip().splitlines()[-1])
    assert answered > 0
    answers = tmp_path / "out/run/baselines/none/recent/answers.parquet"
    assert answers.is_file()


SHIFT_SCRIPT = """
import json
import sys
from pathlib import Path

from memshift import layout
from memshift.config import check_config
from memshift.workflow.fingerprint import job_modules
from memshift.stages import gold, probes
from memshift.stages import world as world_stage
from memshift.stages.branches import run as branches

study = {"study": "extended", "worlds": {"seeds": "1000"}, "branches": ["none", "holiday"]}
assert check_config(study)["branches"] == ["none", "holiday"]
world_dir = Path(sys.argv[1]) / "w1000"
world_stage.run(1000, world_dir)
for branch in ("none", "holiday"):
    branches(world_dir, branch)
    gold.run(world_dir, branch)
    probes.run(world_dir, branch)
# the world job's code holds the shift's module: editing it rebuilds the worlds
assert "memshift.shifts.holiday" in job_modules("branches", shifts=["none", "holiday"])
print(json.dumps(json.loads(layout.shift(world_dir, "holiday").read_text())))
"""


def test_the_documented_shift_builds_its_branch_after_its_two_edits(tmp_path):
    package, changed = followed(tmp_path, "A shift")
    assert changed == ["src/memshift/data/config.schema.yaml", "src/memshift/registry.py"]
    shift = json.loads(run_in_copy(tmp_path, package, SHIFT_SCRIPT).strip().splitlines()[-1])
    assert shift["branch"] == "holiday"
    assert shift["touched_items"] == ["def.working_hours"] and shift["shift_events"] >= 1
    probes = tmp_path / "out" / "w1000" / "probes-holiday.parquet"
    assert probes.is_file()


SECTION_SCRIPT = """
import importlib
import sys
from pathlib import Path

from memshift import layout
from memshift.analysis.frame import log_sources, open_study
from memshift.models.profiles import Profile
from memshift.report import sections
from memshift.report.inputs import ReportInputs
from memshift.stages import gold, probe, probes, score
from memshift.stages import world as world_stage
from memshift.stages.branches import run as branches
from memshift.stages.report import table_schemas

out = Path(sys.argv[1])
worlds, run = out / "worlds", out / "run"
world_dir, run_world = layout.world_in(worlds, 1000), layout.world_in(run, 1000)
world_stage.run(1000, world_dir)
branches(world_dir, "none")
gold.run(world_dir, "none")
probes.run(world_dir, "none")
probe.run(world_dir, run_world, "none", "bm25", Profile("rules", "rules"), None)
score.run([layout.table(layout.system_dir(run_world, "none", "bm25"), layout.ANSWERS)], worlds,
          layout.run_scores(run))
assert table_schemas([])["answered"].names == ["system", "branch", "status", "answers"]
order = [s.module for s in sections.applying([])]
assert order.index("answered") == order.index("keys") + 1
entry = sections.applying([])[order.index("answered")]
module = importlib.import_module(sections.module_name(entry))
inputs = ReportInputs(
    open_study(layout.run_scores(run), []), None, ["bm25"], worlds, None, log_sources([]), [], [],
    [], [], [], [], lambda: None, None, frozenset(),
)
tables = module.compute(inputs)
print(module.render({n: t.to_pylist() for n, t in tables.items()}, inputs))
"""


def test_the_documented_report_section_is_one_module_and_one_entry(tmp_path):
    package, changed = followed(tmp_path, "A report section")
    assert changed == ["src/memshift/report/sections.py"]
    shown = run_in_copy(tmp_path, package, SECTION_SCRIPT)
    assert "## Answers by status" in shown
    assert re.search(r"^\| bm25 \| none \| (answer|abstain) \| [\d,]+ \|$", shown, re.M), shown


BACKEND_SCRIPT = """
import sys

from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import ReaderRequest
from memshift.world.generate import generate_world
from memshift_tools.book import RequestBook
from memshift_tools.localserver import LocalServer

world = generate_world(0)
items = [i for i in world.items if not i.is_definition][:4]
batch = [ReaderRequest(i, 1, world.timeline.fork, f"{i.question} (#{k})", ("a note",))
         for k, i in enumerate(items)]
decoding = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 256, "seed": 0}
with LocalServer(RequestBook(batch).answer, unsupported=["max_tokens"]) as server:
    for backend in ("openai", "openai-completion-tokens"):
        profile = Profile("local", backend, model="local-model", base_url=f"{server.url}/v1",
                          timeout_s=5.0, max_attempts=1, decoding=decoding)
        replies = ModelClient(profile).generate(batch)
        print(backend, sum(r.ok for r in replies), len(replies))
"""


def test_the_documented_backend_is_one_module_and_one_entry(tmp_path):
    package, changed = followed(tmp_path, "A model backend")
    assert changed == ["src/memshift/registry.py"]
    answered = dict(
        (line.split()[0], line.split()[1:])
        for line in run_in_copy(tmp_path, package, BACKEND_SCRIPT).splitlines()
    )
    assert answered == {"openai": ["0", "4"], "openai-completion-tokens": ["4", "4"]}
