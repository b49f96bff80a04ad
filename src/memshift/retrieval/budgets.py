"""Each role's evidence budget, cut so that the role's prompts fit the context window of the
model that reads them (`Profile.context_length`, docs/models.md "Context windows")."""

from __future__ import annotations

import functools
from datetime import datetime

from memshift.models import prompts
from memshift.models.profiles import Profile
from memshift.models.requests import AuditRequest, ModelRequest, ReaderRequest, WriterRequest
from memshift.retrieval.selection import AUDITOR_BUDGET, EVIDENCE_BUDGET, WRITER_BUDGET
from memshift.tokens import count_tokens
from memshift.world.items import Item

DEFAULTS = {"writer": WRITER_BUDGET, "auditor": AUDITOR_BUDGET, "reader": EVIDENCE_BUDGET}
# Room kept beside a role's fixed text for what changes from one request to the next and is not
# evidence. The longest of world 0's 1,827 probe questions is 103 tokens (a premise probe naming
# seven contacts and its definition), item labels are at most 11, definitions at most 40 with
# their name and version, value formats at most 20; the auditor also reads a value and a
# statement (a reply of the writer). Chat templates add a few tokens per message on top.
MARGINS = {"writer": 128, "reader": 256, "auditor": 512}
# The reader's prompt numbers its evidence items ("[12] "): tokens beyond the item's own text.
LABEL_TOKENS = count_tokens("[999]")

_EMPTY = Item("", "", "entity", (), "", "", "")
_TIME = datetime(2000, 1, 1)


def _empty_request(role: str) -> ModelRequest:
    """The role's request with no evidence and nothing else that varies (an empty item); the
    writer's shows the delta lines, the longest of its fixed text."""
    if role == "writer":
        return WriterRequest(_EMPTY, 1, _TIME, (), delta_since=_TIME)
    if role == "reader":
        return ReaderRequest(_EMPTY, 1, _TIME, "", ())
    if role == "auditor":
        return AuditRequest(_EMPTY, 1, "", None, _TIME, (), (), question="", as_of=_TIME)
    raise ValueError(f"role {role!r} reads no evidence")


@functools.cache
def overhead(role: str) -> int:
    """Tokens a prompt of `role` takes besides its evidence: the prompt built with none, counted,
    plus the role's margin."""
    messages = prompts.build(_empty_request(role))
    return sum(count_tokens(m["content"]) for m in messages) + MARGINS[role]


def evidence_budget(profile: Profile | None, role: str, answers: int = 1) -> int:
    """The tokens of evidence a prompt of `role` may carry for the model of `profile`: the
    role's default budget when the profile states no window (so nothing changes), else what the
    window leaves beside the reply and the prompt's own text, never more than the default. An
    audit of several `answers` keeps the role's margin for each of them."""
    if role not in DEFAULTS:
        raise ValueError(
            f"role {role!r} reads no evidence; roles with a budget: {', '.join(DEFAULTS)}"
        )
    default = DEFAULTS[role]
    room = profile.prompt_room(role) if profile is not None else None
    if room is None:
        return default
    return max(0, min(default, room - overhead(role) - (answers - 1) * MARGINS[role]))


def label_tokens(profile: Profile | None) -> int:
    """Tokens counted for each evidence item's number in the reader's prompt: none without a
    window, where the budget has always counted the items' text alone."""
    return LABEL_TOKENS if profile is not None and profile.context_length else 0


def check_budgets(profile: Profile) -> dict[str, int]:
    """The writer's and the auditor's evidence budgets on `profile`, for `models check` to cut
    its requests to (none without a window: the check's requests are then as they always were)."""
    if not profile.context_length:
        return {}
    return {role: evidence_budget(profile, role) for role in ("writer", "auditor")}
