"""A worker's memory is bounded per worker, not only per program, and what a program returns or
raises can always be stored.

A worker used to keep every program's reference cycles: six programs within the 256 MB cap grew
one worker to more than 900 MB, and each program's cap moved up with the garbage before it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memshift.sandbox import ProgramResult, Sandbox
from memshift.sandbox.result import DETAIL_CHARS

AS_OF = "2026-03-01 12:00"
MB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")
# What these tests check is memory; a loaded machine must not turn a slow allocation into a
# CPU-time kill.
ROOMY = {"cpu_seconds": 30.0, "wall_seconds": 120.0}

# Each leaves 150-200 MB of reference cycles behind, well within its 256 MB, in a few large
# objects: too few allocations for the collector to run by itself.
CYCLES = {
    "a list that holds itself": "a = [0] * 25_000_000\na.append(a)",
    "huge strings in a cycle": "a = ['x' * 1000 + str(i) for i in range(150_000)]\na.append(a)",
    "a closure over a huge list": "big = [0] * 25_000_000\ndef f():\n    return big, f",
}


def program(*lines: str) -> str:
    body = "\n".join(lines).replace("\n", "\n    ")
    return f"def derive(records, as_of):\n    {body}\n"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(workers=1) as box:
        yield box


def worker_pid(box: Sandbox) -> int:
    worker = box.peek(0)
    assert worker is not None
    return worker.process.pid


def resident(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


@pytest.mark.parametrize("garbage", CYCLES, ids=list(CYCLES))
def test_reference_cycles_do_not_pile_up_in_a_worker(sandbox: Sandbox, garbage: str):
    code = program(CYCLES[garbage], "return 'ok'")
    sandbox.run_programs([(code, [], AS_OF)], **ROOMY)
    pid = worker_pid(sandbox)
    start = resident(pid)
    for _ in range(6):  # 1.2 GB of garbage in all
        assert sandbox.run_programs([(code, [], AS_OF)], **ROOMY) == [ProgramResult("ok")]
        assert resident(pid) - start < 64 * MB
    assert worker_pid(sandbox) == pid  # collected, so never outgrown


def test_a_worker_is_replaced_after_recycle_after_programs():
    code = program("return 'ok'")
    with Sandbox(workers=1, recycle_after=3) as box:
        pids = []
        for _ in range(7):
            box.run_programs([(code, [], AS_OF)])
            worker = box.peek(0)
            pids.append(worker.process.pid if worker else None)
    assert pids[:2] == [pids[0]] * 2 and pids[2] is None
    assert pids[3] == pids[4] != pids[0] and pids[5] is None


def test_a_worker_grown_past_the_bound_is_replaced_and_one_within_it_kept():
    records = [{"text": "x" * (12 * MB)}]  # the worker keeps the last records it was sent
    code = program("return str(len(records[0]['text']))")
    for bound, replaced in ((4, True), (64, False)):
        with Sandbox(workers=1, recycle_mb=bound) as box:
            assert box.run_programs([(code, records, AS_OF)]) == [ProgramResult(str(12 * MB))]
            assert (box.peek(0) is None) == replaced


def hard_address_space(pid: int) -> str:
    limits = Path(f"/proc/{pid}/limits").read_text().splitlines()
    return next(line.split()[4] for line in limits if line.startswith("Max address space"))


def test_the_kernel_caps_a_workers_address_space_at_its_bound_plus_one_program():
    with Sandbox(workers=1, recycle_mb=100) as box:
        box.run_programs([(program("return 'ok'"), [], AS_OF)], memory_mb=200)
        worker = box.peek(0)
        assert worker is not None
        ceiling = int(hard_address_space(worker.process.pid))
        assert abs(ceiling - (worker.start_size + 300 * MB)) < 8 * MB


def test_a_larger_memory_cap_gets_a_worker_that_may_grow_enough(sandbox: Sandbox):
    hog = program("a = [0] * 60_000_000", "return str(len(a))")  # 480 MB
    small = program("return 'ok'")
    sandbox.run_programs([(small, [], AS_OF)], memory_mb=64)
    first = worker_pid(sandbox)
    hogged = sandbox.run_programs([(hog, [], AS_OF)], memory_mb=600, **ROOMY)
    assert hogged == [ProgramResult("60000000")]
    second = worker_pid(sandbox)
    sandbox.run_programs([(small, [], AS_OF)], memory_mb=64)
    assert second != first
    assert worker_pid(sandbox) == second


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("'caf\\udce9'", "(U+DCE9 at character 3)"),
        ("['ok', '\\ud800']", "(U+D800 at character 0) of string 1"),
        ("'\\ud83d\\ude00'", "(U+D83D at character 0)"),  # a pair written as two escapes
    ],
)
def test_a_value_with_a_lone_surrogate_is_refused_as_not_storable(
    sandbox: Sandbox, value: str, where: str
):
    result = sandbox.run_programs([(program(f"return {value}"), [], AS_OF)])[0]
    assert result.failure == "wrong_type"
    assert where in result.detail and "cannot be stored" in result.detail
    legit = program("return 'caf\\u00e9'")
    assert sandbox.run_programs([(legit, [], AS_OF)]) == [ProgramResult("café")]


def test_an_exception_with_a_lone_surrogate_leaves_a_storable_detail(sandbox: Sandbox):
    code = program("raise ValueError('bad \\udcff' * 200)")
    result = sandbox.run_programs([(code, [], AS_OF)])[0]
    assert result.failure == "exception"
    assert result.detail.startswith("ValueError: bad \\udcffbad")
    assert result.detail.encode("utf-8")
    assert len(result.detail) <= DETAIL_CHARS
