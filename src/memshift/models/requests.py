"""Typed requests, one class per role. Inputs are data; `prompts` turns them into messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from memshift.definitions.catalog import Definition, definition
from memshift.definitions.words import user_words
from memshift.gold.evaluator import Value
from memshift.world.items import Item
from memshift.world.records import Record


def definition_in_effect(item: Item, version: int | None) -> Definition | None:
    return definition(item.item_id, version) if item.is_definition and version else None


@dataclass(frozen=True)
class CallContext:
    """Where a call belongs, for the call log; never part of a cache key."""

    run: str = ""
    world: int = -1
    branch: str = ""
    system: str = ""
    item: str = ""
    checkpoint: int = -1


@dataclass(frozen=True)
class WriterRequest:
    """Derive one item from a selection of records of its sources (time order)."""

    role: ClassVar[str] = "writer"
    item: Item
    version: int
    as_of: datetime
    records: tuple[Record, ...]
    delta_since: datetime | None = None
    context: CallContext = field(default=CallContext(), compare=False)

    @property
    def definition(self) -> Definition | None:
        return definition_in_effect(self.item, self.version)


@dataclass(frozen=True)
class ReaderRequest:
    """Answer one probe from evidence items (newest last), within the evidence budget."""

    role: ClassVar[str] = "reader"
    item: Item
    version: int | None  # None: the question names no definition (an unnamed probe)
    as_of: datetime
    question: str
    evidence: tuple[str, ...]
    context: CallContext = field(default=CallContext(), compare=False)


@dataclass(frozen=True)
class ProgramRequest:
    """Write a program for one item and definition version; carries no world data."""

    role: ClassVar[str] = "program"
    item: Item
    version: int
    fields: tuple[tuple[str, tuple[str, ...]], ...]
    context: CallContext = field(default=CallContext(), compare=False)
    # how the request states the definition: "codified" (the grammar's sentence) or "user" (the
    # person's own phrasing of the same definition, definitions/words.py)
    wording: str = "codified"

    @property
    def definition(self) -> Definition | None:
        return definition_in_effect(self.item, self.version)

    @property
    def statement(self) -> str | None:
        """The sentence the request states the definition in."""
        d = self.definition
        if d is None:
            return None
        return user_words(d) if self.wording == "user" else d.text


class AuditVariant:
    """What an audit's `variant` (the ablation) asks of the auditor."""

    variant: str

    @property
    def proposes(self) -> bool:
        """Whether the auditor is asked for transitions (the matched control asks for none)."""
        return self.variant != "control"

    @property
    def state_pass(self) -> bool:
        """Whether the state-anchored pass runs (the draft-only ablation runs none)."""
        return self.variant != "draftonly"

    @property
    def joint(self) -> bool:
        """Whether the answers about one item-time are audited together, as one situation (the
        privileged scenario-joint audit), rather than each on its own."""
        return self.variant == "joint"


@dataclass(frozen=True)
class AuditRequest(AuditVariant):
    """Audit a stored statement (or a draft answer to `question`) as of `as_of`: the base audit's
    premises, checked in a draft-anchored and a state-anchored pass, and old-to-new transitions,
    from the records the statement cites and those its caller selected within the auditor's
    budget (timestamped). `variant` names the ablation, which changes what is asked."""

    role: ClassVar[str] = "auditor"
    item: Item
    version: int
    statement: str
    value: Value
    written_at: datetime
    cited: tuple[Record, ...]
    records: tuple[Record, ...]
    context: CallContext = field(default=CallContext(), compare=False)
    question: str = ""
    as_of: datetime | None = None
    variant: str = "full"


@dataclass(frozen=True)
class AuditedAnswer:
    """One draft answer an answer-level audit checks: the question it answers, the value and its
    statement, when it was written, and which of the request's records state its value."""

    question: str
    value: Value
    statement: str
    written_at: datetime
    cited: tuple[Record, ...]


@dataclass(frozen=True)
class AnswersAuditRequest(AuditVariant):
    """Audit several draft answers about one item as of one time against the records they
    share (the item's evidence, selected once): one audit per answer, in order. Each answer
    read alone is the `AuditRequest` of `alone`; a single answer is sent as that (`sent`)."""

    role: ClassVar[str] = "auditor"
    item: Item
    version: int
    as_of: datetime
    records: tuple[Record, ...]
    answers: tuple[AuditedAnswer, ...]
    context: CallContext = field(default=CallContext(), compare=False)
    variant: str = "full"

    @property
    def sent(self) -> AuditRequest | AnswersAuditRequest:
        """What goes to the auditor: one answer's own audit, or this audit of several."""
        return self.alone(0) if len(self.answers) == 1 else self

    def audits(self, reply: dict[str, Any] | None) -> list[dict[str, Any] | None]:
        """Each answer's audit in the reply to `sent` (None for each when the call failed)."""
        if reply is None:
            return [None] * len(self.answers)
        return [reply] if len(self.answers) == 1 else list(reply["audits"])

    def alone(self, k: int) -> AuditRequest:
        """The k-th answer's audit on its own: the records it cites, and the others."""
        answer = self.answers[k]
        cited = {(r.object_id, r.revision) for r in answer.cited}
        return AuditRequest(
            self.item,
            self.version,
            answer.statement,
            answer.value,
            answer.written_at,
            answer.cited,
            tuple(r for r in self.records if (r.object_id, r.revision) not in cited),
            self.context,
            question=answer.question,
            as_of=self.as_of,
            variant=self.variant,
        )


@dataclass(frozen=True)
class RewriteRequest:
    """Rewrite one message body in other words, keeping every protected fact verbatim
    (`memshift.world.rewrite`). The header is never sent: what is not shown cannot be changed.
    `feedback` is empty on the first attempt and names the first attempt's violations on the
    retry, which makes the retry a request of its own (its own cache key)."""

    role: ClassVar[str] = "rewriter"
    body: str
    protected: tuple[str, ...]
    feedback: tuple[str, ...] = ()
    context: CallContext = field(default=CallContext(), compare=False)


ModelRequest = (
    WriterRequest
    | ReaderRequest
    | ProgramRequest
    | AuditRequest
    | AnswersAuditRequest
    | RewriteRequest
)
