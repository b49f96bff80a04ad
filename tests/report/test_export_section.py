"""The report's export section: imported memories beside their cells, in the report's order."""

from __future__ import annotations

from memshift.studies.export.report import section


def row(system: str, branch: str, measure: str, estimate: float, original: float) -> dict:
    return {
        "cell": "holdmem-d1-source",
        "arm": system.rsplit("-", 1)[1],
        "system": system,
        "branch": branch,
        "measure": measure,
        "estimate": estimate,
        "low": estimate,
        "high": estimate,
        "worlds": 20,
        "original_estimate": original,
        "original_low": original,
        "original_high": original,
        "diff_vs_original": estimate - original,
        "diff_low": estimate - original,
        "diff_high": estimate - original,
    }


def test_rows_follow_the_reports_order_and_every_refused_bundle_is_named() -> None:
    rows = [
        row("pm-d1-source-noext", "src", "update", 0.01, 1.0),
        row("pm-d1-source-noext", "src", "m", 1.0, 0.0),
        row("pm-d1-source-ext", "src", "update", 1.0, 1.0),
        row("pm-d1-source-ext", "none", "update", 1.0, 1.0),
    ]
    leaving = [
        {"system": "pm-d1-source-ext", "estimate": 0.0, "low": 0.0, "high": 0.0, "passed": True}
    ]
    bundles = [
        {
            "world": 1,
            "cell": "holdmem-d1-source",
            "arm": "ext",
            "ok": True,
            "issues": "",
            "episodes": 48,
            "bytes": 2048,
        },
        {
            "world": 2,
            "cell": "holdmem-d1-source",
            "arm": "ext",
            "ok": False,
            "issues": "checksum mismatch: items/episode.jsonl",
            "episodes": 48,
            "bytes": 2048,
        },
    ]
    text = section(rows, leaving, bundles)
    lines = [line for line in text.splitlines() if line.startswith("| pm-")]
    assert [line.split(" | ")[:3] for line in lines] == [
        ["| pm-d1-source-ext", "with the keys", "no shift"],
        ["| pm-d1-source-ext", "with the keys", "source revision"],
        ["| pm-d1-source-noext", "without the keys", "source revision"],
    ]
    assert "| 1.0 [1.0, 1.0] | 100.0 [100.0, 100.0] | -99.0 pp [-99.0, -99.0] |" in lines[2]
    assert "| 100.0 [100.0, 100.0] | 0.0 [0.0, 0.0] | +100.0 pp [+100.0, +100.0] |" in lines[2]
    assert "pm-d1-source-ext: +0.0 pp [+0.0, +0.0] (pass)" in text
    assert "validates 1 of them" in text
    assert "- w2 holdmem-d1-source (ext): checksum mismatch: items/episode.jsonl" in text
