"""Stage `world`: generate one world's base events and description."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import write_json, write_table
from memshift.definitions.catalog import FIXED_SET
from memshift.world.generate import World, generate_world
from memshift.world.tables import events_to_table, world_description
from memshift.world.timeline import Timeline


def run(seed: int, world_dir: Path, history_months: int = 9, definitions: str = FIXED_SET) -> World:
    world = generate_world(seed, Timeline(history_months), definitions=definitions)
    write_table(
        events_to_table(world.events, world=seed, branch="base"),
        schemas.EVENTS,
        layout.world_events(world_dir),
    )
    write_json(world_description(world), layout.world_description(world_dir))
    return world
