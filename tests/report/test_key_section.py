"""The key audit section: per-world re-derivations, the paper's numbers beside ours."""

from __future__ import annotations

from memshift.report.keys import section


def row(detection: str, branch: str, item_class: str, **values: float) -> dict:
    return {
        "detection": detection,
        "branch": branch,
        "item_class": item_class,
        "unchanged": 10,
        "unchanged_invalidated": values.get("unchanged", 1.0),
        "unchanged_invalidated_low": None,
        "unchanged_invalidated_high": None,
        "changed": 10,
        "changed_missed_since_fork": 0.0,
        "changed_missed_low": values.get("missed_low"),
        "changed_missed_high": values.get("missed_high"),
        "worlds": 2,
        "rederivations": values.get("rederivations", 0),
        "item_times_after_fork": 100,
        "rederived_share": 0.5,
    }


def test_paper_numbers_stand_beside_ours_per_world() -> None:
    rows = [
        row("oracle", "src", "all", unchanged=0.2),
        row("oracle", "src", "other", rederivations=40),
        row("source", "none", "all"),
        row("citation", "src", "all", unchanged=0.3, missed_low=0.1, missed_high=0.25),
    ]
    text = section(rows)
    lines = [
        line
        for line in text.splitlines()
        if line.startswith("| oracle") or line.startswith("| citation")
    ]
    assert lines[0] == "| oracle | source revision | all | 20.0 (paper 16.8) | 0.0 | 0.0 | 50.0 |"
    assert (
        lines[1] == "| oracle | source revision | other | 100.0 | 0.0 | 20.0 (paper 17.2) | 50.0 |"
    )
    # a share with its interval (none below five worlds)
    assert lines[2] == "| citation | source revision | all | 30.0 | 0.0 [10.0, 25.0] | 0.0 | 50.0 |"
    assert "no shift" not in text  # the unshifted branch has nothing to audit
    assert section([row("source", "none", "all")]) == ""
