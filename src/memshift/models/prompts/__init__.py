"""One builder per role, each in a module of its own (`registry.PROMPTS`), so that an edit to one
role's prompt reruns only the jobs that call that role (their code fingerprints hold the role's
module, `fingerprint.job_modules`). Typed request in, chat messages out. Every sentence is our
own."""

from __future__ import annotations

import functools
from collections.abc import Callable

from memshift.models.requests import ModelRequest
from memshift.registry import PROMPTS, load

Messages = list[dict[str, str]]
# 3: every role's fixed instructions first (in the system message), then the records or
# evidence, then the item-specific part, so a server's prefix cache serves the shared part
PROMPT_VERSION = "3"

# Where the request-specific part of a role's user message begins; what comes before it is what
# other requests of the role may share (its records or evidence).
OWN_PART_HEADS = ("\n\nItem: ", "\n\nQuestion: ", "\n\nStored item: ")


def shared_part(content: str) -> tuple[str, str]:
    """A user message cut where its request-specific part begins: (shared, own), which join
    back to `content`; ("", content) when no such part is found. Only where a cache breakpoint
    goes depends on the cut (a record quoting a head cuts early), never the text sent."""
    cut = max(content.rfind(head) for head in OWN_PART_HEADS)
    return (content[:cut], content[cut:]) if cut > 0 else ("", content)


@functools.cache
def builder(role: str) -> Callable[[ModelRequest], Messages]:
    """The prompt builder of `role`, loaded from its own module."""
    return load(PROMPTS[role])


def build(request: ModelRequest) -> Messages:
    return builder(request.role)(request)
