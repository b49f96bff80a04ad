"""The JSON schema of each role's reply, and the check every reply passes through."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

import fastjsonschema
import jsonschema

from memshift.intake.storable import INT32, UnstorableError, parse_storable, storable_text
from memshift.models.requests import AnswersAuditRequest, ModelRequest, WriterRequest
from memshift.world.rewrite_prompt import REWRITE_SCHEMA

# Every string and list a reply holds is bounded, far above what a sound reply needs (a value, a
# sentence or two, a quote of at most 25 words), so that a server decoding under the schema's
# grammar cannot loop inside one string until the token limit cuts the reply.
_NAME = {"type": "string", "maxLength": 200}
_SENTENCES = {"type": "string", "maxLength": 1000}
_QUOTE = {"type": "string", "maxLength": 400}
_ID = {"type": "string", "maxLength": 100}
_VALUE = {
    "anyOf": [
        {"type": "string", "maxLength": 500},
        {"type": "array", "items": _NAME, "maxItems": 60},
        {"type": "null"},
    ]
}

_CITATIONS = {
    "type": "array",
    "maxItems": 6,
    "items": {
        "type": "object",
        "properties": {
            "object_id": _ID,
            "revision": {"type": "integer"},
            "quote": _QUOTE,
        },
        "required": ["object_id", "revision", "quote"],
        "additionalProperties": False,
    },
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "writer": {
        "type": "object",
        "properties": {"value": _VALUE, "statement": _SENTENCES, "citations": _CITATIONS},
        "required": ["value", "statement", "citations"],
        "additionalProperties": False,
    },
    # A write from the delta alone (the append-only cell): the writer first says whether any of
    # the new records bears on the item. "Nothing new" is a reply of its own, not "no value".
    "writer_delta": {
        "type": "object",
        "properties": {
            "bears_on_item": {"type": "boolean"},
            "value": _VALUE,
            "statement": _SENTENCES,
            "citations": _CITATIONS,
        },
        "required": ["bears_on_item", "value", "statement", "citations"],
        "additionalProperties": False,
    },
    "reader": {
        "type": "object",
        "properties": {"status": {"enum": ["answer", "abstain"]}, "value": _VALUE},
        "required": ["status", "value"],
        "additionalProperties": False,
    },
    "program": {
        "type": "object",
        "properties": {"code": {"type": "string"}},
        "required": ["code"],
        "additionalProperties": False,
    },
    "auditor": {
        "type": "object",
        "properties": {
            "premises": {
                "type": "array",
                "maxItems": 12,
                "items": {
                    "type": "object",
                    "properties": {
                        "premise": _SENTENCES,
                        "pass": {"enum": ["draft", "state"]},
                        "verdict": {"enum": ["VALID", "STALE", "UNKNOWN"]},
                        "current_value": _VALUE,
                        "material": {"type": "boolean"},
                    },
                    "required": ["premise", "pass", "verdict", "current_value", "material"],
                    "additionalProperties": False,
                },
            },
            "transitions": {
                "type": "array",
                "maxItems": 12,
                "items": {
                    "type": "object",
                    "properties": {
                        "dimension": _NAME,
                        "old_value": _VALUE,
                        "new_value": _VALUE,
                        "old_quote": _QUOTE,
                        "new_quote": _QUOTE,
                        "causal_path": {"type": "array", "items": _ID, "maxItems": 20},
                        "pass": {"enum": ["draft", "state"]},
                        "material": {"type": "boolean"},
                    },
                    "required": [
                        "dimension",
                        "old_value",
                        "new_value",
                        "old_quote",
                        "new_quote",
                        "causal_path",
                        "pass",
                        "material",
                    ],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["premises", "transitions"],
        "additionalProperties": False,
    },
}

# The rewriter's reply, {"body": "..."}; the schema is kept beside the rewrite prompt.
SCHEMAS["rewriter"] = REWRITE_SCHEMA

# The most answers one answer-level audit call checks (`systems.answer_audit_batch`).
MAX_AUDITED_ANSWERS = 6


def audits_schema(answers: int) -> dict[str, Any]:
    """The reply to an audit of several answers: exactly one audit per answer, in order."""
    return {
        "type": "object",
        "properties": {
            "audits": {
                "type": "array",
                "minItems": answers,
                "maxItems": answers,
                "items": SCHEMAS["auditor"],
            }
        },
        "required": ["audits"],
        "additionalProperties": False,
    }


# (the answer-level audit sends a single answer as its own audit, `AnswersAuditRequest.sent`)
for _answers in range(1, MAX_AUDITED_ANSWERS + 1):
    SCHEMAS[f"auditor_x{_answers}"] = audits_schema(_answers)


def schema_name(request: ModelRequest) -> str:
    """The schema a request's reply must follow: its role's, the delta write's, or that of an
    audit of so many answers."""
    if isinstance(request, WriterRequest) and request.delta_since is not None:
        return "writer_delta"
    if isinstance(request, AnswersAuditRequest):
        return f"auditor_x{len(request.answers)}"
    return request.role


@cache
def _validator(role: str) -> Callable[[Any], Any]:
    # Compiled validators cost microseconds per reply, which matters when a client must keep a
    # model server saturated; the schema is checked against the metaschema once.
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[role])
    return fastjsonschema.compile(SCHEMAS[role])


def check_reply(role: str, content: str | None) -> tuple[dict[str, Any] | None, str | None, str]:
    """(value, failure reason, detail) for a reply's raw content. A value is returned only if
    every writer downstream can store it (`memshift.intake.storable`), so no reply that passes
    here can fail a Parquet or JSON write later, and none that fails is cached."""
    if content is None or not content.strip():
        return None, "empty_content", ""
    try:
        # Integers end in int32 columns (a citation's revision), the narrowest a reply feeds.
        value = parse_storable(content, int_range=INT32)
    except UnstorableError as exc:
        return None, "unstorable", storable_text(str(exc))[:300]
    except json.JSONDecodeError as exc:
        return None, "invalid_json", f"{exc.msg} at position {exc.pos}"
    try:
        _validator(role)(value)
    except fastjsonschema.JsonSchemaValueException as error:
        return None, "schema_violation", error.message[:300]
    return value, None, ""
