from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from memshift.dataset import BranchData, world_data
from memshift.vocabulary import BRANCHES
from memshift.world.generate import GENERATOR_VERSION, World, generate_world


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that say how many minutes they take run first, longest first: `make test` runs
    on two workers, and a long test that starts late leaves the other core idle at the end."""
    items.sort(key=lambda item: -_minutes(item))


def _minutes(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    return float(marker.kwargs.get("minutes", 0)) if marker is not None else 0.0


SHARED_WORLDS = "MEMSHIFT_TEST_WORLDS"


def pytest_configure(config: pytest.Config) -> None:
    """A folder the run's workers share (`pytest -n` starts them with this process's
    environment): a world one worker built, another reads back (a second in generating, a few
    hundredths in reading) instead of building it again."""
    if not hasattr(config, "workerinput") and SHARED_WORLDS not in os.environ:
        os.environ[SHARED_WORLDS] = tempfile.mkdtemp(prefix="memshift-test-worlds-")
        config.stash[_OWNED] = os.environ[SHARED_WORLDS]


def pytest_unconfigure(config: pytest.Config) -> None:
    owned = config.stash.get(_OWNED, None)
    if owned is not None:
        shutil.rmtree(owned, ignore_errors=True)
        os.environ.pop(SHARED_WORLDS, None)


_OWNED = pytest.StashKey[str]()


_WORLDS: dict[int, World] = {}


def world(seed: int) -> World:
    """The world of a seed, built once per run (`pytest -n`: once over all workers)."""
    if seed not in _WORLDS:
        shared = os.environ.get(SHARED_WORLDS)
        built = generate_world(seed) if shared is None else _shared(Path(shared), seed, wait=True)
        assert built is not None
        _WORLDS[seed] = built
    return _WORLDS[seed]


def worlds(seeds: Iterable[int]) -> list[World]:
    """The seeds' worlds. A world another worker is building is skipped and read back at the
    end, so two workers asking for the same worlds at once split them between them instead of
    each waiting for the other's."""
    seeds = list(seeds)
    shared = os.environ.get(SHARED_WORLDS)
    for seed in seeds:
        if shared is not None and seed not in _WORLDS:
            found = _shared(Path(shared), seed, wait=False)
            if found is not None:
                _WORLDS[seed] = found
    return [world(seed) for seed in seeds]


def _shared(folder: Path, seed: int, *, wait: bool) -> World | None:
    """The world from the run's shared folder, built there first if no worker has yet; None if
    another worker is building it and `wait` is false."""
    path = folder / f"w{seed}-{GENERATOR_VERSION}.pickle"
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if path.exists():
            return pickle.loads(path.read_bytes())
        built = generate_world(seed)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(partial, path)  # whole or absent: a worker never reads half a world
        return built


_BUILT: dict[int, dict[str, BranchData]] = {}


def data(seed: int) -> dict[str, BranchData]:
    """Every branch of a world, built once per session."""
    found = _BUILT.get(seed)
    if found is None or set(found) != set(BRANCHES):
        found = _BUILT[seed] = world_data(world(seed))
    return found


def unshifted(seed: int) -> BranchData:
    """The unshifted branch, without building the others unless a test already has."""
    if seed not in _BUILT:
        _BUILT[seed] = world_data(world(seed), ("none",))
    return _BUILT[seed]["none"]


@pytest.fixture(scope="session")
def world_1000() -> World:
    return world(1000)


@pytest.fixture(scope="session")
def data_1000() -> dict[str, BranchData]:
    return data(1000)


def finishes(call: Callable[[], Any], seconds: float = 60.0) -> Any:
    """`call()` on a thread of its own: its result, or a failed test if it runs longer than
    `seconds` (a regression fails, it does not hang the suite)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
