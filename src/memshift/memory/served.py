"""A HoldMem cell at probing time: the statements its store holds after maintenance and repair,
served per checkpoint and item, read from the cell's store table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.memory.interface import Blocked, Consents, Cost, Question, SystemInputs
from memshift.memory.store_tables import table_to_evidence, table_to_scopes
from memshift.vocabulary import KEYED, cell_parts
from memshift.world.records import PublicEvent


class StoreServer:
    """A HoldMem cell at probing time: it serves, per checkpoint and item, the statements its
    store holds after maintenance and repair. A B=1 cell (`read_scopes` given) refuses an item
    to an agent that lost a scope the item's served statements read; a B=0 cell keeps no read
    set and serves every agent alike (MemShift F.10)."""

    def __init__(
        self,
        evidence: Mapping[tuple[int, str], Sequence[str]],
        checkpoints: Sequence[datetime],
        read_scopes: Mapping[tuple[int, str], frozenset[str]] | None = None,
    ) -> None:
        self.evidence = evidence
        self.checkpoints = list(checkpoints)
        self.read_scopes = read_scopes
        self.consents = Consents()

    def ingest(self, events: Sequence[PublicEvent], now: datetime) -> None:
        """The store was built by the ingest and audit/repair stages; nothing to do here."""

    def define(self, item_id: str, version: int, text: str) -> None:
        """Definition changes were handled when the store was built."""

    def consent(self, agent: str, scope: str, allowed: bool) -> None:
        self.consents.set(agent, scope, allowed)

    def set_writer(self, writer: object) -> None:
        """The writer only matters while the store is built."""

    def query(self, question: Question) -> list[str] | Blocked:
        k = self.checkpoints.index(question.time)
        if self.read_scopes is not None:
            scopes = self.read_scopes.get((k, question.item.item_id), frozenset())
            blocked = self.consents.touching(question, scopes)
            if blocked is not None:
                return blocked
        return list(self.evidence.get((k, question.item.item_id), ()))

    def export(self, path: object) -> None:
        raise MemshiftError("a probing-time view of a store cannot export; export from the cell")

    def import_(self, path: object) -> None:
        raise MemshiftError("a probing-time view of a store cannot import")

    def cost(self) -> Cost:
        return Cost()


def store_system(inputs: SystemInputs) -> StoreServer:
    store = read_table(
        layout.cell_store(inputs.run_world_dir, inputs.branch, inputs.system), schemas.STORE
    )
    parts = cell_parts(inputs.system)
    keyed = parts is not None and parts[1] in KEYED
    scopes = table_to_scopes(store, inputs.read_set) if keyed else None
    return StoreServer(table_to_evidence(store), inputs.checkpoints, scopes)
