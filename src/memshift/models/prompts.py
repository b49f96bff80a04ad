"""One builder per role: typed request in, chat messages out. Every sentence is our own."""

from __future__ import annotations

from memshift.models.requests import (
    AuditRequest,
    ModelRequest,
    ProgramRequest,
    ReaderRequest,
    RewriteRequest,
    WriterRequest,
)
from memshift.timeutil import fmt
from memshift.world.parse import record_evidence
from memshift.world.rewrite_prompt import rewrite_messages

Messages = list[dict[str, str]]
PROMPT_VERSION = "2"

VALUE_FORMATS = {
    "entity": "a JSON string with the name",
    "timezone": "a JSON string with an IANA time zone name, such as Europe/Lisbon",
    "diet": "a JSON string of one or two words",
    "commute": "a JSON string of one or two words",
    "weekday_time": "a JSON string with a weekday and a 24-hour time, such as Tuesday 10:00",
    "datetime": "a JSON string YYYY-MM-DD HH:MM",
    "date": "a JSON string YYYY-MM-DD",
    "time_range": "a JSON string HH:MM-HH:MM",
    "entity_set": "a JSON array of strings ([] if there are none)",
}

STORE_SYSTEM = (
    "You keep a store of facts about one person, who is called 'the user'. You write one fact at "
    "a time from the user's own records and say which records you used."
)


def _definition_line(request: WriterRequest | ProgramRequest) -> str:
    d = request.definition
    if d is None:
        return ""
    text = request.statement if isinstance(request, ProgramRequest) else d.text
    return f"Definition in effect ({d.name} v{d.version}): {text}\n"


def _delta_lines(request: WriterRequest) -> tuple[str, str]:
    """What a write from the delta alone adds: which records it shows, and the first question."""
    if request.delta_since is None:
        return "", ""
    shown = f"Only the records added or changed since {fmt(request.delta_since)} are shown.\n"
    first = (
        "First decide whether any of these records bears on this item. If none of them says "
        'anything about it, set `bears_on_item` to false, `value` to null, `statement` to "" '
        "and give no citations: that says there is nothing new, not that the item has no "
        "value. Otherwise set `bears_on_item` to true and go on. "
    )
    return shown, first


def writer(request: WriterRequest) -> Messages:
    item = request.item
    delta, first = _delta_lines(request)
    records = "\n\n".join(record_evidence(r) for r in request.records) or "(no records)"
    user = (
        f"Item: {item.label}\n"
        f"Value format: {VALUE_FORMATS[item.value_type]}\n"
        f"As of: {fmt(request.as_of)}\n"
        f"{_definition_line(request)}{delta}"
        "Records (each begins with its id, its revision and the time of its last change):\n\n"
        f"{records}\n\n"
        f"Task: {first}Work out the value of this item as of the time above from the most "
        "recent records that apply. Put only the value in `value`, in the value format (not a "
        "sentence), or null if the records do not establish a current value. Write `statement` "
        "as one or two sentences that name the item and the date and state the value. Give at "
        "most 6 "
        "`citations`, each with a record id, its revision and a quote of at most 25 words copied "
        "exactly from that record. Reply with JSON only."
    )
    return [{"role": "system", "content": STORE_SYSTEM}, {"role": "user", "content": user}]


READER_SYSTEM = (
    "You answer questions about one person, who is called 'the user', using only the evidence "
    "given. Evidence items can disagree or be out of date; prefer the most recent information "
    "that applies at the time in the question. If the evidence does not settle the answer, "
    "abstain."
)


def reader(request: ReaderRequest) -> Messages:
    evidence = "\n".join(f"[{n}] {text}" for n, text in enumerate(request.evidence, start=1))
    user = (
        f"Evidence:\n{evidence or '(none)'}\n\nQuestion: {request.question}\n\n"
        'Reply with JSON {"status": "answer" or "abstain", "value": ...}. When answering, give '
        "only the value in the requested format: a string, or a JSON array of strings for a list "
        "([] for an empty list). When abstaining, set value to null."
    )
    return [{"role": "system", "content": READER_SYSTEM}, {"role": "user", "content": user}]


PROGRAM_SYSTEM = (
    "You keep a store of facts about one person, who is called 'the user'. You write small, "
    "deterministic Python functions that compute one fact from the user's typed records."
)
ALLOWED = (
    "The function runs in a restricted interpreter: no imports, no attribute names that start "
    "with an underscore, no file or network access, no clock; builtins limited to abs, all, any, "
    "bool, dict, enumerate, float, int, len, list, max, min, range, reversed, set, sorted, str, "
    "sum, tuple and zip; at most 2 seconds of CPU time."
)


def program(request: ProgramRequest) -> Messages:
    item = request.item
    fields = "\n".join(f"- {kind}: {', '.join(names)}" for kind, names in request.fields)
    user = (
        f"Item: {item.label}\nValue format: {VALUE_FORMATS[item.value_type]}\n"
        f"{_definition_line(request)}"
        f"Declared sources: {', '.join(item.sources)}\n"
        "Every record is a dict with the keys object_id, source, kind, revision, created and "
        "updated ('YYYY-MM-DD HH:MM', its first write and its last change), cluster and text, "
        "plus the fields of its kind:\n"
        f"{fields}\n\n"
        "Task: write a Python function `def derive(records, as_of):` that returns the value of "
        "the item as of `as_of` ('YYYY-MM-DD HH:MM') from `records`, the live records of the "
        "declared sources at that time, oldest first. Return the value in the value format, as a "
        "Python str or list of str, or None if there is no current value. "
        f"{ALLOWED}\n"
        'Reply with JSON only: {"code": "..."}.'
    )
    return [{"role": "system", "content": PROGRAM_SYSTEM}, {"role": "user", "content": user}]


AUDITOR_SYSTEM = (
    "You audit what an assistant holds about a person, who is called 'the user', against "
    "timestamped records. The records are the only evidence; the question and the statement "
    "are not. Code checks every quote you give against the records."
)

_PREMISES = (
    'Base audit, as premises about the user\'s state. Draft-anchored pass ("pass": '
    '"draft"): the premises the statement states or presupposes. State-anchored pass '
    '("pass": "state"): the timeline of the attribute the statement depends on, '
    "whether or not it names it (current value, previous value, whether it changed), and "
    "whether the statement agrees with the current value. For each premise give a verdict: "
    "VALID if the most recent relevant record supports it, STALE if a later record changes or "
    "invalidates it (give the current value, in the answer's format, or null if there is "
    "none), UNKNOWN if the records neither confirm nor refute it; and material: whether the "
    "answer to the question depends on it."
)
_TRANSITIONS = (
    "Transitions: every old-to-new change of that state the records show: the dimension that "
    "changed, the old and the new value (in the answer's format), a quote of the old evidence "
    "and a quote of the new evidence (each copied exactly from one record), the causal path as "
    "the ids of the records from the old evidence to the new, the pass that found it, and "
    "whether it is material (it changes the answer)."
)


def auditor(request: AuditRequest) -> Messages:
    cited = "\n\n".join(record_evidence(r) for r in request.cited) or "(none)"
    newer = "\n\n".join(record_evidence(r) for r in request.records) or "(none)"
    passes = "" if request.state_pass else " Run only the draft-anchored pass."
    transitions = _TRANSITIONS if request.proposes else "Return no transitions."
    question = f"Question: {request.question}\n" if request.question else ""
    as_of = f"As of: {fmt(request.as_of)}\n" if request.as_of else ""
    user = (
        f"Stored item: {request.item.label}\n{question}{as_of}"
        f"Value held: {request.value!r}\n"
        f"Written at: {fmt(request.written_at)}\nStatement: {request.statement}\n\n"
        f"Records the statement cites:\n\n{cited}\n\nOther records:\n\n{newer}\n\n"
        f"Task. {_PREMISES}{passes}\n{transitions}\n"
        'Reply with JSON only: {"premises": [...], "transitions": [...]}.'
    )
    return [{"role": "system", "content": AUDITOR_SYSTEM}, {"role": "user", "content": user}]


def rewriter(request: RewriteRequest) -> Messages:
    # The rewrite prompt lives beside the checks it must agree with (`world/rewrite_prompt.py`).
    return rewrite_messages(request.body, request.protected, request.feedback)


BUILDERS = {"writer": writer, "reader": reader, "program": program, "auditor": auditor}
BUILDERS["rewriter"] = rewriter


def build(request: ModelRequest) -> Messages:
    return BUILDERS[request.role](request)  # type: ignore[operator]
