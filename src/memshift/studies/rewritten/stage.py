"""Stage `rewritten-report`: one study on its template worlds and on the same worlds with their
message bodies rewritten (MemShift App. B, F.8), paired by probe: the paper's five contrasts on
each and their paired difference (rewritten − template), with world-bootstrap intervals, and
what the rewrite did (outcomes, the share of the text it rewrote).

Both runs ask the same probes (the rewrite copies gold and probes byte for byte), so each
rewritten answer pairs with the template answer of its probe id. The rewritten run's systems
enter the analysis as `<system>@rw`, its logs under the same names.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from memshift import layout, schemas
from memshift.analysis.bootstrap import Resampling, register_weights
from memshift.analysis.contrasts import CONTRAST_MEASURES, Contrast, paired
from memshift.analysis.frame import open_study
from memshift.artifacts import ArtifactError, read_table, write_table, write_text
from memshift.config import study_layout
from memshift.studies.horizons.stage import run_logs
from memshift.studies.rewritten import report as text
from memshift.vocabulary import cell_system, detection_system

RW = "@rw"
KEY, NO_KEY, NO_STORE = "source", "append", "bm25"
CONDITIONS = ("template", "rewritten", "difference")


def _cells(r: str) -> tuple[str, str]:
    return cell_system(KEY, r), cell_system(NO_KEY, r)


# (name, measure of CONTRAST_MEASURES, branch, terms, scale): MemShift Table 4b's five
FIVE: tuple[tuple[str, str, str, tuple[tuple[str, int], ...], float], ...] = (
    (
        "B effect after a source revision, mean over D",
        "update",
        "src",
        ((_cells("0")[0], 1), (_cells("0")[1], -1), (_cells("1")[0], 1), (_cells("1")[1], -1)),
        0.5,
    ),
    (
        "D effect on re-derived accuracy",
        "rederived_accuracy",
        "src",
        ((_cells("1")[0], 1), (_cells("0")[0], -1)),
        1.0,
    ),
    (
        "B×D after a redefinition",
        "update",
        "def",
        ((_cells("1")[0], 1), (_cells("1")[1], -1), (_cells("0")[0], -1), (_cells("0")[1], 1)),
        1.0,
    ),
    (
        "B×D after a deletion",
        "update",
        "del",
        ((_cells("1")[0], 1), (_cells("1")[1], -1), (_cells("0")[0], -1), (_cells("0")[1], 1)),
        1.0,
    ),
    (
        "BM25 − HoldMem(1, source) after a redefinition",
        "update",
        "def",
        ((NO_STORE, 1), (_cells("1")[0], -1)),
        1.0,
    ),
)


def _progress(message: str) -> None:
    print(f"rewritten: {message}", file=sys.stderr, flush=True)


def _scores(run: Path) -> pa.Table:
    path = layout.run_scores(run)
    if not path.exists():
        raise ArtifactError(f"missing {path}: run the study on these worlds first")
    return read_table(path, schemas.SCORES)


def paired_inputs(template: Path, rewritten: Path, out: Path) -> tuple[Path, list[Path]]:
    """One scores table with the rewritten run's systems renamed `<system>@rw`, and the logs of
    both runs (the rewritten run's maintenance logs linked under the renamed detections)."""
    first, second = _scores(template), _scores(rewritten)
    renamed = second.set_column(
        second.schema.get_field_index("system"),
        "system",
        pc.binary_join_element_wise(second.column("system"), pa.scalar(RW), ""),
    )
    ids = set(first.column("probe_id").to_pylist())
    missing = set(second.column("probe_id").to_pylist()) ^ ids
    if missing:
        raise ArtifactError(
            f"{len(missing)} probes are not in both runs (e.g. {sorted(missing)[0]}): the "
            "rewritten worlds must keep the template's probes"
        )
    scores = layout.run_scores(out)
    write_table(pa.concat_tables([first, renamed]), schemas.SCORES, scores)
    logs = [p for p in run_logs(template) if _maintenance(p) is not None]
    for path in run_logs(rewritten):
        log = _maintenance(path)
        if log is None:
            continue
        system = f"{detection_system(log.name)}{RW}"
        folder = layout.world_in(layout.run_logs(out), log.world)
        link = layout.detection_dir(folder, log.branch, system) / path.name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(path.resolve())
        logs.append(link)
    return scores, logs


def five_contrasts(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> list[dict[str, Any]]:
    systems = {s for (s,) in con.execute("SELECT DISTINCT system FROM scores").fetchall()}
    rows = []
    for name, measure, branch, terms, scale in FIVE:
        if not all(s in systems and s + RW in systems for s, _ in terms):
            continue
        population, value = CONTRAST_MEASURES[measure]
        by_condition = {
            "template": terms,
            "rewritten": tuple((s + RW, sign) for s, sign in terms),
            "difference": (
                *((s + RW, sign) for s, sign in terms),
                *((s, -sign) for s, sign in terms),
            ),
        }
        found = paired(
            con,
            [Contrast(name, KEY, c, t) for c, t in by_condition.items()],
            resampling,
            population,
            value,
        )
        for r in found:
            if r["branch"] != branch or r["item_class"] != "all":
                continue
            scaled = {
                k: None if r[k] is None else r[k] * scale for k in ("estimate", "low", "high")
            }
            rows.append(
                {
                    "contrast": name,
                    "condition": CONDITIONS[r["contrast_id"]],
                    "branch": branch,
                    **scaled,
                    "n": r["n"],
                    "worlds": r["worlds"],
                }
            )
    return rows


def rewrite_summary(worlds: Path, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """The rewrite logs of the rewritten worlds, summed."""
    paths = [layout.rewrite_log(layout.world_in(worlds, s)) for s in seeds]
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise ArtifactError(f"missing {missing[0]}: the worlds were not rewritten")
    listed = ", ".join(f"'{p.as_posix()}'" for p in paths)
    return [
        dict(zip(("outcome", "bodies", "chars_before", "changed"), row, strict=True))
        for row in duckdb.sql(
            f"SELECT outcome, count(*), sum(chars_before), count(*) FILTER (changed) "
            f"FROM read_parquet([{listed}]) GROUP BY outcome ORDER BY outcome"
        ).fetchall()
    ]


def run(
    template: Path,
    rewritten: Path,
    rewritten_worlds: Path,
    out: Path,
    resampling: Resampling,
    study: str,
) -> Path:
    _progress(f"template {template}; rewritten {rewritten}")
    scores, logs = paired_inputs(template, rewritten, out)
    con = open_study(scores, logs)
    worlds = [w for (w,) in con.execute("SELECT DISTINCT world FROM scores ORDER BY 1").fetchall()]
    register_weights(con, worlds, [], resampling)
    table = pa.Table.from_pylist(five_contrasts(con, resampling), schema=schemas.REWRITTEN)
    write_table(table, schemas.REWRITTEN, layout.report_table(out, "rewritten"))
    report = layout.report_page(out, "md")
    write_text(
        text.render(
            study, table.to_pylist(), rewrite_summary(rewritten_worlds, worlds), resampling
        ),
        report,
    )
    _progress(f"wrote {report}")
    return report


def _maintenance(path: Path) -> layout.RunLog | None:
    """`path` as a detection's maintenance log, None if it is another file."""
    log = layout.run_log(path)
    return log if log is not None and log.kind == layout.MAINTENANCE else None


def of_study(study: Mapping[str, Any]) -> Path:
    """Rewritten worlds against their templates, from a checked study's two finished runs, in
    <results>/runs/<study>/rewritten/<run>/."""
    template, rewritten = study_layout(study, rewriter=None), study_layout(study)
    return run(
        template.runs,
        rewritten.runs,
        rewritten.worlds,
        template.runs_report("rewritten"),
        Resampling.of_report(study["report"]),
        study["study"],
    )
