"""An adapter of the native tests, its LLM and embedder the local server: the scripted stand-in
answers the library's prompts, embeddings are the server's hashed words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memshift.memory.reading import drive, questions
from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import STAND_IN_EMBEDDER

STAND_IN = {"model": "stand-in", **STAND_IN_EMBEDDER}


def on_server(adapter: type, server: LocalServer, workdir: Path, **options: Any) -> Any:
    """`adapter` (Mem0Memory, LightRAGMemory) built against `server`, its stores in `workdir`."""
    return adapter(base_url=f"{server.url}/v1", workdir=workdir, **STAND_IN, **options)


def followed(
    adapter: type,
    events: Any,
    world: Any,
    probes: Any,
    server: LocalServer,
    workdir: Path,
    **options: Any,
) -> tuple[Any, list[Any], Any]:
    """`adapter` on `server` follows `events` and is asked `probes` at the world's checkpoints:
    (the memory, what was asked, what its export held at the end)."""
    memory = on_server(adapter, server, workdir, **options)
    try:
        asked = drive(memory, events, world.timeline.checkpoints, questions(probes, world.items))
        memory.export(workdir / "export.json")
    finally:
        memory.close()
    return memory, asked, json.loads((workdir / "export.json").read_text())
