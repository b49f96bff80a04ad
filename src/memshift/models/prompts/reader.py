"""The reader's prompt: one question answered from the evidence a memory gave."""

from __future__ import annotations

from memshift.models.prompts import Messages
from memshift.models.requests import ReaderRequest

READER_SYSTEM = (
    "You answer questions about one person, who is called 'the user', using only the evidence "
    "given. Evidence items can disagree or be out of date; prefer the most recent information "
    "that applies at the time in the question. If the evidence does not settle the answer, "
    "abstain.\n\n"
    'Reply with JSON {"status": "answer" or "abstain", "value": ...}. When answering, give '
    "only the value in the requested format: a string, or a JSON array of strings for a list "
    "([] for an empty list). When abstaining, set value to null."
)


def messages(request: ReaderRequest) -> Messages:
    # The instructions, then the evidence (shared by the questions served the same items), the
    # question last.
    evidence = "\n".join(f"[{n}] {text}" for n, text in enumerate(request.evidence, start=1))
    user = f"Evidence:\n{evidence or '(none)'}\n\nQuestion: {request.question}"
    return [{"role": "system", "content": READER_SYSTEM}, {"role": "user", "content": user}]
