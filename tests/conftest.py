from __future__ import annotations

from functools import cache

import pytest

from memshift.dataset import BranchData, world_data
from memshift.world.generate import World, generate_world


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that say how many minutes they take run first, longest first: `make test` runs
    on two workers, and a long test that starts late leaves the other core idle at the end."""
    items.sort(key=lambda item: -_minutes(item))


def _minutes(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    return float(marker.kwargs.get("minutes", 0)) if marker is not None else 0.0


@cache
def world(seed: int) -> World:
    return generate_world(seed)


@cache
def data(seed: int) -> dict[str, BranchData]:
    return world_data(world(seed))


@pytest.fixture(scope="session")
def world_1000() -> World:
    return world(1000)


@pytest.fixture(scope="session")
def data_1000() -> dict[str, BranchData]:
    return data(1000)
