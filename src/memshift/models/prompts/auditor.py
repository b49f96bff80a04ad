"""The auditor's prompt: a stored value or a draft answer checked against timestamped records."""

from __future__ import annotations

from memshift.models.prompts import Messages
from memshift.models.requests import AnswersAuditRequest, AuditRequest
from memshift.timeutil import fmt
from memshift.world.parse import entry_id, record_evidence

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


def _instructions(request: AuditRequest | AnswersAuditRequest) -> str:
    passes = "" if request.state_pass else " Run only the draft-anchored pass."
    transitions = _TRANSITIONS if request.proposes else "Return no transitions."
    return f"{_PREMISES}{passes}\n{transitions}\n"


def messages(request: AuditRequest | AnswersAuditRequest) -> Messages:
    # The instructions (the same for every request of a variant), then the records, then what
    # is audited: the item, the question, the value held and its statement.
    if isinstance(request, AnswersAuditRequest):
        return answers_messages(request)
    system = (
        f"{AUDITOR_SYSTEM}\n\n"
        "Task: audit the statement given after the records. "
        f"{_instructions(request)}"
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


def answers_messages(request: AnswersAuditRequest) -> Messages:
    """Several answers about one item as of one time, audited against the records they share:
    the records once, then each answer with the ids of the records that state its value."""
    count = len(request.answers)
    scope = (
        "together: they answer questions about one situation, so a change of the user's state "
        "that you find for one statement goes in the audit of every statement whose answer it "
        "changes, in that statement's answer format"
        if request.joint
        else "each on its own (one statement's audit never uses another statement)"
    )
    system = (
        f"{AUDITOR_SYSTEM}\n\n"
        f"Task: audit each of the {count} statements given after the records, {scope}. "
        f"{_instructions(request)}"
        'Reply with JSON only: {"audits": [{"premises": [...], "transitions": [...]}, ...]}, '
        "one audit per statement, in their order."
    )
    records = "\n\n".join(record_evidence(r) for r in request.records) or "(none)"
    parts = [f"Records:\n\n{records}\n\nStored item: {request.item.label}\nAs of: "
             f"{fmt(request.as_of)}"]  # fmt: skip
    for number, answer in enumerate(request.answers, 1):
        cites = ", ".join(entry_id(r) for r in answer.cited) or "none"
        question = f"Question: {answer.question}\n" if answer.question else ""
        parts.append(
            f"Statement {number}\n{question}Value held: {answer.value!r}\n"
            f"Written at: {fmt(answer.written_at)}\nRecords it cites: {cites}\n"
            f"Statement: {answer.statement}"
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]
