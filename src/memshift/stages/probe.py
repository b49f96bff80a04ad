"""Stage `probe`: every probe of a branch asked of one system, answered by the shared reader."""

from __future__ import annotations

from pathlib import Path

from memshift import schemas
from memshift.artifacts import read_table, write_table
from memshift.gold.tables import dependencies
from memshift.memory.baselines import NoStoreBM25, OracleContext, PlainRAG
from memshift.memory.interface import MemorySystem, system_class
from memshift.memory.reading import StoreServer, answer, drive, questions
from memshift.memory.tables import table_to_evidence
from memshift.models.calllog import CallLog
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.stages import paths
from memshift.stages.world import load, load_public_events
from memshift.world.generate import World

BASELINES = ("bm25", "rag", "oracle")


def system_for(
    world: World,
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    spec: str | None,
    embedder: str = "wordllama",
    embedding_cache: Path | None = None,
) -> MemorySystem:
    if spec is not None:
        return system_class(spec)()
    if system == "bm25":
        return NoStoreBM25()
    if system == "oracle":
        return OracleContext(dependencies(read_table(paths.gold(world_dir, branch), schemas.GOLD)))
    if system == "rag":
        from memshift.memory.dense import dense_ranker

        return PlainRAG(dense_ranker(embedding_cache, embedder))
    store = read_table(
        paths.system_dir(run_world_dir, branch, system) / "store.parquet", schemas.STORE
    )
    return StoreServer(table_to_evidence(store), world.timeline.checkpoints)


def run(
    world_dir: Path,
    run_world_dir: Path,
    branch: str,
    system: str,
    profile: Profile,
    cache_dir: Path | None,
    spec: str | None = None,
    embedder: str = "wordllama",
    embedding_cache: Path | None = None,
) -> int:
    world = load(world_dir, with_events=False)
    probes = read_table(paths.probes(world_dir, branch), schemas.PROBES)
    memory = system_for(
        world, world_dir, run_world_dir, branch, system, spec, embedder, embedding_cache
    )
    asked = drive(
        memory,
        load_public_events(world_dir, branch),
        world.timeline.checkpoints,
        questions(probes, world.items),
    )
    log = CallLog()
    reader = ModelClient(profile, cache_dir=cache_dir, log=log)
    table = answer(asked, reader, world=world.seed, branch=branch, system=system, run=profile.name)
    out = paths.system_dir(run_world_dir, branch, system)
    write_table(table, schemas.ANSWERS, out / "answers.parquet")
    log.write(out / "calls-reader.parquet")
    return table.num_rows
