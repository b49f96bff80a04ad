"""LightRAG (the `lightrag-hku` package, 1.5.7: `pip install -e .[native]`) behind the memory
interface, through its own public API (MemShift C.5).

Every source object is one LightRAG document whose id names the object: an insert is
`ainsert(text, ids=[id])`, a revision deletes the object's document (`adelete_by_doc_id`, which
also drops the entities and relations only it supported) and inserts the new text, a deletion
deletes it. A stated redefinition is a document of its own, replaced the same way. The events of
one `ingest` are collapsed to each object's last state and inserted in one call. A question is
`aquery` with `only_need_context=True`: the context LightRAG would give its own answering model
(entities, relations and document chunks, in its `mode`), one evidence line per line, is what the
shared reader reads. Its LLM and embedder are an OpenAI-compatible server (`native/endpoint.py`);
its stores are LightRAG's local files under `workdir`. A call that fails is the system's
behaviour: counted and logged, not retried."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memshift.errors import MemshiftError
from memshift.memory.interface import Cost, Question
from memshift.native.endpoint import Endpoint
from memshift.native.shared_text import definition_text, latest_documents
from memshift.world.records import PublicEvent

_PIECE = re.compile(r"\s*\S+|\s+")


class WordPieces:
    """A tokenizer for LightRAG's chunking and budgets that needs no download: a token is a word
    with the blanks before it, numbered as first seen; decoding joins them back exactly. LightRAG
    calls it from worker threads and deep-copies it, so it locks and copies as itself."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._pieces: list[str] = []
        self._lock = threading.Lock()

    def encode(self, content: str) -> list[int]:
        with self._lock:
            out = []
            for piece in _PIECE.findall(content):
                number = self._ids.get(piece)
                if number is None:
                    number = self._ids[piece] = len(self._pieces)
                    self._pieces.append(piece)
                out.append(number)
            return out

    def decode(self, tokens: list[int]) -> str:
        with self._lock:
            return "".join(self._pieces[t] for t in tokens)

    def __deepcopy__(self, memo: dict[int, Any]) -> WordPieces:
        return self


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    """LightRAG reads `./.env` when imported: import it from a directory that has none."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


class LightRAGMemory:
    """LightRAG for one branch of one world."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        embedder_model: str,
        embedding_dims: int,
        workdir: Path,
        api_key: str = "local",
        embedder_base_url: str = "",
        mode: str = "mix",
        top_k: int = 20,
    ) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        with _cwd(workdir):
            try:
                from lightrag import LightRAG, QueryParam
                from lightrag.utils import EmbeddingFunc, Tokenizer
            except ImportError as exc:
                raise MemshiftError(
                    "the LightRAG adapter needs the native extra: pip install -e .[native]"
                ) from exc
        # LightRAG logs every step of every document at INFO: keep its warnings and errors
        logging.getLogger("lightrag").setLevel(logging.WARNING)
        self._query_param = QueryParam
        self.endpoint = Endpoint(base_url, model, embedder_model, api_key, embedder_base_url)
        self.loop = asyncio.new_event_loop()
        self.rag = LightRAG(
            working_dir=str(workdir / "lightrag"),
            # LightRAG shares its stores' data process-wide by workspace: one per directory
            workspace=hashlib.sha256(str(workdir.resolve()).encode()).hexdigest()[:16],
            llm_model_func=self.endpoint.chat,
            llm_model_name=model,
            embedding_func=EmbeddingFunc(
                embedding_dim=embedding_dims, max_token_size=8192, func=self.endpoint.embed
            ),
            tokenizer=Tokenizer("word-pieces", WordPieces()),
            # one extraction call per chunk (no gleaning pass), no JSON mode, no reranker
            entity_extract_max_gleaning=0,
            entity_extraction_use_json=False,
            top_k=top_k,
            chunk_top_k=top_k,
            # documents merged one at a time: in parallel, the order of entries in a query's
            # context changes from run to run (seen on world 1002), and a replay diverges
            max_parallel_insert=1,
        )
        self.loop.run_until_complete(self.rag.initialize_storages())
        self.mode = mode
        self.top_k = top_k
        self.documents: dict[str, str] = {}  # object id -> the id of its live document
        self.failures: list[str] = []

    def _run(self, what: str, step: Any) -> Any:
        try:
            return self.loop.run_until_complete(step)
        except Exception as exc:
            self.failures.append(f"{what}: {type(exc).__name__}: {exc}"[:300])
            return None

    def _replace(self, latest: dict[str, tuple[str | None, str]]) -> None:
        """Each object's document replaced by its latest text (None: deleted). LightRAG reports a
        document it could not delete or process in its result and statuses, not by raising:
        both are read and counted."""
        for object_id in latest:
            old = self.documents.pop(object_id, None)
            if old is not None:
                done = self._run(f"delete {old}", self.rag.adelete_by_doc_id(old))
                if done is not None and done.status != "success":
                    self.failures.append(f"delete {old}: {done.status}: {done.message}"[:300])
        live = {o: (text, doc) for o, (text, doc) in latest.items() if text is not None}
        if not live:
            return
        ids = [doc for _, doc in live.values()]
        self._run(
            f"insert {len(ids)} documents", self.rag.ainsert([t for t, _ in live.values()], ids=ids)
        )
        statuses = self.statuses(ids)
        for doc in ids:
            status, reason = statuses.get(doc, ("missing", ""))
            if status != "processed":
                self.failures.append(f"insert {doc}: {status} {reason}".strip()[:300])
        self.documents.update({o: doc for o, (_, doc) in live.items()})

    def statuses(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """LightRAG's processing status of each document it holds, with its error message."""
        found = self._run("read statuses", self.rag.aget_docs_by_ids(list(ids))) or {}
        out = {}
        for doc, state in found.items():
            row = state if isinstance(state, dict) else vars(state)
            status = row.get("status")
            out[doc] = (str(getattr(status, "value", status)), str(row.get("error_msg") or ""))
        return out

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        self._replace(latest_documents(list(events)))

    def define(self, item_id: str, version: int, text: str) -> None:
        sentence = definition_text(item_id, text)
        self._replace({f"definition:{item_id}": (sentence, f"definition:{item_id}@{version}")})

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        """LightRAG keeps no agents or scopes: consent is not modelled (every agent is served)."""

    def set_writer(self, writer: object) -> None:
        raise MemshiftError("LightRAG's LLM is fixed when it is built; a writer switch cannot run")

    def query(self, question: Question) -> list[str]:
        param = self._query_param(
            mode=self.mode,
            only_need_context=True,
            enable_rerank=False,
            top_k=self.top_k,
            chunk_top_k=self.top_k,
        )
        context = self._run(f"query {question.probe_id}", self.rag.aquery(question.question, param))
        return [line for line in str(context or "").splitlines() if line.strip()]

    def export(self, path: Path) -> None:
        import json

        Path(path).write_text(json.dumps(self.documents, indent=2, sort_keys=True))

    def import_(self, path: Path) -> None:
        raise MemshiftError("LightRAG keeps its own store; an import cannot fill it")

    def cost(self) -> Cost:
        return Cost(calls=self.endpoint.calls["chat"])

    def close(self) -> None:
        """Flush LightRAG's stores, then stop the workers it leaves running on the loop."""
        self.loop.run_until_complete(self.rag.finalize_storages())
        self.loop.run_until_complete(self.endpoint.aclose())
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()
