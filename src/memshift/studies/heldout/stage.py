"""Stage `heldout-report`: the study run once per held-out definition set, pooled (MemShift F.2,
App. B): only the held-out definitions' items count, and every interval resamples worlds and
definitions both (a product bootstrap: item_times.unit is the item for a held-out definition).

Reads each set's finished run (scores and logs); writes <out>/scores.parquet (the pooled
held-out items), <out>/tables/{contrasts,measures,heldout,typed_inputs}.parquet and
<out>/report.md; the typed inputs are pooled from each set's report.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from memshift import layout, schemas
from memshift.analysis import contrasts, measures, typed_inputs
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.frame import open_study
from memshift.artifacts import ArtifactError, read_table, write_table, write_text
from memshift.config import study_layout
from memshift.definitions.catalog import definition
from memshift.studies.heldout import report as text
from memshift.studies.horizons.stage import run_logs

HELDOUT_PREFIX = "def.h"
# the cells of a B×D at D=r, with their signs: keyed and append-only at D=r and D=0
QUAD = (("{key}", "{r}", 1), ("append", "{r}", -1), ("{key}", "0", -1), ("append", "0", 1))


def _progress(message: str) -> None:
    print(f"heldout: {message}", file=sys.stderr, flush=True)


def pooled_scores(runs: Mapping[str, Path], out: Path) -> tuple[Path, dict[str, str]]:
    """The scores of every set's run on its held-out definition items, in one table, and the
    set of each item."""
    tables, sets = [], {}
    for name, run in runs.items():
        path = layout.run_scores(run)
        if not path.exists():
            raise ArtifactError(f"missing {path}: run the study with definition set {name} first")
        scores = read_table(path, schemas.SCORES)
        held = scores.filter(pc.starts_with(scores.column("item_id"), HELDOUT_PREFIX))
        sets.update(dict.fromkeys(held.column("item_id").to_pylist(), name))
        tables.append(held)
    pooled = pa.concat_tables(tables)
    if pooled.num_rows == 0:
        raise ArtifactError("the runs hold no held-out definition item: were they run with sets?")
    target = layout.run_scores(out)
    write_table(pooled, schemas.SCORES, target)
    return target, sets


def per_definition(con: duckdb.DuckDBPyConnection, sets: Mapping[str, str]) -> pa.Table:
    """B×D at each D of the study, per definition and branch, over its changed item-times."""
    cells = con.execute(
        "SELECT DISTINCT repair, detection FROM item_times WHERE repair <> ''"
    ).fetchall()
    repairs = sorted({r for r, _ in cells if r != "0"})
    keys = sorted({d for _, d in cells if d != "append"})
    rows = []
    for key in keys:
        for r in repairs:
            terms = [(d.format(key=key), rr.format(r=r), sign) for d, rr, sign in QUAD]
            if not all((rr, d) in cells for d, rr, _ in terms):
                continue
            sign_of = " ".join(
                f"WHEN detection = '{d}' AND repair = '{rr}' THEN {sign}" for d, rr, sign in terms
            )
            found = con.execute(
                f"""
                SELECT item_id, branch, sum(CASE {sign_of} ELSE 0 END * correct::INTEGER)::DOUBLE
                    / count(DISTINCT (world, checkpoint)) AS estimate,
                    count(DISTINCT (world, checkpoint)) AS n
                FROM item_times
                WHERE changed AND branch <> 'none' AND ({
                    " OR ".join(f"(detection = '{d}' AND repair = '{rr}')" for d, rr, _ in terms)
                })
                GROUP BY item_id, branch
                HAVING count(*) = 4 * count(DISTINCT (world, checkpoint))
                ORDER BY item_id, branch
                """
            ).fetchall()
            for item_id, branch, estimate, n in found:
                rows.append(
                    {
                        "definition_set": sets[item_id],
                        "item_id": item_id,
                        "definition": definition(item_id, 1).name,
                        "branch": branch,
                        "setting": f"{key}, D={r}",
                        "estimate": estimate,
                        "n": n,
                    }
                )
    return pa.Table.from_pylist(rows, schema=schemas.HELDOUT)


def pooled_typed_inputs(runs: Mapping[str, Path]) -> pa.Table:
    """Each set's typed inputs (its run's report table) as one table: the held-out definitions'
    rows and their pooled row."""
    found = []
    for name, run in runs.items():
        path = layout.report_table(layout.run_report(run), "typed_inputs")
        if not path.exists():
            raise ArtifactError(f"missing {path}: write the report of set {name}'s run first")
        table = read_table(path, schemas.TYPED_INPUTS)
        found.append(table.filter(pc.starts_with(table.column("item_id"), HELDOUT_PREFIX)))
    return typed_inputs.pooled(found)


def run(runs: Mapping[str, Path], out: Path, resampling: Resampling, study: str) -> Path:
    """`runs`: definition set -> its run directory (layout.run_dir)."""
    if not runs:
        raise ArtifactError("no definition set to report")
    for name, run in runs.items():
        _progress(f"{name}: {run}")
    scores, sets = pooled_scores(runs, out)
    logs = [log for run in runs.values() for log in run_logs(run)]
    con = open_study(scores, logs)
    measures.compute(con, resampling)
    systems = [s for (s,) in con.execute("SELECT DISTINCT system FROM scores").fetchall()]
    contrast_table = contrasts.compute(con, contrasts.declare(systems), resampling)
    tables = {
        "contrasts": (contrast_table, schemas.CONTRASTS),
        "measures": (measures.measures_table(con), schemas.MEASURES),
        "heldout": (per_definition(con, sets), schemas.HELDOUT),
        "typed_inputs": (pooled_typed_inputs(runs), schemas.TYPED_INPUTS),
    }
    for name, (table, schema) in tables.items():
        write_table(table, schema, layout.report_table(out, name))
    report = layout.report_page(out, "md")
    write_text(
        text.render(
            study,
            list(runs),
            contrast_table.to_pylist(),
            tables["heldout"][0].to_pylist(),
            resampling,
            tables["typed_inputs"][0].to_pylist(),
        ),
        report,
    )
    _progress(f"wrote {report}")
    return report


def of_study(study: Mapping[str, Any]) -> Path:
    """The pooled report of a checked study already run with each of its `definition_sets`, in
    <results>/runs/<study>/heldout/<run>/ (`heldout-rw-<rewriter>` on rewritten worlds)."""
    return run(
        {s: study_layout(study, definitions=s).runs for s in study["definition_sets"]},
        study_layout(study, definitions=layout.FIXED).runs_report("heldout"),
        Resampling.of_report(study["report"]),
        study["study"],
    )
