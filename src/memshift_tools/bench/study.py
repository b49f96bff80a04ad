"""The study budgets of DESIGN section 12, measured: the main study and the smoke study from
nothing, and a no-op dry run on the finished main study, each repeated and given as a median.

Run from the repository: `python -m memshift_tools.bench.study --runs 3` (`make bench-study`), which
writes docs/benchmarks-study.md. Every run builds its study in a fresh results directory under
the scratch folder, so nothing is reused between runs (no worlds, no response cache, no vectors).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from memshift.errors import MemshiftError
from memshift_tools.bench.common import arguments, machine, median, publish, splice

# Runs a command and prints the peak resident memory of its largest process (any descendant).
_PEAK = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,"
    " text=True)\n"
    "sys.stderr.write(code.stderr[-3000:] if code.returncode else '')\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(code.returncode)\n"
)


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float
    speed: float = 0.0  # the speed probe's seconds just before the run


def speed_probe() -> float:
    """Seconds of a fixed single-threaded workload (a million hash updates): how fast this
    machine was at the time, since a shared machine's speed varies by the hour."""
    digest = hashlib.sha256()
    start = time.perf_counter()
    for _ in range(1_000_000):
        digest.update(b"memshift")
    return time.perf_counter() - start


def snakemake_command(results: Path, configfile: str | None, *extra: str) -> list[str]:
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [str(snakemake), "--cores", "2", "--quiet", "all"]
    if configfile:
        command += ["--configfile", configfile]
    return [*command, "--config", f"results={results}", *extra]


def measure(command: list[str]) -> Run:
    speed = speed_probe()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *command], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise MemshiftError(f"{' '.join(command)} failed:\n{done.stderr}")
    return Run(seconds, int(done.stdout.split()[-1]) / 1024, speed)


def study_runs(name: str, configfile: str | None, runs: int, scratch: Path) -> list[Run]:
    out = []
    for n in range(runs):
        results = scratch / f"{name}-{n}"
        shutil.rmtree(results, ignore_errors=True)
        print(f"{name} study, run {n + 1} of {runs} ...", file=sys.stderr, flush=True)
        out.append(measure(snakemake_command(results, configfile)))
        print(f"  {out[-1].seconds:.0f} s", file=sys.stderr, flush=True)
    return out


def clock(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def row(what: str, budget: str, runs: list[Run], command: str) -> str:
    times = ", ".join(clock(r.seconds) for r in runs)
    peak = max(r.peak_mb for r in runs)
    speeds = ", ".join(f"{r.speed:.2f}" for r in runs)
    return (
        f"| {what} | {budget} | **{clock(median([r.seconds for r in runs]))}** ({times}); "
        f"peak {peak / 1024:.2f} GB; speed probe {speeds} s | `{command}` |"
    )


def commit() -> str:
    """The checked-out commit, with a mark when the working tree has changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{head} (with uncommitted changes)" if dirty else head


def section(runs: int, scratch: Path) -> list[str]:
    measured_at = commit()
    main = study_runs("main", None, runs, scratch)
    finished = scratch / f"main-{runs - 1}"
    noop = [measure(snakemake_command(finished, None, "-n")) for _ in range(runs)]
    smoke = study_runs("smoke", "config/studies/smoke.yaml", runs, scratch)
    for n in range(runs):
        shutil.rmtree(scratch / f"main-{n}", ignore_errors=True)
        shutil.rmtree(scratch / f"smoke-{n}", ignore_errors=True)
    return [
        "# Study budgets",
        "",
        "Produced by `make bench-study` (`python -m memshift_tools.bench.study --runs "
        f"{runs}`): each study built {runs} times from nothing in a fresh results directory, "
        "with the `rules` backend; the median first, then every run. Peak memory is that of "
        "the largest single process of any run (Snakemake or a job). The speed probe is the "
        "time a fixed single-threaded workload took just before each run (`speed_probe`): this "
        "machine is shared, and a study's time follows it.",
        "",
        f"Machine: {machine()}. Code: commit {measured_at}.",
        "",
        "| what | budget | median (runs); peak | command |",
        "|---|---|---|---|",
        row(
            "main study (config/config.yaml)",
            "4 min, 4 GB",
            main,
            "rm -rf results && snakemake --cores 2",
        ),
        row(
            "no-op dry run on the finished main study",
            "3 s",
            noop,
            "snakemake -n",
        ),
        row(
            "smoke study",
            "2 min",
            smoke,
            "snakemake --cores 2 --configfile config/studies/smoke.yaml",
        ),
        "",
    ]


WRITER_SWITCH = (
    (
        "writer-switch study: 20 + 10 worlds, 4 switches",
        "config/studies/writer-switch.yaml",
        "5 min",
    ),
)
# docs/failure-modes.md: the failure-mode probes and the sync study, each a run of its own
FAILURE_MODES = (
    ("failure-mode probes: 5 worlds, 7 branches", "config/studies/failure-modes.yaml", "4 min"),
    ("sync study: 5 worlds", "config/studies/sync.yaml", "5 min"),
)


def presets_section(
    title: str, option: str, presets: tuple[tuple[str, str, str], ...], runs: int, scratch: Path
) -> list[str]:
    """Presets built `runs` times each from nothing (worlds included); (what, configfile,
    budget) per preset."""
    rows = []
    for what, configfile, budget in presets:
        name = Path(configfile).stem
        measured = study_runs(name, configfile, runs, scratch)
        for n in range(runs):
            shutil.rmtree(scratch / f"{name}-{n}", ignore_errors=True)
        rows.append(row(what, budget, measured, f"snakemake --cores 2 --configfile {configfile}"))
    return [
        f"## {title}",
        "",
        f"Built {runs} times from nothing (worlds included) by `python -m "
        f"memshift_tools.bench.study --only {option} --runs {runs}`; code: commit {commit()}.",
        "",
        "| what | budget | median (runs); peak | command |",
        "|---|---|---|---|",
        *rows,
        "",
    ]


# The robustness studies (docs/running.md): each run of a multi-run study timed alone, as
# `memshift horizons`, `memshift heldout` and `memshift rewritten` run them one after the other
ROBUSTNESS = (
    ("horizons, 1 month of history", "config/studies/horizons.yaml", ("horizon=1",)),
    ("horizons, 3 months of history", "config/studies/horizons.yaml", ("horizon=3",)),
    ("horizons, 9 months of history", "config/studies/horizons.yaml", ("horizon=9",)),
    (
        "held-out definitions, heldout-1",
        "config/studies/heldout.yaml",
        ("definition_set=heldout-1",),
    ),
    (
        "held-out definitions, heldout-2",
        "config/studies/heldout.yaml",
        ("definition_set=heldout-2",),
    ),
    (
        "held-out definitions, heldout-3",
        "config/studies/heldout.yaml",
        ("definition_set=heldout-3",),
    ),
    ("the user's words", "config/studies/words.yaml", ()),
    ("rewritten study, template worlds", "config/studies/rewritten.yaml", ("rewriter=",)),
    ("rewritten study, rewritten worlds", "config/studies/rewritten.yaml", ("rewriter=rules",)),
)


def robustness_section(runs: int, scratch: Path, keep: Path) -> list[str]:
    """Every run of the robustness presets from nothing (worlds included). The runs of one
    preset share a results folder per repetition (they share no artifact: each builds its own
    worlds); the last repetition's folders are moved to `keep`/<preset>, so that the presets'
    reports can be written from them (`memshift horizons-report` and the others, with
    `results` pointed there)."""
    rows = []
    for k in range(runs):
        for configfile in dict.fromkeys(c for _, c, _ in ROBUSTNESS):
            shutil.rmtree(scratch / f"{Path(configfile).stem}-{k}", ignore_errors=True)
    timed: dict[str, list[Run]] = {}
    for k in range(runs):
        for what, configfile, settings in ROBUSTNESS:
            results = scratch / f"{Path(configfile).stem}-{k}"
            print(f"{what}, run {k + 1} of {runs} ...", file=sys.stderr, flush=True)
            timed.setdefault(what, []).append(
                measure(snakemake_command(results, configfile, *settings))
            )
            print(f"  {timed[what][-1].seconds:.0f} s", file=sys.stderr, flush=True)
        for configfile in dict.fromkeys(c for _, c, _ in ROBUSTNESS):
            finished = scratch / f"{Path(configfile).stem}-{k}"
            if k < runs - 1:
                shutil.rmtree(finished, ignore_errors=True)
            else:
                target = keep / Path(configfile).stem
                shutil.rmtree(target, ignore_errors=True)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(finished, target)
    for what, configfile, settings in ROBUSTNESS:
        config = f" --config {' '.join(settings)}" if settings else ""
        command = f"snakemake --cores 2 --configfile {configfile}{config}"
        rows.append(row(what, "15 min", timed[what], command))
    return [
        "## Robustness studies",
        "",
        f"Each run built {runs} time(s) from nothing (worlds included) by `python -m "
        f"memshift_tools.bench.study --only robustness --runs {runs}`; code: commit {commit()}. "
        "`memshift horizons`, `memshift heldout` and `memshift rewritten` run their studies' "
        "runs one after the other, then a report of under a minute.",
        "",
        "| what | budget | median (runs); peak | command |",
        "|---|---|---|---|",
        *rows,
        "",
    ]


SLURM_COMMAND = (
    "snakemake --workflow-profile profiles/slurm --configfile config/studies/smoke.yaml "
    "--default-resources mem_mb=2000 runtime=30 slurm_account=memshift slurm_partition=debug"
)


def slurm_section(runs: int, scratch: Path) -> list[str]:
    """The smoke study through a one-node SLURM on this machine (cluster/setup.sh, as root),
    `runs` times from nothing; the cluster's daemons this started are stopped after."""
    state = scratch / "cluster-state"
    env = {**os.environ, "STATE": str(state)}
    subprocess.run(["bash", "cluster/setup.sh"], env=env, check=True)
    try:
        measured = []
        for n in range(runs):
            results = scratch / f"slurm-{n}"
            shutil.rmtree(results, ignore_errors=True)
            print(f"smoke study through SLURM, run {n + 1} of {runs} ...", file=sys.stderr)
            command = [
                str(Path(sys.executable).with_name("snakemake")),
                *SLURM_COMMAND.split()[1:],
                "--quiet",
                "all",
                "--config",
                f"results={results}",
            ]
            measured.append(measure(command))
            print(f"  {measured[-1].seconds:.0f} s", file=sys.stderr, flush=True)
            shutil.rmtree(results, ignore_errors=True)
    finally:
        subprocess.run(["scancel", "--account=memshift"], check=False, capture_output=True)
        subprocess.run(["bash", "cluster/teardown.sh"], env=env, check=False)
    return [
        "## Through SLURM",
        "",
        f"The smoke study {runs} times from nothing through a one-node SLURM cluster on this "
        "machine (`cluster/setup.sh`: Debian's slurm-wlm 22.05 with accounting, 2 CPUs), with "
        "the README's cluster command, by `python -m memshift_tools.bench.study --only slurm "
        f"--runs {runs}` as root; code: commit {commit()}. One SLURM job per world "
        "(`profiles/slurm`, `groups`), the join of the worlds' scores, report and manifests on "
        "the submitting node. "
        "Peak memory is that of Snakemake and the local rules (the jobs run under slurmd).",
        "",
        "| what | budget | median (runs); peak | command |",
        "|---|---|---|---|",
        row("smoke study through SLURM", "3 min", measured, SLURM_COMMAND),
        "",
    ]


def main() -> None:
    args = arguments(
        "python -m memshift_tools.bench.study",
        __doc__,
        "docs/benchmarks-study.md",
        "results/bench-study",
        sections=("studies", "writer-switch", "robustness", "failure-modes", "slurm"),
    )
    chosen = args.only or ["studies", "writer-switch", "robustness", "failure-modes"]
    text = args.out.read_text() if args.out.exists() else ""
    if "studies" in chosen:
        # the studies section is the page's head, up to its first `## ` section
        lines = text.split("\n")
        rest = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
        text = "\n".join([*section(args.runs, args.scratch), *lines[rest:]])
    if "writer-switch" in chosen:
        section_lines = presets_section(
            "Writer-switch study", "writer-switch", WRITER_SWITCH, args.runs, args.scratch
        )
        text = splice(text, section_lines, "\0")
    if "robustness" in chosen:
        kept = args.scratch.parent / "robustness"
        text = splice(text, robustness_section(args.runs, args.scratch, kept), "\0")
    if "failure-modes" in chosen:
        section_lines = presets_section(
            "Failure-mode and sync studies", "failure-modes", FAILURE_MODES, args.runs, args.scratch
        )
        text = splice(text, section_lines, "\0")
    if "slurm" in chosen:
        text = splice(text, slurm_section(args.runs, args.scratch), "\0")
    publish(text.split("\n"), args.out, args.scratch)


if __name__ == "__main__":
    main()
