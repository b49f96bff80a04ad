"""The request a model rewriter gets: rewrite one body in other words, keep the listed facts.

The model sees only the body, never the header: names, dates and addresses in the header cannot
be touched if they are never shown. Protected facts and violations are listed as JSON strings, so
a fact with quotes, a colon or trailing spaces reads exactly as it must be copied. Every sentence
is our own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

REWRITE_PROMPT_VERSION = "1"

Messages = list[dict[str, str]]

# For backends that take a JSON schema for the reply (structured output).
REWRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"body": {"type": "string"}},
    "required": ["body"],
    "additionalProperties": False,
}

REWRITE_SYSTEM = (
    "You reword short personal messages and notes. You keep their meaning, their tone and every "
    "fact they state, and you change only how they are phrased."
)


def _quoted(items: Sequence[str]) -> str:
    return "\n".join(f"- {json.dumps(item, ensure_ascii=False)}" for item in items)


def rewrite_messages(body: str, protected: Sequence[str], feedback: Sequence[str] = ()) -> Messages:
    """Chat messages asking for a rewrite of `body`; `feedback` (the violations of a rejected
    first attempt) turns the request into the retry."""
    keep = (
        "Copy each of these strings into your rewrite exactly as written (same characters, "
        f"capitalization and punctuation):\n{_quoted(protected)}\n\n"
        if protected
        else ""
    )
    retry = (
        "Your previous reply was rejected for these reasons:\n"
        f"{_quoted(feedback)}\nWrite a new rewrite that avoids every one of them.\n\n"
        if feedback
        else ""
    )
    user = (
        "Rewrite the body of this message so that it says the same thing in different words.\n\n"
        f"Body (as a JSON string):\n{json.dumps(body, ensure_ascii=False)}\n\n"
        f"{keep}"
        "Rules:\n"
        "- Keep the meaning, the tone, the paragraph layout and roughly the length.\n"
        "- Keep the greeting and the sign-off, with the same names; you may reword them.\n"
        "- Do not add any number, in digits or in words, and no month or weekday name.\n"
        "- Do not add the name of any person, company, city or project that the body does not "
        "already name.\n"
        "- Do not add a subject line, a header or a note about your changes.\n\n"
        f"{retry}"
        'Reply with JSON only, in the form {"body": "<the rewritten body>"}, with no other keys '
        "and nothing before or after the JSON."
    )
    return [{"role": "system", "content": REWRITE_SYSTEM}, {"role": "user", "content": user}]
