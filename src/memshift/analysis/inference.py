"""(D,B) inferred from behaviour (MemShift C.5): a system gets B=1 if, after the deletion shift
removed the objects an item's value depended on, it still gives the old value with probability
at most 0.5, over at least 20 valid samples; otherwise B=0, or unidentifiable with fewer
samples. The samples come from one half of the items; the other half gives the carryover the
report compares with the HoldMem cell of the inferred setting. A HoldMem cell's B is known from
its detection, so the cells validate the rule (Cohen's kappa); a native library's B is what its
documentation and code describe, set beside the inferred one (MemShift Table 10, F.9)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.vocabulary import audited_base, cell_parts

DELETION = "del"
_VALUES = pa.schema(
    [
        ("system", pa.string()),
        ("world", pa.int32()),
        ("quantity", pa.string()),
        ("value", pa.int32()),
        ("lowest", pa.float64()),
        ("highest", pa.float64()),
    ]
)
MIN_SAMPLES = 20
THRESHOLD = 0.5
# B of a system not measured on the deletion branch (report.max_failure_share)
NOT_MEASURED = "not measured"


def inference_half(item_id: str) -> bool:
    """Whether an item's samples decide B (else they measure carryover): a fixed split."""
    return hashlib.sha256(f"inference|{item_id}".encode()).digest()[0] % 2 == 0


# B of the detections that fix it by construction: a key invalidates (the leaky control misses a
# known quarter), append-only, upsert and refresh never retire what a deletion left stale. The
# audit's B is decided by its model at each checkpoint, so it is inferred, not known.
KNOWN_B = {
    "append": 0,
    "upsert": 0,
    "refresh": 0,
    "source": 1,
    "citation": 1,
    "oracle": 1,
    "scope": 1,
    "leaky": 1,
}


# B of each native library (registry.NATIVE_SYSTEMS) as its documentation and code describe it,
# under the adapters' update contracts (docs/native.md): the fact memories only add (a deletion
# reaches them as a tombstone sentence, which retires nothing), while the document memories
# delete a source object's document when it is revised or deleted.
DOCUMENTED_B = {"mem0": 0, "memos": 0, "amem": 0, "lightrag": 1, "cognee": 1, "hipporag": 1}


def native_libraries(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The library of each native system of the study, from its library calls in the call logs
    (`calls`: role `library` or `library-model`, the library as the backend)."""
    return dict(
        con.execute(
            "SELECT system, any_value(backend) FROM calls "
            "WHERE role IN ('library', 'library-model') GROUP BY system ORDER BY system"
        ).fetchall()
    )


def known_b(system: str) -> int | None:
    """A HoldMem cell's B where its detection fixes it; None for any other system."""
    parts = cell_parts(system)
    if parts is None or audited_base(system) is not None:
        return None
    return KNOWN_B.get(parts[1])


def persistence_rows(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(system, world, quantity, kept the old value, 0, 1) per valid sample: a direct probe after
    the fork on the deletion branch whose item's gold abstains because the shift deleted what it
    depended on, where the fork's gold was an answer (`kept_fork_value` not null)."""
    rows = []
    for system, world, item, kept in con.execute(
        "SELECT system, world, item_id, kept_fork_value FROM scores "
        "WHERE branch = ? AND kind = 'direct' AND checkpoint > 0 AND changed "
        "AND caused_by_shift AND gold_status = 'abstain' AND kept_fork_value IS NOT NULL "
        "ORDER BY ALL",
        [DELETION],
    ).fetchall():
        quantity = "persistence" if inference_half(item) else "carryover"
        rows.append((system, world, quantity, int(kept), 0.0, 1.0))
    return rows


def inferred_table(
    con: duckdb.DuckDBPyConnection,
    resampling: Resampling,
    unmeasured: Collection[tuple[str, str]] = frozenset(),
    libraries: Mapping[str, str] | None = None,
) -> pa.Table:
    """The INFERRED table (empty without a deletion branch); needs the bootstrap's weights. A
    system too many of whose calls failed on the deletion branch (`unmeasured`: (system,
    branch)) keeps its counts, but its B is NOT_MEASURED, never inferred from the failures. A
    native system (`libraries`: system -> library) has its library's documented B beside."""
    libraries = libraries or {}
    rows = persistence_rows(con)
    if not rows:
        return schemas.INFERRED.empty_table()
    # handed to DuckDB as one Arrow table: inserted row by row, tens of thousands of samples took
    # seconds
    columns = [list(column) for column in zip(*rows, strict=True)]
    con.register("inference_rows", pa.Table.from_arrays(columns, schema=_VALUES))
    con.execute("CREATE OR REPLACE TABLE inference_values AS SELECT * FROM inference_rows")
    con.unregister("inference_rows")
    counted = quantity_table(
        con,
        "inference_values",
        ["system"],
        pa.schema([("system", pa.string()), ("quantity", pa.string()), *schemas.COUNTED_ESTIMATE]),
        resampling,
    ).to_pylist()
    persistence = {r["system"]: r for r in counted if r["quantity"] == "persistence"}
    out = []
    for r in counted:
        decided = persistence.get(r["system"])
        failed = (r["system"], DELETION) in unmeasured
        out.append(
            {
                **r,
                "known_b": known_b(r["system"]),
                "documented_b": DOCUMENTED_B.get(libraries.get(r["system"], "")),
                "inferred_b": NOT_MEASURED if failed else inferred_b(decided),
                "by_interval": NOT_MEASURED if failed else by_interval(decided),
            }
        )
    return pa.Table.from_pylist(out, schema=schemas.INFERRED)


def inferred_b(row: dict | None) -> str:
    """B from the point estimate of persistence, or "unidentifiable" with too few samples."""
    if row is None or row["n"] < MIN_SAMPLES or row["estimate"] is None:
        return "unidentifiable"
    return "1" if row["estimate"] <= THRESHOLD else "0"


def by_interval(row: dict | None) -> str:
    """B when the whole interval lies on one side of the threshold, else "not identified"."""
    if row is None or row["n"] < MIN_SAMPLES or row["low"] is None:
        return "not identified"
    if row["high"] <= THRESHOLD:
        return "1"
    if row["low"] > THRESHOLD:
        return "0"
    return "not identified"


def kappa(pairs: Sequence[tuple[int, int]]) -> float | None:
    """Cohen's kappa between known and inferred B over (known, inferred) pairs; None when the
    chance agreement is total (both always say the same one value)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    chance = sum(
        (sum(a == v for a, _ in pairs) / n) * (sum(b == v for _, b in pairs) / n) for v in (0, 1)
    )
    return None if chance == 1 else (observed - chance) / (1 - chance)
