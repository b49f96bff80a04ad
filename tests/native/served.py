"""An adapter of the native tests, its LLM and embedder the local server: the scripted stand-in
answers the library's prompts, embeddings are the server's hashed words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memshift_tools.localserver import LocalServer
from memshift_tools.stand_ins import STAND_IN_EMBEDDER

STAND_IN = {"model": "stand-in", **STAND_IN_EMBEDDER}


def on_server(adapter: type, server: LocalServer, workdir: Path, **options: Any) -> Any:
    """`adapter` (Mem0Memory, LightRAGMemory) built against `server`, its stores in `workdir`."""
    return adapter(base_url=f"{server.url}/v1", workdir=workdir, **STAND_IN, **options)
