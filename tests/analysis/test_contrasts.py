"""Holm and Benjamini-Hochberg decisions over the contrasts' family."""

from __future__ import annotations

from memshift.analysis.contrasts import _correct, declare


def columns(p_values: list[float | None], in_family: list[bool]) -> dict[str, list[object]]:
    return {"p_one_sided": list(p_values), "in_family": list(in_family)}


def test_family_members_are_corrected_and_others_are_not() -> None:
    found = columns([0.001, 0.02, 0.024, 0.001], [True, True, True, False])
    _correct(found)
    assert found["holm"] == [True, False, False, False]  # 0.02 > 0.025 / 2
    assert found["bh"] == [True, True, True, False]  # 0.024 <= 0.025 * 3 / 3


def test_a_family_member_without_a_p_value_leaves_the_family_undecided() -> None:
    found = columns([0.001, None, 0.001], [True, True, False])
    _correct(found)
    assert found["holm"] == [None, None, False]
    assert found["bh"] == [None, None, False]


def test_imported_memories_and_custom_systems_never_enter_the_family() -> None:
    cells = [f"holdmem-d{d}-{b}" for d in ("0", "1") for b in ("append", "source")]
    declared = declare(cells)
    assert {c.contrast for c in declared} == {"B", "D", "BxD"}
    others = ["pm-d1-source-ext", "pm-d0-append-noext", "mine", "holdmem-d1-source+audit"]
    assert declare([*cells, *others]) == declared
