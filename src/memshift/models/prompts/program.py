"""The program writer's prompt: a deterministic function deriving one item from typed records."""

from __future__ import annotations

from memshift.models.prompts import Messages
from memshift.models.prompts.common import VALUE_FORMATS, definition_line
from memshift.models.requests import ProgramRequest

ALLOWED = (
    "The function runs in a restricted interpreter: no imports, no attribute names that start "
    "with an underscore, no file or network access, no clock; builtins limited to abs, all, any, "
    "bool, dict, enumerate, float, int, len, list, max, min, range, reversed, set, sorted, str, "
    "sum, tuple and zip; at most 2 seconds of CPU time."
)
PROGRAM_SYSTEM = (
    "You keep a store of facts about one person, who is called 'the user'. You write small, "
    "deterministic Python functions that compute one fact from the user's typed records.\n\n"
    "Task: write a Python function `def derive(records, as_of):` that returns the value of the "
    "item named below as of `as_of` ('YYYY-MM-DD HH:MM') from `records`, the live records of "
    "the item's declared sources at that time, oldest first. Return the value in the item's "
    "value format, as a Python str or list of str, or None if there is no current value. "
    "Every record is a dict with the keys object_id, source, kind, revision, created and "
    "updated ('YYYY-MM-DD HH:MM', its first write and its last change), cluster and text, plus "
    "the fields of its kind, listed below. "
    f"{ALLOWED}\n"
    'Reply with JSON only: {"code": "..."}.'
)


def messages(request: ProgramRequest) -> Messages:
    # The instructions, then the sources and their fields (shared by the items of the same
    # sources), the item and its definition last.
    item = request.item
    fields = "\n".join(f"- {kind}: {', '.join(names)}" for kind, names in request.fields)
    user = (
        f"Declared sources: {', '.join(item.sources)}\n"
        f"Fields of each kind:\n{fields}\n\n"
        f"Item: {item.label}\nValue format: {VALUE_FORMATS[item.value_type]}\n"
        f"{definition_line(request)}"
    ).rstrip("\n")
    return [{"role": "system", "content": PROGRAM_SYSTEM}, {"role": "user", "content": user}]
