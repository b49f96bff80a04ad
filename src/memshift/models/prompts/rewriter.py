"""The rewriter's prompt, which lives beside the checks it must agree with
(`world/rewrite_prompt.py`)."""

from __future__ import annotations

from memshift.models.prompts import Messages
from memshift.models.requests import RewriteRequest
from memshift.world.rewrite_prompt import rewrite_messages


def messages(request: RewriteRequest) -> Messages:
    return rewrite_messages(request.body, request.protected, request.feedback)
