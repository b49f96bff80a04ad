"""The report's sections, in the order report.md shows them, each with the tables it writes.

A section is a module of `memshift.report` (or a side study's report, `studies.*.report`) with
two functions: `compute(inputs)`, the section's tables from the run (`report.inputs.ReportInputs`),
and `render(rows, inputs)`, its Markdown from those tables' rows ("" leaves it out). An entry here
names the module, its tables (the name under report/tables/, the name of its schema in the section's
module or in `memshift.schemas`, the label the Snakemake report gives it) and the condition under
which the section appears. The report stage runs the sections in this order, `rules/report.smk`
declares their tables as the report job's outputs and Snakemake's report entries, and the report
job's code fingerprint holds their modules. Adding a section is one module and one entry.

This module imports nothing heavy: the Snakefile reads it for every study.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

# when a section appears: always, or when the study has a sync study, a writer switch or an
# export
ALWAYS = "always"
SYNC = "sync"
SWITCH = "switch"
EXPORT = "export"
CONDITIONS = (ALWAYS, SYNC, SWITCH, EXPORT)


@dataclass(frozen=True)
class Table:
    name: str  # report/tables/<name>.parquet
    schema: str  # its schema's name: in the section's module, else in memshift.schemas
    label: str  # what the Snakemake report calls it


@dataclass(frozen=True)
class Section:
    # memshift.report.<module>, or memshift.<module> for a side study's report (studies.*.report),
    # with compute(inputs) and render(rows, inputs)
    module: str
    tables: tuple[Table, ...]
    when: str = ALWAYS

    @property
    def name(self) -> str:
        """What the report's progress calls it: the module, or the side study it reports."""
        return self.module.split(".")[-2] if "." in self.module else self.module


# The report's body (report.md's Update and Stability, contrasts, diagnostics, calls and
# failures), computed by the report stage itself and rendered by `report.markdown.render`.
BODY = (
    Table("measures", "MEASURES", "Measures"),
    Table("measures_by_checkpoint", "MEASURES_BY_CHECKPOINT", "Measures by checkpoint"),
    Table("contrasts", "CONTRASTS", "Contrasts"),
    Table("diagnostics", "DIAGNOSTICS", "Diagnostic tests"),
    Table("calls", "CALL_COSTS", "Model calls"),
    Table("failures", "FAILURES", "Failures: the calls each system's answers depend on"),
)

SECTIONS = (
    Section("keys", (Table("key_audit", "KEY_AUDIT", "Key audit"),)),
    Section("recovery", (Table("recovery", "RECOVERY", "Keys against refresh and upsert"),)),
    Section("unshifted", (Table("unshifted", "UNSHIFTED", "Without the shift"),)),
    Section("unnamed", (Table("unnamed", "UNNAMED", "Unnamed probes"),)),
    Section(
        "failure_modes",
        (
            Table(
                "failure_modes",
                "FAILURE_MODES",
                "Failure modes: conflicts, consent, unstated redefinition",
            ),
        ),
    ),
    Section("inference", (Table("inferred", "INFERRED", "Settings inferred from behaviour"),)),
    Section(
        "native_costs",
        (Table("native_costs", "NATIVE_COSTS", "What the native systems spend per event"),),
    ),
    Section("rankings", (Table("rankings", "RANKINGS", "Rankings across shifts"),)),
    Section(
        "versus_baselines",
        (Table("versus_baselines", "VERSUS_BASELINES", "Against the no-store baselines"),),
    ),
    Section("studies.sync.report", (Table("sync", "SYNC", "Sync contracts"),), SYNC),
    Section(
        "citation_misses",
        (
            Table("citation_misses", "CITATION_MISSES", "What the citation key missed"),
            Table("forced", "FORCED", "A forced re-derivation of the missed item-times"),
        ),
    ),
    Section(
        "audit_metrics",
        (
            Table("audit_metrics", "AUDIT_METRICS", "The audit's own metrics"),
            Table("traps", "TRAPS", "Traps: the gate and the semantic check"),
        ),
    ),
    Section("costs", (Table("costs", "COSTS", "What each answer costs"),)),
    Section("typed_inputs", (Table("typed_inputs", "TYPED_INPUTS", "A program's typed input"),)),
    Section(
        "studies.switch.report",
        (
            Table("retention", "RETENTION", "Writer switch: retention"),
            Table("switch_survival", "SWITCH_SURVIVAL", "Writer switch: survival by repair arm"),
            Table(
                "switch_prediction", "SWITCH_PREDICTION", "Writer switch: what predicts survival"
            ),
        ),
        SWITCH,
    ),
    Section(
        "studies.export.report",
        (
            Table("export", "EXPORT", "Export: imported memories beside their cells"),
            Table("bundles", "BUNDLES", "Export: the bundles"),
        ),
        EXPORT,
    ),
)


def applying(conditions: Collection[str]) -> tuple[Section, ...]:
    """The sections a study has, given the conditions it meets (ALWAYS is always met)."""
    unknown = set(conditions) - set(CONDITIONS)
    if unknown:
        raise ValueError(f"unknown report conditions {sorted(unknown)}; known: {CONDITIONS}")
    met = {ALWAYS, *conditions}
    return tuple(s for s in SECTIONS if s.when in met)


def tables(conditions: Collection[str]) -> tuple[Table, ...]:
    """Every table the report of such a study writes: the body's, then its sections'."""
    return (*BODY, *(t for s in applying(conditions) for t in s.tables))


def module_name(section: Section) -> str:
    """A section's module: a name in `memshift.report`, or a side study's report (`studies.*`)."""
    dotted = section.module if "." in section.module else f"report.{section.module}"
    return f"memshift.{dotted}"
