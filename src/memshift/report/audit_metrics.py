"""The audit's own metrics, its ablations against the full audit, and the trap suite, in the
report, with StateAuditor's figures beside ours where the paper gives one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memshift import schemas
from memshift.analysis.audit_metrics import QUANTITIES, audit_metrics_table
from memshift.report.inputs import ReportInputs
from memshift.report.markdown import beside, interval, points, table
from memshift.report.order import ordered_systems
from memshift.vocabulary import AUDIT_VARIANTS, audited_parts

Row = Mapping[str, Any]
# StateAuditor (§6.1, §6.3, §6.4, §7): strict VTA unless said otherwise.
PAPER = {
    "true_change_recall": ".875 (safety suite; predecessor .975)",
    "false_invalidation": ".00-.05 by regime (predecessor .05-.58)",
    "rewrite_conflict_free": "80% full, 3% repair-only",
    "parse_failure": "0 of 400",
    "alignment": ".997 (55:0)",
    "stale_premise_recall_direct": ".88 (SR, draft-anchored)",
    "stale_premise_recall_premise": "1.0 (PR)",
    "stale_premise_recall_implicit": ".38 (IPA, draft-anchored; the state pass about doubles it)",
    "calls_per_audit": "6",
    "tokens_per_audit": "9,328",
}
# What each ablation did to accuracy against the full audit (§6.1; §6.3 for the state pass, §7
# for the semantic check).
PAPER_ABLATION = {
    "control": "-4.4 pp (.692 vs .736, matched control)",
    "nogate": "+0.7 pp (.740 vs .733, validation skipped)",
    "noauthority": "0.0 pp (.733, verdicts unchanged)",
    "draftonly": "-31.5 pp on IPA (state pass removed, development setting)",
    "semantic": "accuracy unchanged; trap over-repairs 18 -> 6",
    "joint": "+14.3 pp (.879 vs .736, scenario-joint VTA; privileged, not protocol-matched)",
}
AMOUNTS = ("calls_per_audit", "tokens_per_audit")


def amount(row: Row | None) -> str:
    return interval(row, lambda value: f"{value:,.1f}")


def is_ablation(system: str) -> bool:
    parts = audited_parts(system)
    return parts is not None and parts[1] != "full"


def _metrics_table(index: Mapping[tuple[str, str], Row], systems: Sequence[str]) -> str:
    body = []
    for quantity, meaning in QUANTITIES.items():
        if quantity.startswith("versus_full"):
            continue
        found = [index.get((s, quantity)) for s in systems]
        if not any(found):
            continue
        shown = [amount(r) if quantity in AMOUNTS else interval(r) for r in found]
        body.append([quantity, meaning, *shown, PAPER.get(quantity, "—")])
    return table(["quantity", "share of", *systems, "paper"], body)


def _ablation_table(index: Mapping[tuple[str, str], Row], systems: Sequence[str]) -> str:
    body = []
    for system in systems:
        parts = audited_parts(system)
        if parts is None or not is_ablation(system):
            continue
        base, variant = parts
        body.append(
            [
                base,
                variant,
                interval(index.get((system, "accuracy_direct"))),
                points(index.get((system, "versus_full_direct"))),
                points(index.get((system, "versus_full_premise"))),
                points(index.get((system, "versus_full_implicit"))),
                PAPER_ABLATION.get(variant, "—"),
            ]
        )
    header = ["audited", "ablation", "accuracy (direct)", "- full: direct", "premise"]
    return table([*header, "implicit", "paper"], body)


def _trap_table(rows: Sequence[Row]) -> str:
    body = [
        [
            r["regime"],
            str(r["cases"]),
            str(r["proposed"]),
            str(r["gate_accepted"]),
            str(r["semantic_accepted"]),
        ]
        for r in rows
    ]
    header = ["regime", "cases", "proposed", "gate accepted", "after the semantic check"]
    return table(header, body)


def section(metrics: Sequence[Row], traps: Sequence[Row]) -> str:
    """The section, or '' when the study audits no answers."""
    if not metrics:
        return ""
    index = {(r["system"], r["quantity"]): r for r in metrics}
    systems = ordered_systems({r["system"] for r in metrics})
    full = [s for s in systems if not is_ablation(s)]
    parts = [
        "## The audit's own metrics",
        "",
        "Each audited system's audit (StateAuditor §6), as percentages of the probes named, with "
        "95% world-bootstrap intervals; `tables/audit_metrics.parquet`. A repair is a material "
        "STALE verdict (correct-and-inform), verify a material UNKNOWN. With the rule-based "
        "auditor these measure the pipeline, not a model: docs/memory.md says which depend on a "
        "real one.",
        "",
        _metrics_table(index, full),
    ]
    ablations = [s for s in systems if s not in full]
    if ablations:
        variants = ", ".join(v for v in AUDIT_VARIANTS if v != "full")
        parts += [
            "",
            f"### Ablations against the full audit ({variants})",
            "",
            "Accuracy of each ablation after the fork and its right answers minus the full "
            "audit's on the same probes (pp, paired by probe, 95% world-bootstrap intervals). "
            "The joint audit reads all the answers about an item-time together, which no "
            "system answering one question at a time can: it is privileged, an upper bound "
            "rather than a comparable system.",
            "",
            _ablation_table(index, ablations),
        ]
    if traps:
        parts += [
            "",
            "### Traps",
            "",
            "Constructed trap records (another value mentioned, nothing superseded) and true "
            "changes, proposed by a recall-first stand-in proposer: how many transitions the "
            "provenance gate accepts (on a trap, a false STALE) and how many survive the "
            "semantic check; `tables/traps.parquet`. "
            + beside("", "trap over-repairs 18 -> 6 with the semantic check").strip(),
            "",
            _trap_table(traps),
        ]
    return "\n".join(parts)


# ---- the section as the report runs it (report/sections.py) ----------------------------------


def compute(inputs: ReportInputs) -> dict[str, pa.Table]:
    """The audit's metrics, and the trap suite's table where the study audits at all."""
    metrics = audit_metrics_table(inputs.con, inputs.resampling)
    traps = inputs.traps() if metrics.num_rows else schemas.TRAPS.empty_table()
    return {"audit_metrics": metrics, "traps": traps}


def render(rows: Mapping[str, Sequence[Row]], inputs: ReportInputs) -> str:
    return section(rows["audit_metrics"], rows["traps"])
