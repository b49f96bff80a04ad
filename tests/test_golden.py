"""Golden worlds, pinned byte for byte: the artifacts of two worlds hash to recorded values.

If a change to the generator is intended, bump GENERATOR_VERSION and re-record with
`python tests/test_golden.py --update`; an unintended change fails here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memshift.artifacts import sha256
from memshift.stages.chain import build_world
from memshift.world.generate import GENERATOR_VERSION

GOLDEN = Path(__file__).parent / "data" / "golden-worlds.json"
SEEDS = (0, 1000)


def build(seed: int, root: Path) -> dict[str, str]:
    world_dir = root / f"w{seed}"
    build_world(seed, world_dir)
    return {p.name: sha256(p) for p in sorted(world_dir.iterdir())}


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_world_is_byte_identical(seed, tmp_path):
    recorded = json.loads(GOLDEN.read_text())
    assert recorded["generator_version"] == GENERATOR_VERSION
    assert build(seed, tmp_path) == recorded["worlds"][str(seed)]


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        worlds = {str(s): build(s, Path(tmp)) for s in SEEDS}
    GOLDEN.write_text(
        json.dumps(
            {"generator_version": GENERATOR_VERSION, "worlds": worlds}, indent=2, sort_keys=True
        )
        + "\n"
    )
    print(f"recorded {GOLDEN}")
