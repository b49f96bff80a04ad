"""Paired contrasts of HoldMem cells: the B effect, the D effect and their interaction B×D.

A contrast is a signed sum of systems' correctness on the changed item-times that all of them
answered (paired by probe, so by item and checkpoint): B = key minus append-only at one D,
D = a repair minus the writer's own re-derivation (D=0) at one B, and B×D = the B effect at
D=1 (or D=m) minus the B effect at D=0.

The family for the multiple-comparison corrections is every contrast over all item classes on
the branches where B and D can differ from zero by construction (src, def, del). p-values are
one-sided in the direction of the estimate, so the corrections run at half the two-sided level:
without correction a rejection is a 95% interval that excludes zero. Where a family member has
no p-value (fewer than MIN_WORLDS worlds), no member gets a decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, summarize
from memshift.analysis.multiple import benjamini_hochberg, holm
from memshift.analysis.sqlfiles import identifiers, records, run
from memshift.vocabulary import CONTROLS, cell_parts, cell_system

NO_KEY = "append"
FAMILY_BRANCHES = ("src", "def", "del")
ONE_SIDED_LEVEL = 0.025
# Each measure a contrast is taken on: the item-times it pairs (a boolean expression over
# item_times, met by every system of the contrast) and what it counts of them (0 or 1, or -1 to 1
# for `reader`). MemShift Table 18: detection, accuracy on re-derived items, re-derived value
# equals gold; Table 22: Update's contrast split into the stored state's part (`store`, the
# changed item-times whose stored state is the gold) and the reader's (`reader`, the rest).
# Only Update's contrasts form the family.
CONTRAST_MEASURES = {
    "update": ("changed", "correct"),
    "detection": ("changed", "detected"),
    "rederived_accuracy": ("changed AND detected", "correct"),
    "value_equals_gold": ("changed AND detected", "store_correct"),
    "store": ("changed", "store_correct"),
    "reader": ("changed", "correct::INTEGER - store_correct::INTEGER"),
}
SIGNED_VALUES = {"correct::INTEGER - store_correct::INTEGER"}
# the utility floor's population without the definition items (MemShift F.6)
BEFORE_SHIFT_WITHOUT_DEFINITIONS = "before_shift AND item_class <> 'definition'"


@dataclass(frozen=True)
class Contrast:
    contrast: str
    detection: str
    setting: str
    terms: tuple[tuple[str, int], ...]

    @property
    def in_family(self) -> bool:
        """A contrast of the check-only control stands outside the family (MemShift C.2)."""
        return not any(
            (parts := cell_parts(system)) is not None and parts[0] in CONTROLS
            for system, _ in self.terms
        )


def declare(systems: Iterable[str]) -> list[Contrast]:
    """Every B, D and B×D contrast the study's HoldMem cells allow."""
    cells = {parts for s in systems if (parts := cell_parts(s)) is not None}
    repairs = sorted({repair for repair, _ in cells})
    keys = sorted({detection for _, detection in cells if detection != NO_KEY})
    found: list[Contrast] = []

    def have(*pairs: tuple[str, str]) -> bool:
        return all(pair in cells for pair in pairs)

    for key in keys:
        for repair in repairs:
            if have((repair, key), (repair, NO_KEY)):
                found.append(
                    Contrast(
                        "B",
                        key,
                        f"D={repair}",
                        ((cell_system(key, repair), 1), (cell_system(NO_KEY, repair), -1)),
                    )
                )
    for detection in [NO_KEY, *keys]:
        for repair in repairs:
            if repair != "0" and have((repair, detection), ("0", detection)):
                at = f"B={detection}" if repair == "1" else f"B={detection}, D={repair}"
                found.append(
                    Contrast(
                        "D",
                        detection,
                        at,
                        ((cell_system(detection, repair), 1), (cell_system(detection, "0"), -1)),
                    )
                )
        # each control against the arm it varies (MemShift C.2, C.4, F.3, F.4)
        for plus, minus in CONTROLS.values():
            if have((plus, detection), (minus, detection)) and minus != "0":
                found.append(
                    Contrast(
                        "D",
                        detection,
                        f"B={detection}, D={plus} vs {minus}",
                        (
                            (cell_system(detection, plus), 1),
                            (cell_system(detection, minus), -1),
                        ),
                    )
                )
    for key in keys:
        for repair in repairs:
            quad = ((repair, key), (repair, NO_KEY), ("0", key), ("0", NO_KEY))
            if repair != "0" and have(*quad):
                terms = tuple(
                    (cell_system(d, r), sign)
                    for (r, d), sign in zip(quad, (1, -1, -1, 1), strict=True)
                )
                found.append(Contrast("BxD", key, f"D={repair}", terms))
    return found


def paired(
    con: duckdb.DuckDBPyConnection,
    contrasts: list[Contrast],
    resampling: Resampling,
    population: str = "changed",
    value: str = "correct",
) -> list[dict[str, Any]]:
    """Per contrast, branch and item class: the paired difference of `value` over the item-times
    of `population` (a boolean column of item_times, or one of CONTRAST_MEASURES' expressions),
    with interval and one-sided p-value. Needs item_times and the weight tables."""
    con.execute(
        "CREATE OR REPLACE TABLE contrast_terms (contrast_id INTEGER, system VARCHAR, sign INTEGER)"
    )
    con.execute(
        "CREATE OR REPLACE TABLE contrast_meta "
        "(contrast_id INTEGER, terms INTEGER, lowest DOUBLE, highest DOUBLE)"
    )
    for index, contrast in enumerate(contrasts):
        con.executemany(
            "INSERT INTO contrast_terms VALUES (?, ?, ?)",
            [(index, system, sign) for system, sign in contrast.terms],
        )
        signs = [sign for _, sign in contrast.terms]
        lowest = sum(min(s, 0) for s in signs)
        highest = sum(max(s, 0) for s in signs)
        if value in SIGNED_VALUES:  # each term's value lies in [-1, 1]
            lowest, highest = lowest - highest, highest - lowest
        con.execute(
            "INSERT INTO contrast_meta VALUES (?, ?, ?, ?)", (index, len(signs), lowest, highest)
        )
    known = {p for p, _ in CONTRAST_MEASURES.values()} | {v for _, v in CONTRAST_MEASURES.values()}
    known.add(BEFORE_SHIFT_WITHOUT_DEFINITIONS)
    for expression in (population, value):
        if expression not in known:
            identifiers([expression])  # a plain column name, or ValueError
    run(
        con,
        "contrast_ratios",
        out="contrast_ratios",
        population=population,
        value=value,
    )
    keys = ("contrast_id", "branch", "item_class")
    summarize(con, "contrast_ratios", keys, "contrast_summary", resampling)
    return records(con, "SELECT * FROM contrast_summary ORDER BY contrast_id, branch, item_class")


def compute(
    con: duckdb.DuckDBPyConnection, contrasts: list[Contrast], resampling: Resampling
) -> pa.Table:
    """The CONTRASTS table: every contrast on each of CONTRAST_MEASURES; the family is Update's
    over all item classes on FAMILY_BRANCHES."""
    columns = schemas.empty_columns(schemas.CONTRASTS)
    for measure, (population, value) in CONTRAST_MEASURES.items():
        for record in paired(con, contrasts, resampling, population, value):
            contrast = contrasts[record["contrast_id"]]
            columns["contrast"].append(contrast.contrast)
            columns["detection"].append(contrast.detection)
            columns["setting"].append(contrast.setting)
            columns["branch"].append(record["branch"])
            columns["item_class"].append(record["item_class"])
            columns["measure"].append(measure)
            for name in ("estimate", "low", "high", "p_one_sided", "n", "worlds"):
                columns[name].append(record[name])
            columns["in_family"].append(
                contrast.in_family
                and measure == "update"
                and record["branch"] in FAMILY_BRANCHES
                and record["item_class"] == "all"
                and record["estimate"] is not None
            )
    _correct(columns)
    return pa.Table.from_pydict(columns, schema=schemas.CONTRASTS)


def _correct(columns: dict[str, list[object]]) -> None:
    """Holm and BH over the family members that have a p-value. A member without one (fewer
    than MIN_WORLDS worlds) gets no decision (null); so does every member of a family that has
    such a member, since a correction over part of the family would be no correction."""
    members = [i for i, member in enumerate(columns["in_family"]) if member]
    family = [i for i in members if columns["p_one_sided"][i] is not None]
    if len(family) < len(members):
        family = []
    p_values = [float(columns["p_one_sided"][i]) for i in family]  # type: ignore[arg-type]
    holm_kept = dict(zip(family, holm(p_values, ONE_SIDED_LEVEL), strict=True))
    bh_kept = dict(zip(family, benjamini_hochberg(p_values, ONE_SIDED_LEVEL), strict=True))
    rows = range(len(columns["in_family"]))
    undecided = set(members) - set(family)
    columns["holm"] = [None if i in undecided else holm_kept.get(i, False) for i in rows]
    columns["bh"] = [None if i in undecided else bh_kept.get(i, False) for i in rows]
