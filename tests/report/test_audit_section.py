"""The audit's section of the report: each audit in the metrics table with the paper's figure
beside it, each ablation against the full audit, the trap suite."""

from __future__ import annotations

from memshift.report.audit_metrics import section


def row(system: str, quantity: str, estimate: float, low: float | None = None) -> dict:
    high = None if low is None else estimate + (estimate - low)
    return {
        "system": system,
        "quantity": quantity,
        "estimate": estimate,
        "low": low,
        "high": high,
        "numerator": 1,
        "n": 2,
        "worlds": 20,
    }


def test_audits_ablations_and_traps_each_have_their_table():
    metrics = [
        row("bm25+audit", "true_change_recall", 0.9, 0.8),
        row("holdmem-audit", "true_change_recall", 0.7, 0.6),
        row("bm25+audit", "tokens_per_audit", 1234.5, 1200.0),
        row("bm25+audit-control", "accuracy_direct", 0.5, 0.4),
        row("bm25+audit-control", "versus_full_direct", -0.05, -0.1),
    ]
    traps = [
        {"regime": "friend_move", "cases": 20, "proposed": 20, "gate_accepted": 20}
        | {"semantic_accepted": 0}
    ]
    text = section(metrics, traps)
    header = next(line for line in text.splitlines() if line.startswith("| quantity"))
    assert "bm25+audit" in header and "holdmem-audit" in header
    assert "control" not in header  # an ablation is not an audit of its own
    recall = next(line for line in text.splitlines() if line.startswith("| true_change_recall"))
    assert "90.0 [80.0, 100.0]" in recall and "70.0 [60.0, 80.0]" in recall
    assert ".875" in recall  # the paper's figure
    tokens = next(line for line in text.splitlines() if line.startswith("| tokens_per_audit"))
    assert "1,234.5 [1,200.0, 1,269.0]" in tokens and "9,328" in tokens
    ablation = next(line for line in text.splitlines() if line.startswith("| bm25 | control"))
    assert "-5.0 pp [-10.0, +0.0]" in ablation and "-4.4 pp" in ablation
    assert "| friend_move | 20 | 20 | 20 | 0 |" in text


def test_no_audit_no_section():
    assert section([], []) == ""
