"""`SearchAdapter`: an add/search system named in a study config runs as a custom system does,
through the config check, the probe stage's constructor, the driver and the shared reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from cellrun import answers_of, public_events

from conftest import world
from memshift.config import check_custom_systems
from memshift.errors import ConfigError, MemshiftError
from memshift.memory.interface import SearchAdapter, SystemInputs
from memshift.memory.named import system_for

SEED = 1000
SPEC = "word_search:WordSearchMemory"


def built(branch: str, tmp_path: Path):
    """The system as the probe stage builds a custom one (the directories are not read)."""
    checkpoints = tuple(world(SEED).timeline.checkpoints)
    return system_for(SystemInputs(tmp_path, tmp_path, branch, "search", checkpoints), SPEC)


@pytest.mark.parametrize("branch", ["def", "del", "cons"])
def test_an_add_search_system_runs_through_the_custom_system_path(branch: str, tmp_path: Path):
    check_custom_systems({"search": SPEC})
    system = built(branch, tmp_path)
    rows = answers_of(system, SEED, branch, name="search")
    assert rows
    assert all(r["status"] != "blocked" for r in rows)  # consent is not modelled
    assert any(r["status"] == "answer" and r["value"] for r in rows)
    assert all(r["evidence_items"] <= 10 for r in rows)
    backend = system.backend
    last = world(SEED).timeline.checkpoints[-1]
    events = [e for e in public_events(SEED, branch) if e.time <= last]
    # Every event up to the last checkpoint reaches the backend, in time order: a record's text
    # with its identity, a deletion or a definition as a note.
    added = [e for e in events if e.op in ("insert", "update")]
    by_record = [m for m in backend.metadata if "revision" in m]
    assert by_record == [{"object_id": e.object_id, "revision": str(e.revision)} for e in added]
    notes = {
        "delete": [t for t in backend.texts if t.endswith(" was deleted.")],
        "define": [t for t in backend.texts if t.startswith("Definition ")],
    }
    for op, texts in notes.items():
        assert len(texts) == sum(e.op == op for e in events)
    shift = {"def": "define", "del": "delete"}.get(branch)
    assert shift is None or notes[shift]
    assert system.cost().calls == 0


def test_a_query_returns_what_search_retrieves_newest_last(tmp_path: Path):
    system = built("none", tmp_path)
    system.backend.add("the city is Oslo", {})
    system.backend.add("the city is Lima", {})
    question = type("Q", (), {"question": "which city"})()
    assert system.query(question) == ["the city is Oslo", "the city is Lima"]
    with pytest.raises(MemshiftError):
        system.export(tmp_path / "bundle")


def test_the_adapter_itself_is_not_a_system_to_name():
    # Its constructor needs the backend: a study names a subclass that supplies one.
    assert SearchAdapter.__init__.__code__.co_argcount == 3
    with pytest.raises(ConfigError, match="without arguments"):
        check_custom_systems({"search": "memshift.memory.interface:SearchAdapter"})
