"""A world's artifacts read back: the world, and a branch's events as the generator wrote them
or as memory systems see them."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import read_json, read_table
from memshift.world.generate import World
from memshift.world.records import Event, PublicEvent, public_view
from memshift.world.tables import table_to_events, world_from_description


def load(world_dir: Path, *, with_events: bool = True) -> World:
    """The world; without its base events when a stage reads a branch's events instead."""
    events = (
        table_to_events(read_table(layout.world_events(world_dir), schemas.EVENTS))
        if with_events
        else []
    )
    return world_from_description(read_json(layout.world_description(world_dir)), events)


def load_events(world_dir: Path, branch: str) -> list[Event]:
    return table_to_events(read_table(layout.events(world_dir, branch), schemas.EVENTS))


def load_public_events(world_dir: Path, branch: str) -> list[PublicEvent]:
    """A branch's events as memory systems see them, without the generator's annotations."""
    return public_view(load_events(world_dir, branch))
