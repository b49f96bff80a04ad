"""The interaction without the shift (MemShift Table 21b): each shift's changed item-times that
the shift caused, answered by the same cells on the unshifted branch, where the shift never
happened. B×D at D=1 on both branches, their paired difference (shifted - unshifted) and the
share of these item-times that also changed without the shift, with world-bootstrap
intervals."""

from __future__ import annotations

from collections.abc import Collection

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import run
from memshift.errors import MemshiftError
from memshift.vocabulary import UNSHIFTED, cell_parts, cell_system

NO_KEY = "append"
QUANTITIES = ("shifted", "unshifted", "difference", "moved")


def paired_keys(census: Collection[str]) -> list[str]:
    """The keyed detections whose cells at D=0 and D=1, and the append-only cells, all answered
    every unshifted item-time (`census`: systems.unshifted_all_items)."""
    keys = {parts[1] for s in census if (parts := cell_parts(s)) is not None}
    return sorted(
        key
        for key in keys - {NO_KEY}
        if all(cell_system(d, r) in census for d in (key, NO_KEY) for r in ("0", "1"))
    )


def census_systems(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The systems that answered unshifted item-times beyond those the measures count."""
    found = con.execute(
        f"""
        SELECT DISTINCT system FROM item_times
        WHERE branch = '{UNSHIFTED}'
            AND NOT (changed OR unchanged OR before_shift OR premise)
        ORDER BY system
        """
    ).fetchall()
    return [system for (system,) in found]


def unshifted_table(
    con: duckdb.DuckDBPyConnection, resampling: Resampling, *, sampled: bool = False
) -> pa.Table:
    """The UNSHIFTED table (empty unless a key's four cells answered every unshifted
    item-time). Needs item_times and the weight tables; refuses a shift-caused item-time the
    unshifted branch's answers do not cover, unless the study asked a sample (`sampled`): each
    branch draws its own item-times, so the pairs are those both branches asked."""
    keys = paired_keys(census_systems(con))
    con.execute("CREATE OR REPLACE TABLE unshifted_keys (key VARCHAR)")
    if not keys:
        return schemas.UNSHIFTED.empty_table()
    con.executemany("INSERT INTO unshifted_keys VALUES (?)", [(k,) for k in keys])
    run(
        con,
        "unshifted_pairs",
        unshifted=UNSHIFTED,
        counted="unshifted_correct IS NOT NULL" if sampled else "TRUE",
    )
    [missing] = con.execute(
        """
        SELECT count(*), any_value(system), any_value(world), any_value(branch),
            any_value(item_id), any_value(checkpoint)
        FROM unshifted_answers WHERE unshifted_correct IS NULL
        """
    ).fetchall()
    if missing[0] and not sampled:
        count, system, world, branch, item, checkpoint = missing
        raise MemshiftError(
            f"{count} item-times a shift caused have no answer on the unshifted branch "
            f"(e.g. {system} on world {world}, {branch}: {item} at checkpoint {checkpoint}); "
            f"the systems in systems.unshifted_all_items answer every item-time of "
            f"'{UNSHIFTED}': rerun their probe jobs"
        )
    return quantity_table(
        con,
        "unshifted_values",
        ["detection", "branch", "item_class"],
        schemas.UNSHIFTED,
        resampling,
    )
