"""The writer's prompt: one item's value, statement and citations from the records."""

from __future__ import annotations

from memshift.models.prompts import Messages
from memshift.models.prompts.common import RECORDS_HEAD, VALUE_FORMATS, definition_line
from memshift.models.requests import WriterRequest
from memshift.timeutil import fmt
from memshift.world.parse import record_evidence

STORE_SYSTEM = (
    "You keep a store of facts about one person, who is called 'the user'. You write one fact at "
    "a time from the user's own records and say which records you used."
)
WRITER_TASK = (
    "Task: work out the value of the item named after the records, as of the time given there, "
    "from the most recent records that apply. Put only the value in `value`, in the item's "
    "value format (not a sentence), or null if the records do not establish a current value. "
    "Write `statement` as one or two sentences that name the item and the date and state the "
    "value. Give at most 6 `citations`, each with a record id, its revision and a quote of at "
    "most 25 words copied exactly from that record. Reply with JSON only."
)
DELTA_TASK = (
    "Only the records added or changed since a stated time are shown. First decide whether any "
    "of them bears on the item. If none of them says anything about it, set `bears_on_item` to "
    'false, `value` to null, `statement` to "" and give no citations: that says there is '
    "nothing new, not that the item has no value. Otherwise set `bears_on_item` to true and go "
    "on with the task."
)


def messages(request: WriterRequest) -> Messages:
    # Shared first (a server's prefix cache serves what earlier prompts began with): the fixed
    # instructions, then the records, which the items reading the same sources at the same
    # checkpoint share; the item, its format and the time last.
    item = request.item
    system = STORE_SYSTEM + "\n\n" + WRITER_TASK
    shown = ""
    if request.delta_since is not None:
        system += "\n\n" + DELTA_TASK
        shown = f"Records added or changed since {fmt(request.delta_since)}.\n"
    records = "\n\n".join(record_evidence(r) for r in request.records) or "(no records)"
    user = (
        f"{shown}{RECORDS_HEAD}\n\n{records}\n\n"
        f"Item: {item.label}\n"
        f"Value format: {VALUE_FORMATS[item.value_type]}\n"
        f"As of: {fmt(request.as_of)}\n"
        f"{definition_line(request)}"
    ).rstrip("\n")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
