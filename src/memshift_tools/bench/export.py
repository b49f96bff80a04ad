"""Benchmark: one world's HoldMem cells exported to Portable Memory and imported by the second
implementation (budget 2 s per world, the export issue)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from memshift.dataset import world_data
from memshift.memory.detection import prefork_writes
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.studies.export.imported import PortableHoldMem
from memshift.studies.export.portable import export_bundle, served_at_fork
from memshift.vocabulary import EXPORT_ARMS
from memshift.world.generate import World, generate_world
from memshift.world.records import PublicEvent, public_view
from memshift_tools.bench.common import median, runs_text

BUDGET_S = 2.0
CELLS = (("append", "0"), ("append", "1"), ("source", "0"), ("source", "1"))
RULES = Profile("rules", "rules")


def export_and_import(world: World, events: list[PublicEvent], prefork: list, out: Path) -> int:
    """Every cell of CELLS in both arms: export, validate, import. Returns the bundles made."""
    made = 0
    for detection, repair in CELLS:
        served = served_at_fork(world, events, prefork, detection, repair, ModelClient(RULES))
        for arm in EXPORT_ARMS:
            bundle = out / f"d{repair}-{detection}-{arm}.mem"
            export_bundle(served, arm == "ext", bundle, world.timeline.fork)
            PortableHoldMem(world.items).import_(bundle)
            made += 1
    return made


def section(runs: int) -> list[str]:
    seeds = list(range(1000, 1000 + runs))
    times = []
    bundles = 0
    for seed in seeds:
        world = generate_world(seed)
        events = list(public_view(world_data(world, ("none",))["none"].branch.events))
        prefork = prefork_writes(world, events, ModelClient(RULES), CallContext(world=seed))
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            bundles = export_and_import(world, events, prefork, Path(tmp))
            times.append(time.perf_counter() - start)
    verdict = "within" if median(times) <= BUDGET_S else "OVER"
    return [
        "## Export to Portable Memory and import",
        "",
        f"Budget: {BUDGET_S:.0f} s per world. Seeds {seeds[0]}-{seeds[-1]}, one run each: the "
        f"{len(CELLS)} cells D in {{0, 1}} x B in {{append, source}}, each exported with and "
        f"without the derivation extension ({bundles} bundles), validated by the package and "
        "imported by the second implementation.",
        "",
        "| what | median | runs |",
        "|---|---|---|",
        f"| export, validate and import of one world's cells | {median(times):.2f} s | "
        f"{runs_text(times)} |",
        "",
        f"That is {verdict} budget ({median(times) / BUDGET_S:.0%} of it).",
        "",
    ]
