from __future__ import annotations

from functools import cache

import pytest

from memshift.dataset import BranchData, world_data
from memshift.world.generate import World, generate_world


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
