"""The cost section's prefix-cache table: the share per role and over all, from the rows of the
calls table (tables/calls.parquet), and nothing for a run whose logs count no prompt."""

from __future__ import annotations

from memshift.report.costs import prefix_shares, section


def row(role: str, prompt: int | None, hits: int | None) -> dict[str, object]:
    return {"system": "s", "role": role, "prompt_tokens": prompt, "prefix_hit_tokens": hits}


def test_shares_are_summed_per_role_then_over_all():
    rows = [
        row("writer", 100, 50),
        row("writer", 300, 50),
        row("reader", 200, 150),
        row("library", 0, 0),  # a native library's calls carry no prompt
        row("auditor", None, None),  # a call log from before the prefix-cache columns
    ]
    assert prefix_shares(rows) == [("reader", 200, 150), ("writer", 400, 100), ("all", 600, 250)]


def test_the_section_shows_the_shares_and_omits_them_without_counted_prompts():
    text = section([], calls=[row("reader", 200, 150), row("writer", 400, 100)])
    assert "| reader | 200 | 150 | 75.0% |" in text
    assert "| all | 600 | 250 | 41.7% |" in text
    assert section([], calls=[row("reader", None, None)]) == ""
    assert section([]) == ""
