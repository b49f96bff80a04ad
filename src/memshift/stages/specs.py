"""The spec of a workflow job: one typed value per job, built by the workflow from the checked
study and the layout, and handed to the job whole (`memshift job STAGE SPEC`).

A spec is a frozen dataclass of paths, names, numbers and flags; its JSON (`to_json`, keys
sorted) is one shell word of the rule's command and one parameter of the job, so a change of any
setting reruns exactly the jobs whose spec it changes. `from_json` takes the text back to the
same value, refusing (one line naming the field) an unknown or missing field, a value of the
wrong type and a name outside its vocabulary. Each stage's `run_job` takes its spec and nothing
else; `JOBS` names the stage each spec runs.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin, get_type_hints

from memshift.errors import ConfigError
from memshift.intake.reading import parse_json
from memshift.probes.sample import ProbeSample
from memshift.vocabulary import (
    AUDIT_VARIANTS,
    BRANCHES,
    DETECTIONS,
    EXPORT_ARMS,
    MAX_SEED,
    MOVABLE,
    READ_SETS,
    REPAIRS,
    ROLES,
    audited_parts,
    cell_parts,
    portable_parts,
    system_name_problem,
)

MAX_SPEC_CHARS = 1 << 20  # a world's job names a few hundred paths: far below this

S = TypeVar("S", bound="JobSpec")


def _decode(value: Any, hint: Any, where: str) -> Any:
    """`value` (parsed JSON) as the type `hint`, or a ConfigError naming `where`."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if value is None and len(options) < len(get_args(hint)):
            return None
        for option in options[:-1]:
            try:
                return _decode(value, option, where)
            except ConfigError:
                pass
        return _decode(value, options[-1], where)
    if origin is tuple:
        item, _ = get_args(hint)
        if not isinstance(value, list):
            raise ConfigError(f"{where}: {_shown(value)} is not a list")
        return tuple(_decode(v, item, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        _, item = get_args(hint)
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {_shown(value)} is not an object")
        return {k: _decode(v, item, f"{where}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {_shown(value)} is not an object")
        return _fields_of(hint, value, where)
    if hint is Path:
        if not isinstance(value, str) or not value or "\x00" in value:
            raise ConfigError(f"{where}: {_shown(value)} is not a path")
        return Path(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {_shown(value)} is not true or false")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where}: {_shown(value)} is not an integer")
        return value
    if hint is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{where}: {_shown(value)} is not a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {_shown(value)} is not a string")
        return value
    raise TypeError(f"a job spec cannot hold {hint!r} ({where})")


def _fields_of(cls: Any, data: Mapping[str, Any], where: str) -> Any:
    hints = get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"{where}: unknown field {_shown(unknown[0])}; the fields are {', '.join(fields)}"
        )
    missing = [
        name
        for name, f in fields.items()
        if name not in data
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ConfigError(f"{where}: the field {missing[0]!r} is missing")
    values = {name: _decode(v, hints[name], f"{where}.{name}") for name, v in data.items()}
    return cls(**values)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _check_names(where: str, names: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    for name in names:
        if name not in allowed:
            raise ConfigError(f"{where}: {_shown(name)} is not one of {', '.join(allowed)}")


@dataclass(frozen=True)
class JobSpec:
    """What every spec is: a typed value with one JSON text."""

    stage: ClassVar[str]
    runner: ClassVar[str]  # "module:function" taking the spec
    # whether the runner takes the threads the scheduler gave the job (they change no output)
    threaded: ClassVar[bool] = False

    def __post_init__(self) -> None:
        # a spec built in the workflow is held to the types its job will read it back with
        hints = get_type_hints(type(self))
        for f in dataclasses.fields(self):
            _decode(_plain(getattr(self, f.name)), hints[f.name], self.where(f.name))

    def where(self, name: str) -> str:
        """A field of this spec, as an error names it."""
        return f"the {self.stage} job's spec.{name}"

    def to_json(self) -> str:
        return json.dumps(_plain(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls: type[S], text: str) -> S:
        where = f"the {cls.stage} job's spec"
        if len(text) > MAX_SPEC_CHARS:
            raise ConfigError(f"{where} is {len(text):,} characters, over {MAX_SPEC_CHARS:,}")
        data = parse_json(text, where)
        if not isinstance(data, dict):
            raise ConfigError(f"{where} is not a JSON object")
        spec: S = _fields_of(cls, data, where)
        return spec


@dataclass(frozen=True)
class ModelAccess:
    """How a job reaches its models: each role it calls by profile name, the models file that
    defines them and the response cache (None: no cache)."""

    roles: dict[str, str]
    models: Path
    cache: Path | None

    def __post_init__(self) -> None:
        _check_names("the job's spec.access.roles", tuple(self.roles), ROLES)

    def profile(self, role: str) -> Any:
        """The profile serving `role` (models.profiles.Profile)."""
        if role not in self.roles:
            raise ConfigError(f"the job's spec names no profile for the {role} role")
        return self.named(self.roles[role])

    def named(self, name: str) -> Any:
        """The models file's profile `name` (models.profiles.Profile)."""
        from memshift.models.profiles import study_profile

        return study_profile(name, self.models)


@dataclass(frozen=True)
class WorldJob(JobSpec):
    """A world from nothing: its events, every branch's events, gold and probes, its manifest."""

    stage: ClassVar[str] = "world"
    runner: ClassVar[str] = "memshift.stages.chain:run_job"
    seed: int
    out: Path
    history_months: int
    definitions: str
    branches: tuple[str, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(f"{self.where('seed')}: {self.seed} is outside 0..{MAX_SEED}")
        _check_names(self.where("branches"), self.branches, BRANCHES)


@dataclass(frozen=True)
class PreforkJob(JobSpec):
    """HoldMem's pre-fork store of a world."""

    stage: ClassVar[str] = "prefork"
    runner: ClassVar[str] = "memshift.stages.prefork:run_job"
    world: Path
    run: Path
    access: ModelAccess
    sample: ProbeSample | None = None


@dataclass(frozen=True)
class BranchesJob(JobSpec):
    """A job over the branches of one world (`world`, the world's folder) whose outputs go to
    its run's folder (`run`)."""

    world: Path
    run: Path
    branches: tuple[str, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_names(self.where("branches"), self.branches, BRANCHES)


@dataclass(frozen=True)
class IngestJob(BranchesJob):
    """Every HoldMem detection over a world's branches, with the job's one call log."""

    stage: ClassVar[str] = "ingest"
    runner: ClassVar[str] = "memshift.stages.ingest:run_job"
    detections: tuple[str, ...]
    access: ModelAccess
    calls: Path
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_names(self.where("detections"), self.detections, DETECTIONS)


@dataclass(frozen=True)
class AuditRepairJob(BranchesJob):
    """Every HoldMem cell's repair arm over its detection's writes, on a world's branches."""

    stage: ClassVar[str] = "audit_repair"
    runner: ClassVar[str] = "memshift.stages.audit_repair:run_job"
    cells: tuple[str, ...]
    access: ModelAccess
    calls: Path
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_cells(self, self.cells, DETECTIONS)


@dataclass(frozen=True)
class ScoreJob(JobSpec):
    """A world's answers scored (each table, or each job's folder of them), after its cells'
    fork check; its cells' stores from its stores folder, its floors from its pre-fork store."""

    stage: ClassVar[str] = "score"
    runner: ClassVar[str] = "memshift.stages.score:run_job"
    world: int
    answers: tuple[Path, ...]
    worlds: Path
    out: Path
    fork_check: Path
    fork_cells: tuple[Path, ...]
    stores: Path | None = None
    prefork: Path | None = None
    sample: ProbeSample | None = None


@dataclass(frozen=True)
class JoinScoresJob(JobSpec):
    """The worlds' score tables joined into the study's."""

    stage: ClassVar[str] = "join_scores"
    runner: ClassVar[str] = "memshift.stages.score:run_join"
    parts: tuple[Path, ...]
    out: Path


def _check_systems(where: str, names: tuple[str, ...]) -> None:
    """Each name a system name (`vocabulary.system_name_problem`): it names folders and files
    of the run, so anything else is refused before anything is written."""
    for name in names:
        problem = system_name_problem(name)
        if problem is not None:
            raise ConfigError(f"{where}: {_shown(name)} {problem}")


@dataclass(frozen=True)
class ProbeJob(BranchesJob):
    """Built-in systems (HoldMem's cells, the baselines) asked the probes of a world's branches
    through the shared reader, in one batch, with the job's one call log. `every_item_time`:
    the systems that answer every unshifted item-time; `read_set`: what a B=1 cell revokes an
    item by; `embedder` and `embedding_cache`: plain RAG's."""

    stage: ClassVar[str] = "probe"
    runner: ClassVar[str] = "memshift.stages.probe:run_job"
    systems: tuple[str, ...]
    every_item_time: tuple[str, ...]
    read_set: str
    embedder: str
    embedding_cache: Path | None
    access: ModelAccess
    calls: Path
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_systems(self.where("systems"), self.systems)
        _check_names(self.where("every_item_time"), self.every_item_time, self.systems)
        _check_names(self.where("read_set"), (self.read_set,), READ_SETS)


@dataclass(frozen=True)
class CustomProbeJob(BranchesJob):
    """A custom system (`systems.custom`: `spec`, a class with the memory interface) asked the
    probes of a world's branches, its reader's calls logged per branch beside its answers."""

    stage: ClassVar[str] = "probe_custom"
    runner: ClassVar[str] = "memshift.stages.probe_custom:run_job"
    system: str
    spec: str
    every_item_time: bool
    embedder: str
    embedding_cache: Path | None
    access: ModelAccess
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_systems(self.where("system"), (self.system,))


@dataclass(frozen=True)
class NativeProbeJob(BranchesJob):
    """A real memory library (`systems.native`: `settings`, its JSON) following each of a
    world's branches and asked its probes."""

    stage: ClassVar[str] = "probe_native"
    runner: ClassVar[str] = "memshift.stages.probe_native:run_job"
    system: str
    settings: str
    every_item_time: bool
    access: ModelAccess
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_systems(self.where("system"), (self.system,))


@dataclass(frozen=True)
class AnswerAuditJob(BranchesJob):
    """Systems' answers audited before scoring on a world's branches, each written as the
    answers of its audited name (`<system>+audit` or `<system>+audit-<variant>`), with the job's
    one call log; `batch`: a system's answers about one item-time one call audits."""

    stage: ClassVar[str] = "answer_audit"
    runner: ClassVar[str] = "memshift.stages.answer_audit:run_job"
    audited: tuple[str, ...]
    batch: int
    access: ModelAccess
    calls: Path
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in self.audited:
            parts = audited_parts(name)
            if parts is None or parts[1] not in AUDIT_VARIANTS:
                raise ConfigError(
                    f"{self.where('audited')}: {_shown(name)} is not an audited system, "
                    "<system>+audit or <system>+audit-<variant> (variant one of "
                    f"{', '.join(v for v in AUDIT_VARIANTS if v != 'full')})"
                )
            _check_systems(self.where("audited"), (parts[0],))
        if self.batch < 1:
            raise ConfigError(f"{self.where('batch')}: {self.batch} is not 1 or more")

    def audits(self) -> list[tuple[str, str]]:
        """Each audited name as (system, variant), in order."""
        return [audited_parts(name) for name in self.audited]  # type: ignore[misc]


@dataclass(frozen=True)
class SyncJob(JobSpec):
    """The sync study of a world (`sync:`): its systems under ideal delivery and under the
    sources' sync contracts (`settings`: the study's `sync`, `sync.contracts.SyncSettings`),
    written to `out`."""

    stage: ClassVar[str] = "sync"
    runner: ClassVar[str] = "memshift.studies.sync.stage:run_job"
    world: Path
    out: Path
    settings: dict[str, int | float]
    access: ModelAccess


def _check_cells(spec: JobSpec, cells: tuple[str, ...], detections: tuple[str, ...]) -> None:
    """Each of `cells` a HoldMem cell (holdmem-d<D>-<B>) on one of `detections`."""
    for cell in cells:
        parts = cell_parts(cell)
        if parts is None or parts[0] not in REPAIRS or parts[1] not in detections:
            raise ConfigError(
                f"{spec.where('cells')}: {_shown(cell)} is not a HoldMem cell "
                f"(holdmem-d<D>-<B>, B one of {', '.join(detections)})"
            )


@dataclass(frozen=True)
class RewriteJob(JobSpec):
    """A built world (`template`) whose message bodies the rewriter role of the profile
    `rewriter` rewrites into `out`, every gold fact kept verbatim."""

    stage: ClassVar[str] = "rewrite"
    runner: ClassVar[str] = "memshift.studies.rewritten.rewrite_stage:run_job"
    template: Path
    out: Path
    branches: tuple[str, ...]
    rewriter: str
    access: ModelAccess

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_names(self.where("branches"), self.branches, BRANCHES)


@dataclass(frozen=True)
class SwitchJob(JobSpec):
    """One writer switch (`name`, from profile `old` to `new`) on every world of `seeds`: the
    new writer re-derives what each of `cells`' keys invalidates; `reuse_prefork`: start from
    each world's pre-fork store of the run (its writer is `old`)."""

    stage: ClassVar[str] = "switch"
    runner: ClassVar[str] = "memshift.studies.switch.stage:run_job"
    worlds: Path
    runs: Path
    seeds: tuple[int, ...]
    name: str
    old: str
    new: str
    cells: tuple[str, ...]
    reuse_prefork: bool
    access: ModelAccess

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_cells(self, self.cells, MOVABLE)


@dataclass(frozen=True)
class CalibrationJob(JobSpec):
    """One writer's pre-fork store of each calibration world, and its fork probes answered."""

    stage: ClassVar[str] = "calibrate_writer"
    runner: ClassVar[str] = "memshift.studies.switch.calibration_stage:run_job"
    worlds: Path
    runs: Path
    seeds: tuple[int, ...]
    writer: str
    access: ModelAccess


@dataclass(frozen=True)
class SwitchScoreJob(JobSpec):
    """Every writer switch (name -> [from, to]) scored before and after, beside the writers'
    agreement on the calibration worlds."""

    stage: ClassVar[str] = "switch_score"
    runner: ClassVar[str] = "memshift.studies.switch.score_stage:run_job"
    worlds: Path
    runs: Path
    switches: dict[str, tuple[str, ...]]
    seeds: tuple[int, ...]
    calibration: tuple[int, ...]
    cells: tuple[str, ...]
    scores: Path
    agreement: Path

    def __post_init__(self) -> None:
        super().__post_init__()
        for name, pair in self.switches.items():
            if len(pair) != 2:
                raise ConfigError(
                    f"{self.where('switches')}.{name}: {_shown(pair)} is not [from, to]"
                )
        _check_cells(self, self.cells, MOVABLE)


@dataclass(frozen=True)
class ExportJob(JobSpec):
    """A HoldMem cell's store at the fork as a Portable Memory bundle in `out`; the writer
    role's profile wrote the run's pre-fork store (its id is in the keys)."""

    stage: ClassVar[str] = "export"
    runner: ClassVar[str] = "memshift.studies.export.stage:run_job"
    world: Path
    run: Path
    detection: str
    repair: str
    arm: str
    access: ModelAccess
    out: Path

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_names(self.where("detection"), (self.detection,), MOVABLE)
        _check_names(self.where("repair"), (self.repair,), REPAIRS)
        _check_names(self.where("arm"), (self.arm,), EXPORT_ARMS)


@dataclass(frozen=True)
class ImportRunJob(BranchesJob):
    """The second implementation imports a cell's bundle (`system`, pm-d<D>-<B>-<arm>) and
    follows each branch; every probe is answered by the reader."""

    stage: ClassVar[str] = "import_run"
    runner: ClassVar[str] = "memshift.studies.export.import_stage:run_job"
    system: str
    every_item_time: bool
    access: ModelAccess

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_systems(self.where("system"), (self.system,))
        if portable_parts(self.system) is None:
            raise ConfigError(
                f"{self.where('system')}: {_shown(self.system)} is not pm-d<D>-<B>-<ext|noext>"
            )


@dataclass(frozen=True)
class PredictionsJob(BranchesJob):
    """A predictions file's answers to one world's probes, as `system`'s answers."""

    stage: ClassVar[str] = "predictions"
    runner: ClassVar[str] = "memshift.stages.predictions:run_job"
    system: str
    file: Path
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_systems(self.where("system"), (self.system,))


@dataclass(frozen=True)
class RunManifestJob(JobSpec):
    """What produced a run and the sha256 of every file of `outputs` (paths relative to
    `base`), written to `out`."""

    stage: ClassVar[str] = "run_manifest"
    runner: ClassVar[str] = "memshift.stages.run_manifest:run_job"
    outputs: tuple[Path, ...]
    out: Path
    base: Path
    access: ModelAccess
    study: str
    seeds: tuple[int, ...]
    config_sha256: str


@dataclass(frozen=True)
class ReportJob(JobSpec):
    """A run's report in `out`: its scores, `logs` (each detection's maintenance log, each
    audited system's answer-audit log, the invalidation and call logs), the run of profile
    `llm` whose roles `access` names; the bootstrap's `draws` and `seed`; the writer switches'
    scores and pools, the exported bundles, the sync study's scores and `memshift plan`'s
    plan where the study has them. Given threads (`memshift job report SPEC --threads 2`), a
    second process runs the trap suite and draws the figures: the same files, sooner."""

    stage: ClassVar[str] = "report"
    runner: ClassVar[str] = "memshift.stages.report:run_job"
    threaded: ClassVar[bool] = True
    scores: Path
    logs: tuple[Path, ...]
    worlds: Path
    out: Path
    llm: str
    access: ModelAccess
    study: str
    draws: int
    seed: int
    max_failure_share: float
    switch_scores: Path | None = None
    switch_pools: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bundles: tuple[Path, ...] = ()
    sync_scores: tuple[Path, ...] = ()
    plan: Path | None = None
    sample: ProbeSample | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.draws < 1:
            raise ConfigError(f"{self.where('draws')}: {self.draws} is not 1 or more")
        if not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(f"{self.where('seed')}: {self.seed} is outside 0..{MAX_SEED}")
        if not 0 <= self.max_failure_share <= 1:
            raise ConfigError(
                f"{self.where('max_failure_share')}: {self.max_failure_share} is not in [0, 1]"
            )


@dataclass(frozen=True)
class FailuresGateJob(JobSpec):
    """The study's last job: exit 1 with one line when the report's failures table marks a
    system not measured, unless `allow_failures`; `out` is written when it passes."""

    stage: ClassVar[str] = "failures_gate"
    runner: ClassVar[str] = "memshift.stages.failures_gate:run_job"
    failures: Path
    report: Path
    out: Path
    allow_failures: bool


JOBS: dict[str, type[JobSpec]] = {
    spec.stage: spec
    for spec in (
        WorldJob, RewriteJob, PreforkJob, IngestJob, AuditRepairJob, ProbeJob, CustomProbeJob,
        NativeProbeJob, PredictionsJob, AnswerAuditJob, ExportJob, ImportRunJob, SwitchJob,
        CalibrationJob, SwitchScoreJob, SyncJob, ScoreJob, JoinScoresJob, ReportJob, RunManifestJob,
        FailuresGateJob,
    )
}  # fmt: skip


def run(stage: str, text: str, threads: int = 1) -> None:
    """Run the job of `stage` that `text` specifies, on `threads` where it takes them."""
    if stage not in JOBS:
        raise ConfigError(f"no job stage {stage!r}; the stages are {', '.join(JOBS)}")
    spec = JOBS[stage].from_json(text)
    module, _, name = spec.runner.partition(":")
    runner: Callable[..., None] = getattr(import_module(module), name)
    if spec.threaded:
        runner(spec, threads)
    else:
        runner(spec)
