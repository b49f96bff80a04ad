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
# 3: every role's fixed instructions first (in the system message), then the records or
# evidence, then the item-specific part, so a server's prefix cache serves the shared part
PROMPT_VERSION = "3"

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
RECORDS_HEAD = "Records (each begins with its id, its revision and the time of its last change):"


def _definition_line(request: WriterRequest | ProgramRequest) -> str:
    d = request.definition
    if d is None:
        return ""
    text = request.statement if isinstance(request, ProgramRequest) else d.text
    return f"Definition in effect ({d.name} v{d.version}): {text}\n"


def writer(request: WriterRequest) -> Messages:
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
        f"{_definition_line(request)}"
    ).rstrip("\n")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


READER_SYSTEM = (
    "You answer questions about one person, who is called 'the user', using only the evidence "
    "given. Evidence items can disagree or be out of date; prefer the most recent information "
    "that applies at the time in the question. If the evidence does not settle the answer, "
    "abstain.\n\n"
    'Reply with JSON {"status": "answer" or "abstain", "value": ...}. When answering, give '
    "only the value in the requested format: a string, or a JSON array of strings for a list "
    "([] for an empty list). When abstaining, set value to null."
)


def reader(request: ReaderRequest) -> Messages:
    # The instructions, then the evidence (shared by the questions served the same items), the
    # question last.
    evidence = "\n".join(f"[{n}] {text}" for n, text in enumerate(request.evidence, start=1))
    user = f"Evidence:\n{evidence or '(none)'}\n\nQuestion: {request.question}"
    return [{"role": "system", "content": READER_SYSTEM}, {"role": "user", "content": user}]


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


def program(request: ProgramRequest) -> Messages:
    # The instructions, then the sources and their fields (shared by the items of the same
    # sources), the item and its definition last.
    item = request.item
    fields = "\n".join(f"- {kind}: {', '.join(names)}" for kind, names in request.fields)
    user = (
        f"Declared sources: {', '.join(item.sources)}\n"
        f"Fields of each kind:\n{fields}\n\n"
        f"Item: {item.label}\nValue format: {VALUE_FORMATS[item.value_type]}\n"
        f"{_definition_line(request)}"
    ).rstrip("\n")
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
    # The instructions (the same for every request of a variant), then the records, then what
    # is audited: the item, the question, the value held and its statement.
    passes = "" if request.state_pass else " Run only the draft-anchored pass."
    transitions = _TRANSITIONS if request.proposes else "Return no transitions."
    system = (
        f"{AUDITOR_SYSTEM}\n\n"
        "Task: audit the statement given after the records. "
        f"{_PREMISES}{passes}\n{transitions}\n"
        'Reply with JSON only: {"premises": [...], "transitions": [...]}.'
    )
    cited = "\n\n".join(record_evidence(r) for r in request.cited) or "(none)"
    newer = "\n\n".join(record_evidence(r) for r in request.records) or "(none)"
    question = f"Question: {request.question}\n" if request.question else ""
    as_of = f"As of: {fmt(request.as_of)}\n" if request.as_of else ""
    user = (
        f"Other records:\n\n{newer}\n\nRecords the statement cites:\n\n{cited}\n\n"
        f"Stored item: {request.item.label}\n{question}{as_of}"
        f"Value held: {request.value!r}\n"
        f"Written at: {fmt(request.written_at)}\nStatement: {request.statement}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# Where the request-specific part of a role's user message begins; what comes before it is what
# other requests of the role may share (its records or evidence).
OWN_PART_HEADS = ("\n\nItem: ", "\n\nQuestion: ", "\n\nStored item: ")


def shared_part(content: str) -> tuple[str, str]:
    """A user message cut where its request-specific part begins: (shared, own), which join
    back to `content`; ("", content) when no such part is found. Only where a cache breakpoint
    goes depends on the cut (a record quoting a head cuts early), never the text sent."""
    cut = max(content.rfind(head) for head in OWN_PART_HEADS)
    return (content[:cut], content[cut:]) if cut > 0 else ("", content)


def rewriter(request: RewriteRequest) -> Messages:
    # The rewrite prompt lives beside the checks it must agree with (`world/rewrite_prompt.py`).
    return rewrite_messages(request.body, request.protected, request.feedback)


BUILDERS = {"writer": writer, "reader": reader, "program": program, "auditor": auditor}
BUILDERS["rewriter"] = rewriter


def build(request: ModelRequest) -> Messages:
    return BUILDERS[request.role](request)  # type: ignore[operator]
