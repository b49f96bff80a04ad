"""Stage `world`: generate one world's base events and description."""

from __future__ import annotations

from pathlib import Path

from memshift import schemas
from memshift.artifacts import read_json, read_table, write_json, write_table
from memshift.stages import paths
from memshift.world.generate import World, generate_world
from memshift.world.records import Event, PublicEvent, public_view
from memshift.world.tables import (
    events_to_table,
    table_to_events,
    world_description,
    world_from_description,
)
from memshift.world.timeline import Timeline


def run(seed: int, world_dir: Path, history_months: int = 9) -> World:
    world = generate_world(seed, Timeline(history_months))
    write_table(
        events_to_table(world.events, world=seed, branch="base"),
        schemas.EVENTS,
        paths.world_events(world_dir),
    )
    write_json(world_description(world), paths.world_description(world_dir))
    return world


def load(world_dir: Path, *, with_events: bool = True) -> World:
    """The world; without its base events when a stage reads a branch's events instead."""
    events = (
        table_to_events(read_table(paths.world_events(world_dir), schemas.EVENTS))
        if with_events
        else []
    )
    return world_from_description(read_json(paths.world_description(world_dir)), events)


def load_events(world_dir: Path, branch: str) -> list[Event]:
    return table_to_events(read_table(paths.events(world_dir, branch), schemas.EVENTS))


def load_public_events(world_dir: Path, branch: str) -> list[PublicEvent]:
    """A branch's events as memory systems see them, without the generator's annotations."""
    return public_view(load_events(world_dir, branch))
