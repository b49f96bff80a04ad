"""Stage `report`: measures, contrasts and diagnostic tests of a run, as tables, figures and text.

Reads the run's scores, the maintenance logs of its HoldMem detections, the logs of its
answer-level audits, the invalidation logs of other systems that report them, its model call
logs, its exported bundles, and from each world its probes' times, events and items (for the
cost of a full re-read). Writes
report/tables/{measures,measures_by_checkpoint,contrasts,diagnostics,calls,failures,...}.parquet
(every table of TABLES; with an export also export and bundles, with a writer switch its three
tables), report/figures/*.png, report/report.md and report/report.html (the same text as one
standalone page, its tables as tables and its figures embedded)."""

from __future__ import annotations

import importlib
import multiprocessing
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from memshift import layout, schemas, vocabulary
from memshift.analysis import contrasts, diagnostics, measures
from memshift.analysis.audit_metrics import (
    load_answer_audits,
    load_detection_audits,
)
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.costs import call_costs
from memshift.analysis.failures import (
    MAX_FAILURE_SHARE,
    counted,
    failures_table,
    unmeasured_on,
    verdict_line,
)
from memshift.analysis.frame import log_sources, open_study
from memshift.analysis.plan import PLAN
from memshift.analysis.sqlfiles import path_list
from memshift.artifacts import ArtifactError, read_table, write_table, write_text
from memshift.audit.trap_suite import run_suite
from memshift.errors import MemshiftError
from memshift.models.profiles import Profile
from memshift.models.redaction import shown_url
from memshift.probes.sample import ProbeSample, sample_world
from memshift.report import sections as report_sections
from memshift.report.figures import write_figures
from memshift.report.html import standalone
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import Header, render
from memshift.stages.specs import ReportJob
from memshift.studies.export import analysis as export
from memshift.studies.switch import report as switch_text
from memshift.studies.switch.report import SwitchReport, writer_switch
from memshift.world.stored import load


def table_schemas(conditions: Sequence[str]) -> dict[str, pa.Schema]:
    """The schema of every table the report of a study meeting `conditions` writes: a name in
    the section's own module, else in `memshift.schemas`."""
    found = {t.name: getattr(schemas, t.schema) for t in report_sections.BODY}
    for entry in report_sections.applying(conditions):
        module = importlib.import_module(report_sections.module_name(entry))
        for t in entry.tables:
            found[t.name] = getattr(module, t.schema, None) or getattr(schemas, t.schema)
    return found


def backend_label(profile: Profile) -> str:
    if profile.backend == "rules":
        return (
            f"{profile.name}: the built-in rule-based backend (deterministic; not a language model)"
        )
    where = f" at {shown_url(profile.base_url)}" if profile.base_url else ""
    revision = f" (revision {profile.revision})" if profile.revision else ""
    return f"{profile.name}: {profile.backend} backend, model {profile.model}{revision}{where}"


def leaving_rows(
    con: duckdb.DuckDBPyConnection, pairs: Sequence[tuple[str, str]], resampling: Resampling
) -> list[dict[str, Any]]:
    """The leaving test of every imported memory against the cell it was exported from."""
    if not pairs:
        return [
            diagnostics.not_applicable(
                "leaving", diagnostics.LEAVING_MARGIN, "the study has no export and import"
            )
        ]
    return [
        diagnostics.leaving(con, original, imported, resampling) for original, imported in pairs
    ]


def roles_label(llm: str, profiles: Mapping[str, Profile]) -> str:
    """The backend of `llm`, then each role whose profile differs from it."""
    main = next((p for p in profiles.values() if p.name == llm), None)
    parts = [backend_label(main)] if main is not None else []
    parts += [
        f"{role}: {backend_label(profile)}"
        for role, profile in profiles.items()
        if profile.name != llm
    ]
    return "; ".join(parts)


def _progress(message: str) -> None:
    print(f"report: {message}", file=sys.stderr, flush=True)


def _load_world_tables(
    con: duckdb.DuckDBPyConnection, worlds_dir: Path, sample: ProbeSample | None = None
) -> None:
    """Tables events, checkpoint_times, item_sources and world_items for the worlds and branches
    scored (of a sampled study, its drawn items)."""
    scored = con.execute("SELECT DISTINCT world, branch FROM scores ORDER BY ALL").fetchall()
    event_files = [layout.events(layout.world_in(worlds_dir, w), b) for w, b in scored]
    probe_files = [layout.probes(layout.world_in(worlds_dir, w), b) for w, b in scored]
    for path in [*event_files, *probe_files]:
        if not path.exists():
            raise ArtifactError(f"missing artifact {path}")

    con.execute(
        "CREATE OR REPLACE TABLE events AS SELECT world, branch, time, op, object_id, source, "
        f"revision, tokens FROM read_parquet({path_list(event_files)})"
    )
    con.execute(
        "CREATE OR REPLACE TABLE checkpoint_times AS SELECT DISTINCT world, branch, checkpoint, "
        f"time FROM read_parquet({path_list(probe_files)})"
    )
    rows, items = [], []
    for world in sorted({w for w, _ in scored}):
        world_dir = layout.world_in(worlds_dir, world)
        for item in sample_world(load(world_dir, with_events=False), sample).items:
            rows += [(world, item.item_id, source) for source in item.sources]
            items.append(
                (world, item.item_id, vocabulary.item_class(item.is_definition, item.free_text))
            )
    con.execute(
        "CREATE OR REPLACE TABLE item_sources (world INTEGER, item_id VARCHAR, source VARCHAR)"
    )
    con.execute(
        "CREATE OR REPLACE TABLE world_items (world INTEGER, item_id VARCHAR, item_class VARCHAR)"
    )
    if rows:
        con.executemany("INSERT INTO item_sources VALUES (?, ?, ?)", rows)
    if items:
        con.executemany("INSERT INTO world_items VALUES (?, ?, ?)", items)


T = TypeVar("T")
TRAP_CASES = 20  # per regime and world


def _worlds_scored(scores: Path) -> list[int]:
    worlds = read_table(scores, schemas.SCORES, columns=["world"])["world"]
    return sorted(set(worlds.to_pylist()))


def trap_table(worlds: Sequence[int]) -> pa.Table:
    """The trap suite on the study's worlds' seeds, summed per regime."""
    totals: dict[str, list[int]] = {}
    for world in worlds:
        for r in run_suite(world, TRAP_CASES):
            found = totals.setdefault(r.regime, [0, 0, 0, 0])
            counts = (r.cases, r.proposed, r.gate_accepted, r.semantic_accepted)
            totals[r.regime] = [a + b for a, b in zip(found, counts, strict=True)]
    return pa.Table.from_pylist(
        [
            dict(zip(schemas.TRAPS.names, [regime, *counts], strict=True))
            for regime, counts in totals.items()
        ],
        schema=schemas.TRAPS,
    )


class _Beside:
    """Work for a second process when there is one, else done here when its result is wanted."""

    def __init__(self, enabled: bool) -> None:
        # forked before the database opens: the helper never touches it
        self._pool = (
            ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
            if enabled
            else None
        )

    def __enter__(self) -> _Beside:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def start(self, work: Callable[..., T], *args: Any) -> Callable[[], T]:
        """Start `work(*args)`; the returned function waits for its result (or raises its
        error)."""
        if self._pool is None:
            return lambda: work(*args)
        return self._pool.submit(work, *args).result


def study_conditions(sync: bool, switch: bool, exported: bool) -> list[str]:
    """The report conditions a study meets (`report.sections`): a sync study, a writer switch,
    an export."""
    met = ((report_sections.SYNC, sync), (report_sections.SWITCH, switch),
           (report_sections.EXPORT, exported))  # fmt: skip
    return [condition for condition, yes in met if yes]


def run_sections(
    inputs: ReportInputs, conditions: Sequence[str], tables: dict[str, pa.Table]
) -> list[str]:
    """Each section of the study's report in the registry's order: its tables added to
    `tables`, its Markdown (where it has any) returned in order."""
    sections = []
    for entry in report_sections.applying(conditions):
        module = importlib.import_module(report_sections.module_name(entry))
        produced = module.compute(inputs)
        declared = [t.name for t in entry.tables]
        if sorted(produced) != sorted(declared):
            raise MemshiftError(
                f"report section {entry.name} computed {sorted(produced)}, but its entry in "
                f"report/sections.py declares {declared}"
            )
        tables.update(produced)
        text = module.render({n: t.to_pylist() for n, t in produced.items()}, inputs)
        if text:
            sections.append(text)
        _progress(f"{entry.name}: {', '.join(produced)}")
    return sections


def _diagnostic_rows(
    con: duckdb.DuckDBPyConnection,
    systems: Sequence[str],
    resampling: Resampling,
    switch_report: SwitchReport | None,
    leaving: Sequence[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The diagnostic tests: the utility floor (and on the items other than the definition
    items), the cost ceiling, the writer switch's retention (or why not), the leaving test of
    each imported memory."""
    retention = (
        switch_report.diagnostics
        if switch_report is not None
        else [
            diagnostics.not_applicable(
                "retention", diagnostics.RETENTION_FLOOR, "the study has no writer switch"
            )
        ]
    )
    return [
        *diagnostics.utility_floor(con, systems, resampling),
        *diagnostics.utility_floor(con, systems, resampling, without_definitions=True),
        *diagnostics.cost_ceiling(con, resampling),
        *retention,
        *leaving,
    ]


def _measured(
    con: duckdb.DuckDBPyConnection, worlds: Sequence[int], systems: Sequence[str],
    resampling: Resampling,
) -> tuple[pa.Table, pa.Table, int]:  # fmt: skip
    """The measures (checked against Update = (1-m)r + ma) and the contrasts: (measures,
    contrasts, the groups the identity was checked on)."""
    [(floors,)] = con.execute("SELECT count(DISTINCT system) FROM floor_scores").fetchall()
    _progress(
        f"{len(worlds)} worlds, {len(systems)} systems and {floors} floors; bootstrap with "
        f"{resampling.draws} draws"
    )
    if len(worlds) < MIN_WORLDS:
        _progress(f"fewer than {MIN_WORLDS} worlds: estimates only, no intervals or p-values")
    measures.compute(con, resampling)
    measure_table = measures.measures_table(con)
    checked = measures.check_identity(measure_table.to_pylist())
    _progress(f"measures done; Update = (1-m)r + ma verified on {checked} groups")
    contrast_table = contrasts.compute(con, contrasts.declare(systems), resampling)
    _progress(f"{contrast_table.num_rows} contrast rows")
    return measure_table, contrast_table, checked


def _write_text(text: str, out: Path, failures: Sequence[dict[str, Any]]) -> Path:
    """report.md and report.html; says which systems are not measured, if any."""
    report = layout.report_page(out, "md")
    write_text(text, report)
    write_text(standalone(text, out), layout.report_page(out, "html"))
    _progress(f"wrote {report} and {report.with_suffix('.html')}")
    unreliable = verdict_line(failures)
    if unreliable is not None:
        _progress(unreliable)
    return report


def run(
    scores: Path,
    logs: Sequence[Path],
    worlds_dir: Path,
    out: Path,
    llm: str,
    profiles: Mapping[str, Profile],
    study: str,
    resampling: Resampling,
    switch_scores: Path | None = None,
    switch_pools: Mapping[str, Sequence[str]] | None = None,
    bundles: Sequence[Path] = (),
    sync_scores: Sequence[Path] = (),
    processes: int = 1,
    sample: ProbeSample | None = None,
    max_failure_share: float = MAX_FAILURE_SHARE,
    plan: Path | None = None,
) -> Path:
    """The report of a run of profile `llm` whose roles used `profiles` (role -> profile);
    `sample`: the slice of the worlds the study asked (`probes.sample`), None for all of them;
    a system more of whose calls failed than `max_failure_share` is reported not measured;
    `plan`: what `memshift plan` priced the run at, set beside what it spent.

    With two `processes`, a second one runs the trap suite and draws the figures while this one
    computes the tables (the same files either way)."""
    with _Beside(processes > 1) as beside:
        worlds = _worlds_scored(scores)
        traps_of_worlds = beside.start(trap_table, worlds)
        con = open_study(scores, logs)
        systems = [
            s for (s,) in con.execute("SELECT DISTINCT system FROM scores ORDER BY 1").fetchall()
        ]
        measure_table, contrast_table, checked = _measured(con, worlds, systems, resampling)
        label = roles_label(llm, profiles)
        by_checkpoint = measures.by_checkpoint_table(con)
        figures = layout.report_figures(out)
        figures_drawn = beside.start(
            write_figures, measure_table, contrast_table, figures, label, by_checkpoint
        )
        _load_world_tables(con, worlds_dir, sample)
        switch_report = None
        if switch_scores is not None:
            _progress("writer switch")
            switch_report = writer_switch(switch_scores, resampling, switch_pools or {})
        load_answer_audits(con, log_sources(logs).answer_audits)
        load_detection_audits(con, log_sources(logs).maintenance, worlds_dir)
        exported = export.pairs(systems)
        leaving = leaving_rows(con, exported, resampling)
        tables: dict[str, pa.Table] = {
            "measures": measure_table,
            "measures_by_checkpoint": by_checkpoint,
            "contrasts": contrast_table,
            "diagnostics": diagnostics.table(
                _diagnostic_rows(con, systems, resampling, switch_report, leaving)
            ),
            "calls": call_costs(con),
            "failures": failures_table(counted(con), max_failure_share),
        }
        conditions = study_conditions(bool(sync_scores), switch_report is not None,
                                      bool(exported or bundles))  # fmt: skip
        inputs = ReportInputs(
            con, resampling, systems, worlds_dir, sample, log_sources(logs),
            tables["calls"].to_pylist(),
            [] if plan is None else read_table(plan, PLAN).to_pylist(),
            sync_scores, bundles, exported, leaving, traps_of_worlds, switch_report,
            unmeasured_on(tables["failures"].to_pylist()),
        )  # fmt: skip
        sections = run_sections(inputs, conditions, tables)
        for name, schema in table_schemas(conditions).items():
            write_table(tables[name], schema, layout.report_table(out, name))
        figures_drawn()
        if switch_report is not None:
            switch_text.write_figure(switch_report.predicted, figures, label)
        header = Header(
            study, vocabulary.run_name(llm, {role: p.name for role, p in profiles.items()}),
            label, worlds, resampling.draws, resampling.seed, resampling.interval,
            None if sample is None else sample.describe(),
        )  # fmt: skip
        return _write_pages(header, tables, checked, sections, out)


def _write_pages(
    header: Header, tables: Mapping[str, pa.Table], checked: int, sections: Sequence[str], out: Path
) -> Path:
    """report.md (and report.html) from the report's tables and its sections' text."""
    rows = {name: table.to_pylist() for name, table in tables.items()}
    text = render(
        header, rows["measures"], rows["contrasts"], rows["diagnostics"], checked,
        rows["calls"], sections, rows["failures"],
    )  # fmt: skip
    return _write_text(text, out, rows["failures"])


def run_job(job: ReportJob, threads: int = 1) -> None:
    """A run's report (`ReportJob`), on one process or two."""
    profiles = {role: job.access.profile(role) for role in job.access.roles}
    path = run(
        job.scores, job.logs, job.worlds, job.out, job.llm, profiles, job.study,
        Resampling(draws=job.draws, seed=job.seed), job.switch_scores, job.switch_pools,
        job.bundles, job.sync_scores, min(max(threads, 1), 2), job.sample,
        job.max_failure_share, job.plan,
    )  # fmt: skip
    print(f"report -> {path}", file=sys.stderr)
