"""Stage `branches`: fork a world into one branch."""

from __future__ import annotations

from pathlib import Path

from memshift import layout, schemas
from memshift.artifacts import write_json, write_table
from memshift.branches import Branch, make_branch
from memshift.world.stored import load
from memshift.world.tables import events_to_table


def run(world_dir: Path, branch: str) -> Branch:
    world = load(world_dir)
    result = make_branch(world, branch)
    write_table(
        events_to_table(result.events, world=world.seed, branch=branch),
        schemas.EVENTS,
        layout.events(world_dir, branch),
    )
    write_json(
        {
            "branch": branch,
            "touched_items": list(result.touched_items),
            "shift_events": len(result.shift_events),
        },
        layout.shift(world_dir, branch),
    )
    return result
