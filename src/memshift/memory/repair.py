"""Repair (D) applied to a cell's writes; detection is already fixed by then.

- D=0: every write is served as the writer wrote it.
- D=1: the writer's value is checked against the live records through the quotes it cites (for a
  definition item, against the evaluator that computes gold). If the check fails, exact
  recomputation supplies the value, stated with a fixed template naming the definition version;
  free-text items have no recomputation rule, so a failed check leaves them unverifiable and
  unserved.
- check (the check-only control, MemShift C.2): D=1's check without its recomputation; a value
  that fails the check leaves the item unverifiable and unserved.
- json (the JSON arm, C.1): D=1's store, each item served as one JSON record instead of a
  statement.
- tmpl (the template control, C.4): D=0's value, stated in the template D=1 uses for a
  recomputed value.
- D=m: the writer's own programs, one per item and definition version, run on typed records in
  the restricted interpreter. A definition item's value passes if it equals its program's output,
  else the output replaces it; other items keep the span check of D=1 and the output replaces a
  failed value; a program that fails when its output is needed leaves the item unverifiable.
- w (the user's words, F.4): D=m with programs written from the definitions as the person
  phrases them (definitions/words.py).

The pre-fork store is served as written in every cell, so before any shift every cell shows the
reader the same context.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from memshift import statements
from memshift.gold.evaluator import Value, evaluate
from memshift.memory.programs import ProgramRunner as Programs
from memshift.memory.programs import source_records
from memshift.memory.stored import StoredItem, as_value, serve
from memshift.memory.writes import WriteRecord
from memshift.vocabulary import CHECK_ONLY, JSON_ARM, PROGRAM_WORDING, REPAIRS, TEMPLATE
from memshift.world.generate import World
from memshift.world.items import Item
from memshift.world.records import LiveState, PublicEvent, Record, snapshots


def _facts(value: Value) -> list[str]:
    if value is None:
        return []
    return list(value) if isinstance(value, tuple) else [value]


def render_written(item: Item, write: WriteRecord) -> str:
    evidence = "; ".join(
        f'{c["object_id"]} r{c["revision"]}: "{c["quote"]}"' for c in write.citations
    )
    tail = f" Evidence: {evidence}" if evidence else ""
    return f"[{item.label} | written {write.time:%Y-%m-%d}] {write.statement}{tail}"


def render_computed(
    item: Item,
    when: datetime,
    value: Value,
    version: int,
    sources: Sequence[tuple[str, int]],
    how: str,
) -> str:
    definition = f"{item.item_id.removeprefix('def.')} v{version}" if item.is_definition else None
    body = statements.render(
        item.label,
        when.date(),
        value,
        is_set=item.value_type == "entity_set",
        definition=definition,
    )
    cited = "; ".join(f"{oid} r{rev}" for oid, rev in list(sources)[:6]) or "no records"
    return f"[{item.label} | written {when:%Y-%m-%d}] {body} ({how} from {cited})"


def render_program(
    item: Item, when: datetime, value: Value, version: int, live: Sequence[Record]
) -> str:
    """A value the writer's program computed on `live` (the records it read, oldest first)."""
    used = [(r.object_id, r.revision) for r in live]
    return render_computed(
        item, when, value, version, used[-6:], "computed by the writer's own program"
    )


def render_json(item: Item, write: WriteRecord, stored: StoredItem) -> str:
    """A stored item as one JSON record (the JSON arm): the item, the date it holds as of, its
    value and status, the definition version for a definition item, the records it rests on."""
    record = {
        "item": item.label,
        "as_of": f"{write.time:%Y-%m-%d}",
        "status": "abstain" if stored.value is None else "answer",
        "value": list(stored.value) if isinstance(stored.value, tuple) else stored.value,
        "definition": (
            f"{item.item_id.removeprefix('def.')} v{write.version}" if item.is_definition else None
        ),
        "sources": [f"{c['object_id']} r{c['revision']}" for c in write.citations][:6],
    }
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def span_check(item: Item, write: WriteRecord, state: LiveState) -> bool:
    """Every fact of the value lies in a quote that is found verbatim in its cited live record."""
    value = as_value(write.value)
    if write.failure or value is None or not write.citations:
        return False
    located = [
        c["quote"]
        for c in write.citations
        if c["object_id"] in state.records and c["quote"] in state.records[c["object_id"]].text
    ]
    return bool(located) and all(any(f in q for q in located) for f in _facts(value))


ProgramRunner = Callable[[Item, int, Sequence[Record], datetime], tuple[bool, Value, str]]


class Repairer:
    def __init__(
        self, items: Sequence[Item], repair: str, programs: ProgramRunner | None = None
    ) -> None:
        if repair not in REPAIRS:
            raise ValueError(f"unknown repair {repair!r}; choose one of {REPAIRS}")
        if repair in PROGRAM_WORDING and programs is None:
            raise ValueError(f"repair {repair} needs a program runner")
        self.items = {i.item_id: i for i in items}
        self.repair = repair
        self.programs = programs

    def apply(self, write: WriteRecord, state: LiveState) -> StoredItem:
        """The stored item of `write` after this repair, with the scopes the write read and
        cited (`state`: the records as they were when it was written)."""
        return replace(
            self._repaired(write, state),
            read_scopes=scopes_of((oid for oid, _ in write.selection), state),
            cited_scopes=scopes_of((c["object_id"] for c in write.citations), state),
        )

    def _repaired(self, write: WriteRecord, state: LiveState) -> StoredItem:
        item = self.items[write.item_id]
        written = StoredItem(
            write.write_id,
            item.item_id,
            "writer",
            write.failure is None,
            "not_checked",
            as_value(write.value),
            render_written(item, write),
        )
        if write.kind == "prefork" or self.repair == "0":
            return written
        if self.repair == "1":
            return self._exact(item, write, state, written)
        if self.repair == CHECK_ONLY:
            if self._passes(item, write, state):
                return _checked(written, "passed")
            return _unverifiable(written, "failed")
        if self.repair == JSON_ARM:
            exact = self._exact(item, write, state, written)
            return replace(exact, text=render_json(item, write, exact))
        if self.repair == TEMPLATE:
            sources = [(c["object_id"], int(c["revision"])) for c in write.citations]
            text = render_computed(
                item, write.time, written.value, write.version, sources, "derived by the writer"
            )
            return replace(written, text=text)
        return self._programs(item, write, state, written)

    def _passes(self, item: Item, write: WriteRecord, state: LiveState) -> bool:
        """D=1's check: a definition item's value against the evaluator, any other item's
        against its cited quotes."""
        if item.is_definition:
            gold = evaluate(item, state.records.values(), write.time, version=write.version)
            return write.failure is None and as_value(write.value) == (
                gold.value if gold.status == "answer" else None
            )
        return span_check(item, write, state)

    def _exact(
        self, item: Item, write: WriteRecord, state: LiveState, written: StoredItem
    ) -> StoredItem:
        if self._passes(item, write, state):
            return _checked(written, "passed")
        if item.free_text:
            return _unverifiable(written, "failed")
        gold = evaluate(item, state.records.values(), write.time, version=write.version)
        value = gold.value if gold.status == "answer" else None
        text = render_computed(
            item, write.time, value, write.version, gold.deps, "programmatic extraction"
        )
        return StoredItem(write.write_id, item.item_id, "recomputed", True, "failed", value, text)

    def _programs(
        self, item: Item, write: WriteRecord, state: LiveState, written: StoredItem
    ) -> StoredItem:
        if item.free_text:
            return (
                _checked(written, "passed")
                if span_check(item, write, state)
                else (_unverifiable(written, "failed"))
            )
        if not item.is_definition and span_check(item, write, state):
            return _checked(written, "passed")
        assert self.programs is not None
        live = source_records(item, state.records.values())
        ok, value, _ = self.programs(item, write.version, live, write.time)
        if not ok:
            return _unverifiable(written, "program_failed")
        if item.is_definition and write.failure is None and as_value(write.value) == value:
            return _checked(written, "program_agreed")
        text = render_program(item, write.time, value, write.version, live)
        return StoredItem(
            write.write_id, item.item_id, "program", True, "program_replaced", value, text
        )


def _checked(stored: StoredItem, check: str) -> StoredItem:
    return replace(stored, check=check)


def _unverifiable(stored: StoredItem, check: str) -> StoredItem:
    return replace(stored, served=False, check=check)


def scopes_of(object_ids: Iterable[str], state: LiveState) -> tuple[str, ...]:
    """The sources (scopes) of the live records among `object_ids`."""
    return tuple(sorted({state.records[oid].source for oid in object_ids if oid in state.records}))


def branch_states(world: World, events: Sequence[PublicEvent]) -> list[LiveState]:
    """The live records of a branch at each checkpoint: what every cell's repair reads."""
    return list(snapshots(list(events), list(world.timeline.checkpoints)))


def run_repair(
    world: World,
    states: Sequence[LiveState],
    writes: Sequence[WriteRecord],
    served: dict[int, dict[str, list[str]]] | dict[int, dict[str, tuple[str, ...]]],
    repair: str,
    programs: Programs | None = None,
) -> dict[int, dict[str, list[StoredItem]]]:
    if programs is not None:
        programs.prepare([(w.item_id, w.version) for w in writes if w.kind != "prefork"])
    repairer = Repairer(world.items, repair, programs)
    stored = {w.write_id: repairer.apply(w, states[w.checkpoint]) for w in writes}
    return serve(served, stored)
