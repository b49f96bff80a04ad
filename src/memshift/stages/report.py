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

import multiprocessing
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from memshift import layout, schemas, vocabulary
from memshift.analysis import (
    citation_misses,
    contrasts,
    diagnostics,
    export,
    keys,
    measures,
    recovery,
    switch,
    unnamed,
    unshifted,
)
from memshift.analysis.audit_metrics import (
    audit_metrics_table,
    load_answer_audits,
    load_detection_audits,
)
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.cost_model import costs_table
from memshift.analysis.costs import call_costs
from memshift.analysis.failure_modes import failure_modes_table
from memshift.analysis.failures import MAX_FAILURE_SHARE, counted, failures_table, verdict_line
from memshift.analysis.frame import log_sources, open_study
from memshift.analysis.inference import inferred_table
from memshift.analysis.plan import PLAN
from memshift.analysis.sqlfiles import path_list
from memshift.analysis.sync import sync_table
from memshift.artifacts import ArtifactError, read_table, write_table, write_text
from memshift.audit.trap_suite import run_suite
from memshift.models.profiles import Profile
from memshift.models.redaction import shown_url
from memshift.probe_sample import ProbeSample, sample_world
from memshift.report import audit_metrics as audit_text
from memshift.report import citation_misses as misses_text
from memshift.report import costs as costs_text
from memshift.report import export as export_text
from memshift.report import failure_modes as failure_text
from memshift.report import inference as inference_text
from memshift.report import keys as keys_text
from memshift.report import recovery as recovery_text
from memshift.report import switch as switch_text
from memshift.report import sync as sync_text
from memshift.report import unnamed as unnamed_text
from memshift.report import unshifted as unshifted_text
from memshift.report.figures import write_figures
from memshift.report.html import standalone
from memshift.report.markdown import Header, render
from memshift.world.stored import load

TABLES = {
    "measures": schemas.MEASURES,
    "measures_by_checkpoint": schemas.MEASURES_BY_CHECKPOINT,
    "contrasts": schemas.CONTRASTS,
    "diagnostics": schemas.DIAGNOSTICS,
    "calls": schemas.CALL_COSTS,
    "failures": schemas.FAILURES,
    "costs": schemas.COSTS,
    "key_audit": schemas.KEY_AUDIT,
    "recovery": schemas.RECOVERY,
    "unshifted": schemas.UNSHIFTED,
    "unnamed": schemas.UNNAMED,
    "failure_modes": schemas.FAILURE_MODES,
    "inferred": schemas.INFERRED,
    "sync": schemas.SYNC,
    "citation_misses": schemas.CITATION_MISSES,
    "forced": schemas.FORCED,
    "audit_metrics": schemas.AUDIT_METRICS,
    "traps": schemas.TRAPS,
    # with an export
    "export": schemas.EXPORT,
    "bundles": schemas.BUNDLES,
    # with a writer switch
    "retention": schemas.RETENTION,
    "switch_survival": schemas.SWITCH_SURVIVAL,
    "switch_prediction": schemas.SWITCH_PREDICTION,
}


@dataclass(frozen=True)
class SwitchReport:
    predicted: switch.Rows  # the D=0, B=1 items the predictors are judged on
    tables: dict[str, pa.Table]
    diagnostics: list[dict[str, Any]]
    text: str


def writer_switch(
    path: Path, resampling: Resampling, pools: Mapping[str, Sequence[str]]
) -> SwitchReport:
    """The writer switch's tables, diagnostics rows and section (analysis/switch.py); `pools`
    names groups of switches whose items are also pooled."""
    scores = read_table(path, schemas.SWITCH_SCORES)
    _progress(f"writer switch: {scores.num_rows} switched items")
    con = switch.open_switches(scores, resampling)
    predicted = switch.prediction_rows(scores)
    tables = {
        "retention": switch.retention(con, resampling),
        "switch_survival": switch.survival(con, resampling),
        "switch_prediction": switch.prediction(predicted, resampling, pools),
    }
    text = switch_text.section(
        tables["retention"].to_pylist(),
        tables["switch_survival"].to_pylist(),
        tables["switch_prediction"].to_pylist(),
        switch.failures_by_class(predicted),
        switch.accuracy_over_agreement(predicted, resampling),
    )
    return SwitchReport(predicted, tables, switch.diagnostics_rows(tables["retention"]), text)


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
        label = roles_label(llm, profiles)
        by_checkpoint = measures.by_checkpoint_table(con)
        figures_drawn = beside.start(
            write_figures,
            measure_table,
            contrast_table,
            layout.report_figures(out),
            label,
            by_checkpoint,
        )
        _load_world_tables(con, worlds_dir, sample)
        misses, forced = citation_misses.report_tables(
            con, resampling, worlds_dir, log_sources(logs).maintenance
        )
        switch_report = (
            None
            if switch_scores is None
            else writer_switch(switch_scores, resampling, switch_pools or {})
        )
        load_answer_audits(con, log_sources(logs).answer_audits)
        load_detection_audits(con, log_sources(logs).maintenance, worlds_dir)
        metrics = audit_metrics_table(con, resampling)
        traps = traps_of_worlds() if metrics.num_rows else schemas.TRAPS.empty_table()
        _progress(f"audit metrics: {metrics.num_rows} rows; trap suite on {len(worlds)} worlds")
        exported = export.pairs(systems)
        leaving = leaving_rows(con, exported, resampling)
        rows = [
            *diagnostics.utility_floor(con, systems, resampling),
            *diagnostics.cost_ceiling(con, resampling),
            *(
                switch_report.diagnostics
                if switch_report is not None
                else [
                    diagnostics.not_applicable(
                        "retention", diagnostics.RETENTION_FLOOR, "the study has no writer switch"
                    )
                ]
            ),
            *leaving,
        ]
        tables: dict[str, pa.Table] = {
            "measures": measure_table,
            "measures_by_checkpoint": by_checkpoint,
            "contrasts": contrast_table,
            "diagnostics": diagnostics.table(rows),
            "calls": call_costs(con),
            "failures": failures_table(counted(con), max_failure_share),
            "costs": costs_table(con, resampling),
            "key_audit": keys.key_audit(con),
            "recovery": recovery.recovery_table(con, systems, resampling),
            "unshifted": unshifted.unshifted_table(con, resampling, sampled=sample is not None),
            "unnamed": unnamed.unnamed_table(con, resampling),
            "failure_modes": failure_modes_table(con, resampling),
            "inferred": inferred_table(con, resampling),
            "citation_misses": misses,
            "forced": forced,
            "audit_metrics": metrics,
            "traps": traps,
        }
        if switch_report is not None:
            tables.update(switch_report.tables)
        if sync_scores:
            tables["sync"] = sync_table(con, sync_scores, resampling)
            _progress(f"sync: {len(sync_scores)} worlds")
        sections = [
            text
            for text in (
                keys_text.section(tables["key_audit"].to_pylist()),
                recovery_text.section(tables["recovery"].to_pylist()),
                unshifted_text.section(tables["unshifted"].to_pylist()),
                unnamed_text.section(tables["unnamed"].to_pylist()),
                failure_text.section(tables["failure_modes"].to_pylist()),
                inference_text.section(tables["inferred"].to_pylist()),
                sync_text.section(tables["sync"].to_pylist()) if "sync" in tables else "",
                misses_text.section(misses.to_pylist(), forced.to_pylist()),
                audit_text.section(metrics.to_pylist(), traps.to_pylist()),
                costs_text.section(
                    tables["costs"].to_pylist(),
                    layout.history_of_worlds(worlds_dir),
                    tables["calls"].to_pylist(),
                    [] if plan is None else read_table(plan, PLAN).to_pylist(),
                ),
            )
            if text
        ]
        if switch_report is not None:
            sections.append(switch_report.text)
        if exported or bundles:
            tables["export"] = export.export_table(con, exported, resampling)
            tables["bundles"] = export.bundles_table(bundles)
            _progress(f"export: {len(exported)} imported memories, {len(bundles)} bundles")
            sections.append(
                export_text.section(
                    tables["export"].to_pylist(),
                    [r for r in leaving if r["system"]],
                    tables["bundles"].to_pylist(),
                )
            )
        for name, table in tables.items():
            write_table(table, TABLES[name], layout.report_table(out, name))
        figures_drawn()
        if switch_report is not None:
            switch_text.write_figure(switch_report.predicted, layout.report_figures(out), label)
        run_name = vocabulary.run_name(llm, {role: p.name for role, p in profiles.items()})
        header = Header(
            study,
            run_name,
            label,
            worlds,
            resampling.draws,
            resampling.seed,
            resampling.interval,
            None if sample is None else sample.describe(),
        )
        text = render(
            header,
            measure_table.to_pylist(),
            contrast_table.to_pylist(),
            tables["diagnostics"].to_pylist(),
            checked,
            tables["calls"].to_pylist(),
            sections,
            tables["failures"].to_pylist(),
        )
        report = layout.report_page(out, "md")
        write_text(text, report)
        write_text(standalone(text, out), layout.report_page(out, "html"))
        _progress(f"wrote {report} and {report.with_suffix('.html')}")
        unreliable = verdict_line(tables["failures"].to_pylist())
        if unreliable is not None:
            _progress(unreliable)
        return report
