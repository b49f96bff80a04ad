"""The key audit in the report: what each detection key invalidated (MemShift Table 9a), with
the paper's number beside ours where it gives one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift.analysis.keys import key_audit
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, pct, table
from memshift.report.order import ordered_branches
from memshift.vocabulary import BRANCH_NAMES, UNSHIFTED

Row = Mapping[str, Any]
SHOWN_CLASSES = ("all", "definition", "other")
# MemShift Table 9a on its 20 test worlds: unchanged item-times invalidated (all classes), and
# re-derivations of single-field items after a source revision (summed over the 20 worlds)
PAPER_UNCHANGED = {
    ("source", "src"): 0.997,
    ("source", "def"): 0.993,
    ("source", "del"): 1.0,
    ("oracle", "src"): 0.168,
    ("oracle", "def"): 0.043,
    ("oracle", "del"): 0.070,
}
PAPER_REDERIVATIONS = {("source", "src"): 2930, ("oracle", "src"): 344}
PAPER_WORLDS = 20


def _share(row: Row, name: str, bounds: str) -> str:
    """A share in percent with its 95% interval (none below five worlds)."""
    low, high = row[f"{bounds}_low"], row[f"{bounds}_high"]
    interval = "" if low is None else f" [{pct(low)}, {pct(high)}]"
    return f"{pct(row[name])}{interval}"


def section(rows: Sequence[Row]) -> str:
    shown = [r for r in rows if r["branch"] != UNSHIFTED and r["item_class"] in SHOWN_CLASSES]
    if not shown:
        return ""
    index = {(r["detection"], r["branch"], r["item_class"]): r for r in shown}
    body = []
    for key in dict.fromkeys(r["detection"] for r in shown):
        for branch in ordered_branches({r["branch"] for r in shown if r["detection"] == key}):
            for item_class in SHOWN_CLASSES:
                found = index.get((key, branch, item_class))
                if found is None:
                    continue
                paper = PAPER_UNCHANGED.get((key, branch)) if item_class == "all" else None
                derived = PAPER_REDERIVATIONS.get((key, branch)) if item_class == "other" else None
                per_world = found["rederivations"] / found["worlds"]
                body.append(
                    [
                        key,
                        BRANCH_NAMES.get(branch, branch),
                        item_class,
                        beside(
                            _share(found, "unchanged_invalidated", "unchanged_invalidated"),
                            None if paper is None else pct(paper),
                        ),
                        _share(found, "changed_missed_since_fork", "changed_missed"),
                        beside(
                            f"{per_world:.1f}",
                            None if derived is None else f"{derived / PAPER_WORLDS:.1f}",
                        ),
                        pct(found["rederived_share"]),
                    ]
                )
    header = [
        "key",
        "branch",
        "items",
        "unchanged invalidated",
        "changed missed since the fork",
        "re-derivations per world",
        "re-derived item-times",
    ]
    return "\n".join(
        [
            "## Key audit",
            "",
            "What each detection key invalidated, from its maintenance logs, pooled over the "
            "worlds (in percent, the two shares with 95% world-bootstrap intervals): the sampled "
            "unchanged item-times it "
            "invalidated since the fork, the changed item-times it never invalidated since the "
            "fork, its re-derivations after the fork (one writer request each, per world) and "
            "their share of every item of the class at every checkpoint after the fork. `other` "
            "are the single-field items. A key built from the world (source, oracle, scope) "
            "involves no model, so these are the key's numbers whatever the writer; the citation "
            "key's depend on what the writer cited. The paper's numbers (MemShift Table 9a, 20 "
            "test worlds) stand beside ours where it gives one.",
            "",
            table(header, body),
            "",
        ]
    )


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    return {"key_audit": key_audit(inputs.con)}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["key_audit"])
