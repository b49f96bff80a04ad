"""A HoldMem cell at probing time: the statements its store holds after maintenance and repair,
served per checkpoint and item, read from the cell's store table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from memshift import layout, schemas
from memshift.artifacts import read_table
from memshift.errors import MemshiftError
from memshift.memory.interface import Blocked, Consents, Cost, Question, SystemInputs
from memshift.memory.store_tables import table_to_evidence
from memshift.world.records import PublicEvent


class StoreServer:
    """A HoldMem cell at probing time: it serves, per checkpoint and item, the statements its
    store holds after maintenance and repair, and refuses items whose sources an agent lost."""

    def __init__(
        self, evidence: Mapping[tuple[int, str], Sequence[str]], checkpoints: Sequence[datetime]
    ) -> None:
        self.evidence = evidence
        self.checkpoints = list(checkpoints)
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
        blocked = self.consents.blocked(question)
        if blocked is not None:
            return blocked
        k = self.checkpoints.index(question.time)
        return list(self.evidence.get((k, question.item.item_id), ()))

    def export(self, path: object) -> None:
        raise MemshiftError("a probing-time view of a store cannot export; export from the cell")

    def import_(self, path: object) -> None:
        raise MemshiftError("a probing-time view of a store cannot import")

    def cost(self) -> Cost:
        return Cost()


def store_system(inputs: SystemInputs) -> StoreServer:
    store = read_table(
        layout.table(
            layout.system_dir(inputs.run_world_dir, inputs.branch, inputs.system), layout.STORE
        ),
        schemas.STORE,
    )
    return StoreServer(table_to_evidence(store), inputs.checkpoints)
