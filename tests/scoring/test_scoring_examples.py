"""The table of examples in docs/memory.md (Scoring) is what the scorer does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memshift.scoring.scorer import Score, score

DOC = Path(__file__).resolve().parents[2] / "docs" / "memory.md"
VALUE_TYPES_BY_GOLD = (
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "date"),
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"), "datetime"),
    (re.compile(r"\d{2}:\d{2}-\d{2}:\d{2}"), "time_range"),
    (re.compile(r"[A-Z][a-z]+day \d{2}:\d{2}"), "weekday_time"),
    (re.compile(r"[A-Za-z_]+/[A-Za-z_/]+"), "timezone"),
)
CODE = re.compile(r"`([^`]+)`")


def value_type(gold: str) -> str:
    return next(kind for pattern, kind in VALUE_TYPES_BY_GOLD if pattern.fullmatch(gold))


def examples() -> list[tuple[str, str, Score]]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("### Examples", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        answers, gold, scored, _why = (cell.strip() for cell in line.strip("|").split("|"))
        expected = Score(True, "match") if scored == "correct" else Score(False, scored[7:])
        rows += [(written, CODE.fullmatch(gold)[1], expected) for written in CODE.findall(answers)]
    return rows


EXAMPLES = examples()


def test_the_table_covers_dates_datetimes_and_zones() -> None:
    kinds = {value_type(gold) for _, gold, _ in EXAMPLES}
    assert kinds == {"date", "datetime", "time_range", "weekday_time", "timezone"}
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize(("written", "gold", "expected"), EXAMPLES)
def test_every_example_scores_as_documented(written: str, gold: str, expected: Score) -> None:
    kind = value_type(gold)
    assert score(kind, "answer", json.dumps(gold), "answer", json.dumps(written)) == expected
