"""The cost section's plan beside the spend: per role the calls and tokens `memshift plan`
priced against those of the requests the run made (sent or served by the response cache), off
the plan in percent, and over all only what the plan prices."""

from __future__ import annotations

from memshift.analysis.plan import ALL
from memshift.report.costs import plan_beside_spend, section
from memshift.report.doc_sources import markdown_tables


def planned(role: str, calls: int, tokens_in: int, tokens_out: int) -> dict[str, object]:
    return {
        "stage": ALL,
        "role": role,
        "calls": calls,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "tokens_out_limit": 10 * tokens_out,
    }


def made(role: str, calls: int, sent: tuple[int, int], cached: tuple[int, int] = (0, 0)):
    return {
        "system": "s",
        "role": role,
        "calls": calls,
        "tokens_in_spent": sent[0],
        "tokens_out_spent": sent[1],
        "tokens_in_cached": cached[0],
        "tokens_out_cached": cached[1],
    }


def rows(text: str) -> dict[str, dict[str, str]]:
    (table,) = [t for t in markdown_tables(text) if t[0][:2] == ["role", "calls planned"]]
    header, *body = table
    return {row[0]: dict(zip(header, row, strict=True)) for row in body}


def test_each_role_against_its_plan_with_cached_requests_counted_as_made():
    plan = [
        planned("writer", 10, 1_000, 100),
        planned("reader", 20, 4_000, 200),
        {**planned(ALL, 30, 5_000, 300), "stage": "ingest"},  # a stage line: not a role's
        planned(ALL, 30, 5_000, 300),
    ]
    calls = [
        made("writer", 6, (660, 60)),
        made("writer", 4, (0, 0), cached=(440, 50)),  # served by the response cache
        made("reader", 20, (3_600, 190)),
        made("library", 7, (0, 0)),  # a native library's calls: the plan does not price them
    ]
    table = rows("\n".join(plan_beside_spend(plan, calls)))
    assert table["writer"]["calls made"] == "10"
    assert table["writer"]["in, off the plan"] == "+10.0%"
    assert table["writer"]["out, off the plan"] == "+10.0%"
    assert table["writer"]["sent in / out"] == "660 / 60"
    assert table["reader"]["in, off the plan"] == "-10.0%"
    assert table["library"]["calls planned"] == "—" and table["library"]["calls made"] == "7"
    assert table[ALL]["calls made"] == "30" and table[ALL]["in, off the plan"] == "-6.0%"


def test_no_plan_no_table():
    assert plan_beside_spend([], [made("reader", 1, (10, 1))]) == []
    assert "calls planned" not in section([], calls=[made("reader", 1, (10, 1))])
