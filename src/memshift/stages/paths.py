"""Where each artifact of a world lives, and how systems are named."""

from __future__ import annotations

import re
from pathlib import Path

_CELL = re.compile(r"holdmem-d(?P<repair>[^-]+)-(?P<detection>[^+]+)")


def world_events(world_dir: Path) -> Path:
    return world_dir / "world.parquet"


def world_description(world_dir: Path) -> Path:
    return world_dir / "world.json"


def events(world_dir: Path, branch: str) -> Path:
    return world_dir / f"events-{branch}.parquet"


def shift(world_dir: Path, branch: str) -> Path:
    return world_dir / f"shift-{branch}.json"


def gold(world_dir: Path, branch: str) -> Path:
    return world_dir / f"gold-{branch}.parquet"


def probes(world_dir: Path, branch: str) -> Path:
    return world_dir / f"probes-{branch}.parquet"


def manifest(world_dir: Path) -> Path:
    return world_dir / "manifest.json"


def branch_files(world_dir: Path, branch: str) -> list[Path]:
    return [
        events(world_dir, branch),
        shift(world_dir, branch),
        gold(world_dir, branch),
        probes(world_dir, branch),
    ]


def run_world(results: Path, run: str, world: int) -> Path:
    return results / "runs" / run / f"w{world}"


def prefork(run_world_dir: Path) -> Path:
    return run_world_dir / "prefork-writes.parquet"


def system_dir(run_world_dir: Path, branch: str, system: str) -> Path:
    return run_world_dir / branch / system


def detection_system(detection: str) -> str:
    return f"holdmem-{detection}"


def cell_system(detection: str, repair: str) -> str:
    return f"holdmem-d{repair}-{detection}"


AUDITED = "+audit"


def audited_system(system: str) -> str:
    """The name under which `system`'s answers are scored after the answer-level audit."""
    return system + AUDITED


def audited_base(system: str) -> str | None:
    """The system whose answers `system` audits; None when it is not an audited system."""
    return system.removesuffix(AUDITED) if system.endswith(AUDITED) else None


def cell_parts(system: str) -> tuple[str, str] | None:
    """(repair, detection) of a HoldMem cell's name; None for any other system."""
    match = _CELL.fullmatch(system)
    return None if match is None else (match["repair"], match["detection"])
