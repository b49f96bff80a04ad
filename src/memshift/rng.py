"""Named, independent random streams.

Every generator component and every shift draws from its own stream, derived from the world seed
and a stable name, so that changing one component never moves the events of another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np


def stream(seed: int, name: str, salt: str = "") -> np.random.Generator:
    """The generator for component `name` of the world with this seed."""
    digest = hashlib.sha256(f"memshift|{seed}|{name}|{salt}".encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))


class Streams:
    """Hands out one stream per component name; `salts` lets a test perturb chosen components."""

    def __init__(self, seed: int, salts: Mapping[str, str] | None = None) -> None:
        self.seed = seed
        self._salts = dict(salts or {})

    def __call__(self, name: str) -> np.random.Generator:
        return stream(self.seed, name, self._salts.get(name, ""))
