"""What the report's sections compute their tables from (`report.sections`): the run's
analysis database and what the report stage read or computed before them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import Logs
from memshift.probes.sample import ProbeSample

if TYPE_CHECKING:
    from memshift.studies.switch.report import SwitchReport

Row = Mapping[str, Any]


@dataclass(frozen=True)
class ReportInputs:
    con: duckdb.DuckDBPyConnection  # the run's scores, logs and world tables (`frame`)
    resampling: Resampling
    systems: Sequence[str]  # every system scored
    worlds_dir: Path
    sample: ProbeSample | None  # the study's slice of the worlds, if it asked one
    logs: Logs
    calls: Sequence[Row]  # the body's model-call table, as rows
    plan: Sequence[Row]  # what `memshift plan` priced the run at ([] when not asked)
    sync_scores: Sequence[Path]
    bundles: Sequence[Path]
    exported: Sequence[tuple[str, str]]  # (cell, its imported memory)
    leaving: Sequence[Row]  # the leaving test of each imported memory (diagnostics rows)
    traps: Callable[[], pa.Table]  # the trap suite's table, computed beside the report
    switch: SwitchReport | None  # without a writer switch, None
    # (system, branch) where too many of the system's calls failed (`analysis.failures`): a
    # section comparing systems leaves them out there, as the Update table does
    unmeasured: frozenset[tuple[str, str]]
