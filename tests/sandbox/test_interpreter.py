"""The restricted interpreter: legitimate programs compute their values, failures are classified,
programs cannot affect one another, and the pool survives whatever a program does."""

from __future__ import annotations

import datetime
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import data, world
from memshift.definitions.catalog import SIX
from memshift.models.requests import ProgramRequest
from memshift.sandbox import (
    FAILURE_KINDS,
    ProgramResult,
    Sandbox,
    check_program,
    pool,
    run_program,
    run_programs,
)
from memshift.sandbox.helpers import HELPERS
from memshift.sandbox.result import DETAIL_CHARS
from memshift.simulator.programs import definition_program, item_program
from memshift.timeutil import fmt
from memshift.world.records import snapshots

AS_OF = "2026-02-15 12:00"


def chat(object_id: str, sent: str, partner: object, source: str = "chat") -> dict[str, Any]:
    return {"object_id": object_id, "source": source, "kind": "message", "updated": sent,
            "sent": sent, "partner": partner}  # fmt: skip


def meeting(object_id: str, start: str, end: str, title: str) -> dict[str, Any]:
    return {"object_id": object_id, "source": "calendar", "kind": "meeting", "updated": start,
            "start": start, "end": end, "title": title, "status": "booked"}  # fmt: skip


def settings(object_id: str, updated: str, zone: str) -> dict[str, Any]:
    return {"object_id": object_id, "source": "settings", "kind": "settings", "updated": updated,
            "time_zone": zone}  # fmt: skip


RECORDS = [
    chat("m1", "2026-02-10 09:00", "ann"),
    chat("m2", "2026-02-11 10:30", ["ann", "bob"]),
    chat("m3", "2025-10-01 10:00", "bob"),  # outside the 60-day window
    chat("m4", "2026-02-12 11:00", "ann", source="email"),
    chat("m5", "2026-02-13 08:00", None),
    meeting("c1", "2026-02-12 09:15", "2026-02-12 10:40", "Standup"),
    meeting("c2", "2026-02-14 13:00", "2026-02-14 17:05", "Zoë's review ✓"),
    meeting("c3", "2026-02-12 16:00", "2026-02-12 16:30", "Standup"),
    settings("s1", "2026-01-01 00:00", "Europe/Berlin"),
    settings("s2", "2026-02-01 00:00", "Asia/Tokyo"),
]


def program(*lines: str) -> str:
    return "def derive(records, as_of):\n" + "".join(f"    {line}\n" for line in lines)


COUNTING = """def derive(records, as_of):
    now = minutes(as_of)
    counts = {}
    for r in records:
        if r['source'] != 'chat' or r['kind'] != 'message':
            continue
        moment = minutes(r['sent'])
        if not (now - 60 * 1440 < moment <= now):
            continue
        keys = r.get('partner')
        if not isinstance(keys, list):
            keys = [keys]
        for k in keys:
            if k:
                counts[k] = counts.get(k, 0) + 1
    return sorted(k for k in counts if counts[k] >= 2)
"""

LEGITIMATE = {
    "counting in a window": (COUNTING, ["ann"]),
    "members": (
        program("return sorted(set(r['title'] for r in records if r['kind'] == 'meeting'))"),
        ["Standup", "Zoë's review ✓"],
    ),
    "span arithmetic": (
        program(
            "selected = [r for r in records if r['kind'] == 'meeting']",
            "first = min(int(r['start'][11:13]) * 60 + int(r['start'][14:16]) for r in selected)",
            "last = max(int(r['end'][11:13]) * 60 + int(r['end'][14:16]) for r in selected)",
            "return str(first // 60).zfill(2) + ':00-' + str((last + 59) // 60).zfill(2) + ':00'",
        ),
        "09:00-18:00",
    ),
    "latest with a lambda key": (
        program(
            "settings = [r for r in records if r['kind'] == 'settings']",
            "return max(settings, key=lambda r: (r['updated'], r['object_id']))['time_zone']",
        ),
        "Asia/Tokyo",
    ),
    "dict methods and a dict comprehension": (
        program(
            "by_day = {}",
            "for r in records:",
            "    by_day.setdefault(r['updated'][:10], []).append(r['object_id'])",
            "sizes = {day: len(ids) for day, ids in by_day.items() if day.startswith('2026')}",
            "ranked = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))",
            "return [f'{day}={n}' for day, n in ranked[:2]]",
        ),
        ["2026-02-12=3", "2026-01-01=1"],
    ),
    "str methods": (
        program(
            "titles = [r['title'].lower().replace(' ', '_') for r in records if 'title' in r]",
            "return ','.join(t.strip('_').split('_')[0] for t in titles if not t.endswith('✓'))",
        ),
        "standup,standup",
    ),
    "f-strings with conversions and constant specs": (
        program(
            "n = len([r for r in records if r['kind'] == 'meeting'])",
            "zone = records[-1]['time_zone']",
            "return f'{n:03d} {zone!r} {n / 4:.2f} {as_of[:4]:>6}'",
        ),
        "003 'Asia/Tokyo' 0.75   2026",
    ),
    "try/except and raise of listed exceptions": (
        program(
            "total = 0",
            "for r in records:",
            "    try:",
            "        if r['partner'] is None:",
            "            raise ValueError('no partner')",
            "        total += 1",
            "    except (KeyError, ValueError):",
            "        total += 100",
            "return str(total)",
        ),
        "604",
    ),
    "loops, enumerate, zip, reversed, slicing": (
        program(
            "ids = [r['object_id'] for r in records]",
            "out = []",
            "i = 0",
            "while True:",
            "    i += 1",
            "    if i > 3:",
            "        break",
            "    if i == 2:",
            "        continue",
            "    out.append(ids[i])",
            "pairs = [f'{a}{b}' for a, b in zip(ids[::3], reversed(ids))]",
            "first, *rest = [n for n, _ in enumerate(ids) if n % 4 == 0]",
            "return out + pairs[:2] + [str(first), str(rest)]",
        ),
        ["m2", "m4", "m1s2", "m4s1", "0", "[4, 8]"],
    ),
    "numbers and helpers": (
        program(
            "days = [day_number(r['start'][:10]) for r in records if r['kind'] == 'meeting']",
            "weekdays = sorted({weekday(r['start']) for r in records if r['kind'] == 'meeting'})",
            "spread = abs(min(days) - max(days, default=0))",
            "return [str(spread), str(round(sum(days) / len(days) % 7, 1)), str(weekdays)]",
        ),
        ["2", "5.7", "[3, 5]"],
    ),
    "a nested recursive function and a walrus": (
        program(
            "def fib(n):",
            "    return n if n < 2 else fib(n - 1) + fib(n - 2)",
            "if (n := len(records)) > 5:",
            "    return str(fib(n))",
            "return None",
        ),
        "55",
    ),
    "isinstance with a tuple of types and any/all": (
        program(
            "kinds = [isinstance(r.get('partner'), (list, str)) for r in records]",
            "return [str(any(kinds)), str(all(kinds)), str(sum(kinds))]",
        ),
        ["True", "False", "4"],
    ),
    "identifiers beyond ASCII": (program("größe = len(records)", "return str(größe)"), "10"),
    "None": (program("return None"), None),
    "an empty list": (program("return []"), []),
}


@pytest.mark.parametrize("name", LEGITIMATE)
def test_a_legitimate_program_returns_its_value(name):
    code, expected = LEGITIMATE[name]
    assert check_program(code) is None
    result = run_program(code, RECORDS, AS_OF)
    assert result == ProgramResult(expected)
    assert result.ok


def test_many_programs_run_in_one_call_in_job_order():
    jobs = [(code, RECORDS, AS_OF) for code, _ in LEGITIMATE.values()]
    assert [r.value for r in run_programs(jobs)] == [v for _, v in LEGITIMATE.values()]
    assert run_programs([]) == []


def test_the_projects_definition_programs_pass_the_check():
    for d in SIX:
        assert check_program(definition_program(d)) is None, d.label


def project_jobs(seed: int, limit: int) -> list[tuple[str, list[dict[str, Any]], str]]:
    """The rule-based writer's programs for one world's gold points, with their live records."""
    w, d = world(seed), data(seed)
    branch = d["none"]
    states = list(snapshots(list(branch.branch.events), list(w.timeline.checkpoints)))
    jobs = []
    for p in branch.gold.points:
        if p.gold.status == "blocked" or p.item.free_text:
            continue
        live = sorted(
            (r for r in states[p.checkpoint].records.values() if r.source in p.item.gold_sources),
            key=lambda r: (r.updated, r.object_id),
        )
        rows = [
            {"object_id": r.object_id, "source": r.source, "kind": r.kind,
             "revision": r.revision, "updated": fmt(r.updated), "cluster": r.cluster,
             "text": r.text, **r.fields}
            for r in live
        ]  # fmt: skip
        jobs.append((item_program(ProgramRequest(p.item, p.gold.version, ())), rows, fmt(p.time)))
    return random.Random(seed).sample(jobs, min(limit, len(jobs)))


def test_the_projects_programs_compute_in_the_sandbox_what_they_compute_in_plain_python():
    jobs = project_jobs(1000, 60)
    assert len({code for code, _, _ in jobs}) > 10
    for (code, rows, as_of), result in zip(jobs, run_programs(jobs), strict=True):
        namespace = dict(HELPERS)
        exec(code, namespace)
        assert result == ProgramResult(namespace["derive"](rows, as_of)), code


def test_two_thousand_small_programs_in_one_batch():
    """Benchmark-shaped (2,000 programs over 200 records) but not timed: only the values count."""
    rng = random.Random(7)
    records = [
        chat(f"m{i}", f"2026-02-{1 + i % 14:02d} 10:00", rng.choice("abcd")) for i in range(200)
    ]
    counts = {p: sum(r["partner"] == p for r in records) for p in "abcd"}
    count = "sum(r['partner'] == p for r in records)"
    codes = [
        program(f"return sorted(p for p in 'abcd' if {count} >= {n % 70})") for n in range(2000)
    ]
    results = run_programs([(code, records, AS_OF) for code in codes])
    assert [r.value for r in results] == [
        sorted(p for p in counts if counts[p] >= n % 70) for n in range(2000)
    ]


# ---------------------------------------------------------------- failures and their details


def test_a_result_knows_whether_it_is_ok():
    assert ProgramResult("x").ok
    assert not ProgramResult(None, "timeout", "slow").ok
    assert set(FAILURE_KINDS) == {"syntax_error", "violation", "exception", "timeout", "memory",
                                  "wrong_type", "crash"}  # fmt: skip
    with pytest.raises(ValueError):
        ProgramResult(None, "bored")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("('a', 'b')", "tuple"),
        ("3", "int"),
        ("1.5", "float"),
        ("True", "bool"),
        ("{'a': 'b'}", "dict"),
        ("{'a'}", "set"),
        ("['a', 1]", "int"),
        ("[['a']]", "list"),
        ("[None]", "NoneType"),
        ("minutes", "function"),
        ("str", "type"),
        ("(x for x in [])", "generator"),
    ],
)
def test_a_value_of_the_wrong_type_is_named(value, shown):
    result = run_program(program(f"return {value}"), RECORDS, AS_OF)
    assert (result.failure, result.value) == ("wrong_type", None)
    assert f"a {shown};" in result.detail


def test_a_value_too_long_to_carry_back_is_refused():
    for value in ("'x' * 200_000", "[''] * 200_000"):
        result = run_program(program(f"return {value}"), RECORDS, AS_OF)
        assert result.failure == "wrong_type"
        assert "longer than" in result.detail


def test_an_exception_names_its_type_message_and_line():
    code = program("x = 1", "return str(records[0]['nope'])")
    assert run_program(code, RECORDS, AS_OF) == ProgramResult(
        None, "exception", "KeyError: 'nope' (line 3)"
    )
    zero = run_program(program("return str(1 // 0)"), RECORDS, AS_OF)
    assert zero.detail == "ZeroDivisionError: integer division or modulo by zero (line 2)"


def test_an_exception_detail_stays_short_whatever_it_holds():
    for raised in ("'x' * 10**6", "list(range(10**6))", "10**5000"):
        result = run_program(program(f"raise ValueError({raised})"), RECORDS, AS_OF)
        assert result.failure == "exception"
        assert result.detail.startswith("ValueError: ")
        assert len(result.detail) <= DETAIL_CHARS


def test_syntax_errors_and_violations_name_the_line():
    assert check_program("def derive(records, as_of):\n    return (\n") == (
        "line 2: '(' was never closed"
    )
    assert check_program(program("x = 1", "return x.__class__")) == (
        "line 3: the attribute '__class__' is not allowed"
    )
    assert run_program("def derive(records):\n    return None\n", RECORDS, AS_OF) == (
        ProgramResult(None, "violation", "derive must take exactly the parameters (records, as_of)")
    )
    result = run_program(program("for x in records:", "    pass", "break"), RECORDS, AS_OF)
    assert (result.failure, result.detail) == ("syntax_error", "line 4: 'break' outside loop")


def test_the_single_underscore_is_a_name_like_any_other():
    code = program("return [str(len([1 for _ in records]))]")
    assert run_program(code, RECORDS, AS_OF).value == ["10"]


def test_limits_must_be_positive_and_records_plain_data():
    with pytest.raises(ValueError):
        run_program(program("return None"), RECORDS, AS_OF, cpu_seconds=0)
    with pytest.raises(TypeError, match="plain data"):
        run_program(program("return None"), [{"when": datetime.date(2026, 1, 1)}], AS_OF)


# ---------------------------------------------------------------- isolation between programs


@pytest.fixture
def sandbox():
    with Sandbox(workers=1) as box:
        yield box


def worker_pid(box: Sandbox) -> int:
    worker = box.peek(0)
    assert worker is not None
    return worker.process.pid


def test_a_program_that_tampers_with_its_records_affects_no_later_program(sandbox):
    records = [dict(r) for r in RECORDS]
    tamper = program(
        "records[0]['partner'] = 'mallory'",
        "records.append({'object_id': 'evil'})",
        "records[1].clear()",
        "return str(len(records))",
    )
    look = program("return [str(len(records)), str(records[0]['partner']), str(len(records[1]))]")
    results = sandbox.run_programs([(tamper, records, AS_OF), (look, records, AS_OF)] * 3)
    assert [r.value for r in results] == ["11", ["10", "ann", "6"]] * 3
    assert records == RECORDS


def test_rebinding_builtins_and_helpers_stays_inside_the_program(sandbox):
    rebind = program(
        "len = lambda x: 42",
        "sorted = None",
        "minutes = lambda ts: 0",
        "return [str(len(records)), str(minutes(as_of))]",
    )
    use = program("return [str(len(records)), str(sorted([2, 1])), str(minutes(as_of))]")
    first, second = sandbox.run_programs([(rebind, RECORDS, AS_OF), (use, RECORDS, AS_OF)])
    assert first.value == ["42", "0"]
    assert second.value == ["10", "[1, 2]", str(HELPERS["minutes"](AS_OF))]


def test_the_order_of_a_set_is_the_same_in_every_worker():
    code = program("return list({str(n) + r['object_id'] for n in range(20) for r in records})")
    first = run_program(code, RECORDS, AS_OF).value
    with Sandbox(workers=1) as other:
        assert other.run_programs([(code, RECORDS, AS_OF)])[0].value == first


def test_names_outside_the_safe_builtins_do_not_exist():
    for name in ("map", "repr", "chr", "iter", "next", "frozenset", "slice", "HELPERS", "records_"):
        result = run_program(program(f"return str({name})"), RECORDS, AS_OF)
        assert result.failure == "exception"
        assert result.detail.startswith(f"NameError: name '{name}' is not defined")


def test_a_worker_serves_program_after_program_until_one_fails_hard(sandbox):
    sandbox.run_programs([(COUNTING, RECORDS, AS_OF)])
    pid = worker_pid(sandbox)
    failing = [program("return 1 // 0"), program("return 3"), program("return ('a',)")]
    results = sandbox.run_programs([(code, RECORDS, AS_OF) for code in failing * 20])
    assert {r.failure for r in results} == {"exception", "wrong_type"}
    assert worker_pid(sandbox) == pid


def test_a_worker_that_timed_out_ran_out_of_memory_or_crashed_is_replaced(sandbox):
    loop = program("while True:", "    pass")
    hog = program("return 'x' * 10**10")
    crash = program("t = ()", "for i in range(10**6):", "    t = (t,)", "return str(len({t}))")
    sandbox.run_programs([(COUNTING, RECORDS, AS_OF)])
    cases = ((loop, "timeout", 0.5), (hog, "memory", 2.0), (crash, "crash", 2.0))
    for code, kind, cpu_seconds in cases:
        pid = worker_pid(sandbox)
        jobs = [(code, RECORDS, AS_OF), (COUNTING, RECORDS, AS_OF)]
        failed, after = sandbox.run_programs(jobs, cpu_seconds=cpu_seconds)
        assert (failed.failure, after.value) == (kind, ["ann"])
        assert worker_pid(sandbox) != pid


def wait_until_dead(pid: int) -> None:
    stat = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + 10
    while stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_worker_killed_while_idle_is_replaced_without_blaming_the_next_program(sandbox):
    sandbox.run_programs([(COUNTING, RECORDS, AS_OF)])
    pid = worker_pid(sandbox)
    os.kill(pid, signal.SIGKILL)
    wait_until_dead(pid)
    assert sandbox.run_programs([(COUNTING, RECORDS, AS_OF)]) == [ProgramResult(["ann"])]
    assert worker_pid(sandbox) != pid


def test_a_dying_worker_writes_nothing_to_the_parents_output(capfd):
    crash = program("t = ()", "for i in range(10**6):", "    t = (t,)", "return str(len({t}))")
    assert run_program(crash, RECORDS, AS_OF).failure == "crash"
    assert capfd.readouterr() == ("", "")


def test_a_forked_child_uses_workers_of_its_own():
    assert run_program(COUNTING, RECORDS, AS_OF).value == ["ann"]
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        ok = run_program(COUNTING, RECORDS, AS_OF).value == ["ann"]
        os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert run_program(COUNTING, RECORDS, AS_OF).value == ["ann"]


def test_a_worker_that_cannot_start_is_an_error_not_a_program_failure(monkeypatch):
    monkeypatch.setattr(pool, "_worker_command", lambda _: [sys.executable, "-c", "1 / 0"])
    with Sandbox(workers=1) as box, pytest.raises(RuntimeError, match="ZeroDivisionError"):
        box.run_programs([(COUNTING, RECORDS, AS_OF)])


def test_the_shared_pool_runs_a_legitimate_program_after_everything_else():
    assert pool.run_program(COUNTING, RECORDS, AS_OF) == ProgramResult(["ann"])
