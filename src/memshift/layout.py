"""Where every artifact lives. The Snakefile builds its paths here (with wildcards such as
"{world}" in place of values) and the stages find their files here, so a path is spelled once.

    <results>/worlds[-h<N>][-<set>]/w<seed>/   a world and its branches (shared by studies)
    <results>/runs/<study>/h<N>[-<set>]/<llm>/ one study's run: per world, per branch, per system
    <results>/cache/                           model replies and embeddings, keyed by content

N is the study's months of history before the fork (`worlds.history_months`); worlds of the
default history (the twelve-month world) keep the plain `worlds/` folder. <set> names a held-out
definition set (`worlds.definitions`); worlds of the six fixed definitions have none. Two
studies, or one study at two horizons or with two definition sets, never write into each
other's run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from memshift.vocabulary import BASELINES, HOLDMEM, audited_parts, cell_parts

DEFAULT_HISTORY_MONTHS = 9
FIXED = "fixed"  # the six fixed definitions (definitions.FIXED_SET)

# ---- a world's directory ----------------------------------------------------------------------

WORLD_FILES = ("world.json", "world.parquet", "manifest.json")
BRANCH_FILES = (
    ("events", "parquet"),
    ("shift", "json"),
    ("gold", "parquet"),
    ("probes", "parquet"),
)


def world_events(world_dir: Path) -> Path:
    return world_dir / "world.parquet"


def world_description(world_dir: Path) -> Path:
    return world_dir / "world.json"


def events(world_dir: Path, branch: str) -> Path:
    return world_dir / f"events-{branch}.parquet"


def shift(world_dir: Path, branch: str) -> Path:
    return world_dir / f"shift-{branch}.json"


def gold(world_dir: Path, branch: str) -> Path:
    return world_dir / f"gold-{branch}.parquet"


def probes(world_dir: Path, branch: str) -> Path:
    return world_dir / f"probes-{branch}.parquet"


def manifest(world_dir: Path) -> Path:
    return world_dir / "manifest.json"


def branch_files(world_dir: Path, branch: str) -> list[Path]:
    return [world_dir / f"{kind}-{branch}.{ext}" for kind, ext in BRANCH_FILES]


# ---- a world's directory of a run -------------------------------------------------------------


def prefork(run_world_dir: Path) -> Path:
    return run_world_dir / "prefork-writes.parquet"


def prefork_calls(run_world_dir: Path) -> Path:
    return run_world_dir / "calls-prefork.parquet"


# The jobs of a study that cover several systems of a world on every branch, each with one model
# call log for all of them (`job_calls`); one log per job, not one per branch and system, spares
# a study thousands of files its workflow tracks. The rows name their branch and system. The
# probe and answer audit jobs keep their answers in a folder of the same name (`answers_job`).
INGEST_JOB = "ingest"  # every detection's writer (and auditor) calls
REPAIR_JOB = "repair"  # every HoldMem cell's program calls
CELLS_JOB = "cells"  # the reader's calls for every HoldMem cell
BASELINES_JOB = "baselines"  # the reader's calls for every built-in baseline
AUDIT_JOB = "audit"  # the auditor's calls for every audited system


def job_calls(run_world_dir: Path, job: str) -> Path:
    """A job's model call log (`INGEST_JOB`, ...): calls-<job>.parquet beside the pre-fork's."""
    return run_world_dir / f"calls-{job}.parquet"


# The jobs that cover several systems of a world write a folder of their own, every branch and
# system in it (`<branch>/<system>/`), which the workflow tracks as one output (in the main study,
# 3,440 tables it does not look at one by one): the ingest job's detections (holdmem-<B>: writes,
# maintenance, served, audits), the audit/repair job's stores (holdmem-d<D>-<B>: store), and the
# answers of the jobs that probe the cells, the built-in baselines and the audited systems (each
# system's answers; the audited systems' answer-audits too). A system with a job of its own (a
# custom, native, imported or predicted one) keeps its folder at `<branch>/<system>/`.
DETECTIONS = "detections"
STORES = "stores"


def answers_job(system: str) -> str | None:
    """The job whose folder holds a system's answers (`CELLS_JOB`, `BASELINES_JOB`, `AUDIT_JOB`);
    None for a system with a job of its own. The names say it: a cell's and an audited system's
    follow their patterns, and the built-in baselines' names are reserved."""
    if cell_parts(system) is not None:
        return CELLS_JOB
    if audited_parts(system) is not None:
        return AUDIT_JOB
    return BASELINES_JOB if system in BASELINES else None


def job_dir(run_world_dir: Path, job: str) -> Path:
    """The folder of a job that covers several systems (`answers_job`, `DETECTIONS`, `STORES`)."""
    return run_world_dir / job


def system_dir(run_world_dir: Path, branch: str, system: str) -> Path:
    """A system's answers (and the files its probe writes beside them) on a branch: in its job's
    folder (`answers_job`) or, for a system with a job of its own, at `<branch>/<system>/`."""
    job = answers_job(system)
    return (run_world_dir if job is None else job_dir(run_world_dir, job)) / branch / system


def answers_of(answers: Path) -> tuple[Path, str, str]:
    """(run world directory, branch, system) of a system's answers table (`system_dir`'s
    inverse)."""
    system, branch = answers.parent.name, answers.parent.parent.name
    run_world_dir = answers.parent.parent.parent
    return (run_world_dir if answers_job(system) is None else run_world_dir.parent), branch, system


def job_answers(folder: Path) -> list[Path]:
    """Every system's answers table in a job's folder (`job_dir`), sorted."""
    return sorted(folder.glob(f"*/*/{ANSWERS}.parquet"))


def detections_dir(run_world_dir: Path) -> Path:
    return job_dir(run_world_dir, DETECTIONS)


def detection_dir(run_world_dir: Path, branch: str, system: str) -> Path:
    """A detection's folder (holdmem-<B>) of a branch in `detections_dir`."""
    return detections_dir(run_world_dir) / branch / system


def stores_dir(run_world_dir: Path) -> Path:
    return job_dir(run_world_dir, STORES)


def cell_store(run_world_dir: Path, branch: str, system: str) -> Path:
    """A HoldMem cell's store (holdmem-d<D>-<B>) of a branch in `stores_dir`."""
    return store_in(stores_dir(run_world_dir), branch, system)


def store_in(stores: Path, branch: str, system: str) -> Path:
    """A HoldMem cell's store of a branch in a world's stores folder (`stores_dir`)."""
    return table(stores / branch / system, STORE)


def sync_dir(run_world_dir: Path) -> Path:
    """A world's sync study (the sync stage owns it): `sync-scores.parquet`, `deliveries.parquet`,
    `calls.parquet` (the writer's) and `calls-reader.parquet`."""
    return run_world_dir / "sync"


def fork_check(run_world_dir: Path) -> Path:
    return run_world_dir / "fork-check.json"


def switch_dir(run_world_dir: Path, switch: str) -> Path:
    """A writer switch of one world (the switch stage owns it): `prefork-writes.parquet` (the
    store before, by the old writer), `calls.parquet`, and one directory per system: `before`
    (answers before the switch), holdmem-<detection> (writes, maintenance) and each cell
    holdmem-d<repair>-<detection> (store, answers after the switch)."""
    return run_world_dir / "switch" / switch


def calibration_dir(runs: Path, profile: str, world: int | str) -> Path:
    """A writer's pre-fork store of a calibration world and the reader's answers to it:
    prefork-writes.parquet, answers.parquet, calls.parquet (calibrate-writer stage)."""
    return world_in(runs / "calibration" / profile, world)


def bundle_dir(run_world_dir: Path, system: str) -> Path:
    """The Portable Memory bundle an imported memory (`pm-...`) starts from (export stage)."""
    return run_world_dir / "export" / f"{system}.mem"


# the directory of `switch_dir` holding the answers before the switch
BEFORE = "before"
# a cell's table of `switch_dir`: the repair arm's check of each write of the new writer
SWITCH_CHECKS = "checks"


# ---- a system's directory (`system_dir`), by the stage that writes each file -------------------

# ingest, per detection (holdmem-<detection>), in the run's `detection_dir` (a writer switch's in
# its `switch_dir`)
WRITES = "writes"
MAINTENANCE = "maintenance"
SERVED = "served"
AUDITS = "audits"
# a job's model call log, where it has one (detections, writer switches, calibrations)
CALLS = "calls"
DETECTION_CALLS = CALLS
# audit/repair, per cell (holdmem-d<repair>-<detection>), in the run's `stores_dir` (a writer
# switch's in its `switch_dir`)
STORE = "store"
PROGRAM_CALLS = "calls-programs"
# probe, per system
ANSWERS = "answers"
READER_CALLS = "calls-reader"
# probe (or import-run), per system with the optional `invalidations` method
INVALIDATIONS = "invalidations"
# probe, per native system (`systems.native`): the library calls that failed
NATIVE_FAILURES = "native-failures"
# sync, per world (`sync_dir`)
SYNC_SCORES = "sync-scores"
SYNC_DELIVERIES = "deliveries"
# answer audit, per audited system (<system>+audit)
ANSWER_AUDITS = "answer-audits"
AUDITOR_CALLS = "calls-auditor"


def table(directory: Path, name: str) -> Path:
    """A Parquet table of a system's directory, by one of the names above."""
    return directory / f"{name}.parquet"


# The logs a report reads, told apart by where the stages wrote them (the inverse of
# `detection_dir`, `system_dir` and `table` for them): each detection's maintenance log, each
# audited system's answer-audit log, the invalidation log of a system other than HoldMem's
# cells, and any model call log (calls*.parquet).
_MAINTENANCE_LOG = re.compile(
    rf"w(\d+)/{DETECTIONS}/([^/]+)/{HOLDMEM}-([^/]+)/{MAINTENANCE}\.parquet$"
)
_ANSWER_AUDIT_LOG = re.compile(
    rf"w(\d+)/{AUDIT_JOB}/([^/]+)/([^/]+\+audit(?:-[a-z]+)?)/{ANSWER_AUDITS}\.parquet$"
)
_INVALIDATION_LOG = re.compile(rf"w(\d+)/([^/]+)/([^/]+)/{INVALIDATIONS}\.parquet$")
_CALL_LOG = re.compile(rf"{CALLS}(-[a-z]+)?\.parquet$")
LOG_KINDS = (MAINTENANCE, ANSWER_AUDITS, INVALIDATIONS, CALLS)


@dataclass(frozen=True)
class RunLog:
    """A log of a run: its kind (one of LOG_KINDS) and, but for a call log, its world, branch
    and the name it is written under (the detection, the audited system or the system)."""

    kind: str
    path: Path
    world: int = 0
    branch: str = ""
    name: str = ""


def run_log(path: Path) -> RunLog | None:
    """What log `path` is, from where the stages write logs; None for any other file."""
    posix = path.as_posix()
    for kind, pattern in (
        (MAINTENANCE, _MAINTENANCE_LOG),
        (ANSWER_AUDITS, _ANSWER_AUDIT_LOG),
        (INVALIDATIONS, _INVALIDATION_LOG),
    ):
        if match := pattern.search(posix):
            return RunLog(kind, path, int(match[1]), match[2], match[3])
    return RunLog(CALLS, path) if _CALL_LOG.fullmatch(path.name) else None


# ---- a run's report directory (`Study.report`), written by the report stage --------------------


def report_page(report_dir: Path, suffix: str) -> Path:
    """report.md or report.html."""
    return report_dir / f"report.{suffix}"


def report_table(report_dir: Path, name: str) -> Path:
    return report_dir / "tables" / f"{name}.parquet"


def report_figures(report_dir: Path) -> Path:
    return report_dir / "figures"


# the figures in `report_figures` (report/figures.py draws them)
UPDATE_STABILITY = "update_stability.png"
CHANGED_OUTCOMES = "changed_outcomes.png"
CONTRASTS_BY_CLASS = "contrasts_by_class.png"
UPDATE_BY_WEEK = "update_by_week.png"
SWITCH_CALIBRATION = "switch_calibration.png"  # with a writer switch (studies/switch/report.py)
HORIZONS = "horizons.png"  # the horizons report's (studies/horizons/report.py)
# the validation grid's (studies/validation/grid_report_figure.py)
GRID_RECOVERED = "grid_recovered.png"
GRID_INTERACTION = "grid_interaction.png"
# the validation grid's tables, in its report folder
GRID_WRITERS = "writers"
GRID_CHECKS = "grid"


# ---- the repository's config files (paths relative to the repository) ------------------------

CONFIG = Path("config")


def config_file(name: str) -> Path:
    """config/<name>.yaml: the default study (config), the model profiles (models), the model
    servers (servers)."""
    return CONFIG / f"{name}.yaml"


def study_config(name: str) -> Path:
    """A preset study: config/studies/<name>.yaml."""
    return CONFIG / "studies" / f"{name}.yaml"


# ---- a study's directories --------------------------------------------------------------------


def world_in(folder: Path, world: int | str) -> Path:
    """World `world`'s folder in a folder of worlds (or of a run's worlds, or of logs)."""
    return folder / f"w{world}"


def llm_cache(results: Path) -> Path:
    """The response cache of every study under a results folder."""
    return results / "cache" / "llm"


def run_logs(run: Path) -> Path:
    """A run's job logs."""
    return run / "logs"


def run_report(run: Path) -> Path:
    """A run's report folder (`report_page`, `report_table`, `report_figures` inside it)."""
    return run / "report"


def run_plan(run: Path) -> Path:
    """What `memshift plan` priced a run at, by stage and role."""
    return run / "plan.parquet"


def run_plan_summary(run: Path) -> Path:
    return run / "plan.json"


def prediction_overlay(run: Path, system: str) -> Path:
    """The study overlay `memshift score-predictions` writes for a predictions file."""
    return run / "predictions" / f"{system}.yaml"


def server_log(results: Path, server: str) -> Path:
    """The log of a model server `memshift serve` started."""
    return results / "servers" / f"{server}.log"


def models_copy(folder: Path) -> Path:
    """The model profiles a study wrote for its own writers (the validation grid's)."""
    return folder / "models.yaml"


def dataset_table(out: Path, name: str) -> Path:
    """A table of an exported dataset (`memshift export-dataset`)."""
    return out / f"{name}.parquet"


def dataset_sheet(out: Path) -> Path:
    return out / "DATASHEET.md"


def cache_entry(root: Path, key: str) -> Path:
    """One reply in the response cache, under the first characters of its key."""
    return root / key[:3] / f"{key}.json"


def maintenance_logs(run: Path) -> list[Path]:
    """Every HoldMem detection's maintenance log in a run, world by world."""
    return sorted(run.glob(f"w*/{DETECTIONS}/*/{HOLDMEM}-*/{MAINTENANCE}.parquet"))


def doc_pages(repository: Path) -> list[Path]:
    """The pages whose generated blocks `memshift docs-tables` writes: README.md and docs/*.md."""
    return [repository / "README.md", *sorted((repository / "docs").glob("*.md"))]


def run_scores(run: Path) -> Path:
    """A run's scored answers, every world's."""
    return run / "scores.parquet"


def bundle_manifest(bundle: Path) -> Path:
    """A Portable Memory bundle's manifest."""
    return bundle / "manifest.json"


def rewriter_calls(world_dir: Path) -> Path:
    """The rewrite stage's model calls for one world."""
    return world_dir / "calls-rewriter.parquet"


def worlds_of(world_file: Path) -> Path:
    """The worlds directory that holds a world's file (`worlds_dir`)."""
    return world_file.parents[1]


def _suffix(history_months: int, definitions: str, rewriter: str | None = None) -> str:
    """What tells a study's worlds from the default ones: the horizon, the definition set, the
    profile that rewrote their message bodies."""
    parts = [] if history_months == DEFAULT_HISTORY_MONTHS else [f"h{history_months}"]
    parts += [] if definitions == FIXED else [definitions]
    parts += [] if rewriter is None else [f"rw-{rewriter}"]
    return "".join(f"-{p}" for p in parts)


def worlds_dir(
    results: Path, history_months: int, definitions: str = FIXED, rewriter: str | None = None
) -> Path:
    return results / f"worlds{_suffix(history_months, definitions, rewriter)}"


def rewrite_log(world_dir: Path) -> Path:
    """What the rewrite stage did to each message body of a rewritten world."""
    return world_dir / "rewrite-log.parquet"


def history_of_worlds(worlds: Path) -> int:
    """The months of history of a worlds directory (`worlds_dir`'s inverse)."""
    for part in worlds.name.split("-")[1:]:
        if part.startswith("h") and part[1:].isdigit():
            return int(part[1:])
    return DEFAULT_HISTORY_MONTHS


def runs_of_study(
    results: Path,
    study: str,
    history_months: int,
    definitions: str = FIXED,
    rewriter: str | None = None,
) -> Path:
    """Where the runs of one study at one horizon (definition set, rewritten worlds) live, one
    folder per model profile."""
    name = f"h{history_months}{_suffix(DEFAULT_HISTORY_MONTHS, definitions, rewriter)}"
    return results / "runs" / study / name


def run_dir(
    results: Path,
    study: str,
    history_months: int,
    run_name: str,
    definitions: str = FIXED,
    rewriter: str | None = None,
) -> Path:
    return runs_of_study(results, study, history_months, definitions, rewriter) / run_name


def validation_report_dir(results: Path) -> Path:
    """The validation study's report, over its writers' runs."""
    return results / "validation"


def grid_report_dir(results: Path, study: str) -> Path:
    """The validation grid's report (and the models file it writes for its writers)."""
    return results / study


# the reports over several runs of one study: at every horizon, with each held-out definition
# set, on template and rewritten worlds
RUNS_REPORTS = ("horizons", "heldout", "rewritten")


def runs_report_dir(
    results: Path,
    study: str,
    report: str,
    run_name: str,
    definitions: str = FIXED,
    rewriter: str | None = None,
) -> Path:
    """Where a report over several runs of one study goes (`RUNS_REPORTS`); on worlds of another
    definition set or rewritten worlds, a folder of its own (`horizons-heldout-1`)."""
    if report not in RUNS_REPORTS:
        raise ValueError(f"unknown report {report!r}; choose one of {RUNS_REPORTS}")
    folder = f"{report}{_suffix(DEFAULT_HISTORY_MONTHS, definitions, rewriter)}"
    return results / "runs" / study / folder / run_name


def results_of_run(run: Path) -> Path:
    """The results directory of a run directory (`run_dir`'s inverse)."""
    return run.parents[3]


@dataclass(frozen=True)
class Study:
    """The paths of one study's run. Arguments may be wildcards ("{world}") as well as values,
    so the Snakefile's patterns come from the same functions as the stages' paths. Its folders
    are computed once (the Snakefile asks for thousands of paths under them)."""

    results: Path
    study: str
    history_months: int
    run_name: str  # `llm`, and `+role=profile` for every role whose profile differs from it
    definitions: str = FIXED  # the definition set of the worlds (definitions.DEFINITION_SETS)
    rewriter: str | None = None  # the profile that rewrote the worlds' message bodies, if any

    @cached_property
    def worlds(self) -> Path:
        return worlds_dir(self.results, self.history_months, self.definitions, self.rewriter)

    @cached_property
    def template_worlds(self) -> Path:
        """Where the world stages build the worlds: the study's own worlds, or for rewritten
        worlds the template worlds they are rewritten from."""
        return worlds_dir(self.results, self.history_months, self.definitions)

    def built_world(self, world: int | str) -> Path:
        return world_in(self.template_worlds, world)

    @cached_property
    def profile_runs(self) -> Path:
        """The runs of this study on these worlds, one folder per model profile (`run_name`)."""
        return runs_of_study(
            self.results, self.study, self.history_months, self.definitions, self.rewriter
        )

    @cached_property
    def runs(self) -> Path:
        return self.profile_runs / self.run_name

    def runs_report(self, report: str) -> Path:
        """Where a report over several runs of this study goes (`runs_report_dir`)."""
        return runs_report_dir(
            self.results, self.study, report, self.run_name, self.definitions, self.rewriter
        )

    @property
    def llm_cache(self) -> Path:
        return llm_cache(self.results)

    def embedding_cache(self, world: int | str) -> Path:
        return world_in(self.results / "cache" / "embeddings", world)

    def world(self, world: int | str) -> Path:
        return world_in(self.worlds, world)

    def run_world(self, world: int | str) -> Path:
        return world_in(self.runs, world)

    def system(self, world: int | str, branch: str, system: str) -> Path:
        return system_dir(self.run_world(world), branch, system)

    @property
    def scores(self) -> Path:
        return run_scores(self.runs)

    @property
    def plan(self) -> Path:
        """What `memshift plan` priced the run at, by stage and role; the report sets it beside
        what the run spent."""
        return run_plan(self.runs)

    @property
    def plan_summary(self) -> Path:
        return run_plan_summary(self.runs)

    def world_scores(self, world: int | str) -> Path:
        """One world's scored answers (score stage); `scores` joins every world's."""
        return self.run_world(world) / "scores.parquet"

    @property
    def report(self) -> Path:
        return run_report(self.runs)

    def calibration(self, profile: str, world: int | str) -> Path:
        return calibration_dir(self.runs, profile, world)

    @property
    def switch_scores(self) -> Path:
        """Every item of every writer switch, scored before and after (switch-score stage)."""
        return self.runs / "switch" / "scores.parquet"

    @property
    def agreement(self) -> Path:
        """Per switch and item type, the two writers' agreement on the calibration worlds."""
        return self.runs / "switch" / "agreement.parquet"

    @property
    def manifest(self) -> Path:
        return self.runs / "manifest.json"

    @property
    def failures_gate(self) -> Path:
        """Written by the failures gate when it passes (stages/failures_gate.py); after the
        manifest, so not in it."""
        return self.runs / "failures-gate.txt"

    def world_log(self, stage: str, name: str) -> Path:
        return self.worlds / "logs" / stage / f"{name}.log"

    def world_benchmark(self, stage: str, name: str) -> Path:
        return self.worlds / "benchmarks" / stage / f"{name}.tsv"

    def run_log(self, stage: str, name: str | None = None) -> Path:
        return run_logs(self.runs) / (f"{stage}.log" if name is None else f"{stage}/{name}.log")

    def run_benchmark(self, stage: str, name: str | None = None) -> Path:
        folder = self.runs / "benchmarks"
        return folder / (f"{stage}.tsv" if name is None else f"{stage}/{name}.tsv")
