"""A `Rewriter` (`memshift.world.rewrite`) over `ModelClient`: the rewriter as a model role.

The client parses and schema-checks every reply, so what reaches the rewrite checks is the JSON
of a reply's value, `{"body": "..."}`, serialized again; the checks that matter (protected facts,
no added numbers or names, growth) are then made by `rewrite.check_rewrite` on that, for every
backend alike. A reply the client refuses (no JSON, off the schema, cut at the token limit,
refused) or a call that never got one (after the client's own transport retries) comes back as a
`FailedReply` naming the failure: an attempt that failed, never an exception, so one bad call
costs its body the rewrite and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memshift.intake.storable import storable_text
from memshift.models.client import ModelClient
from memshift.models.replies import Reply
from memshift.models.requests import CallContext, RewriteRequest
from memshift.world.rewrite_batch import Ask, FailedReply

CALL_FAILED = "model call failed"
# A failure's detail is for the log and the retry's feedback; a prompt needs no more of it.
MAX_FAILURE_DETAIL = 200


def reply_text(reply: Reply) -> str:
    """What the rewrite checks read for one reply: the JSON of its value, or a `FailedReply`."""
    if reply.value is None:
        detail = storable_text(reply.detail)[:MAX_FAILURE_DETAIL]
        return FailedReply(f"{CALL_FAILED} ({reply.failure})" + (f": {detail}" if detail else ""))
    # Not ASCII-escaped: the length limit of `parse_reply` counts the characters of the body.
    return json.dumps(reply.value, ensure_ascii=False)


class ClientRewriter:
    """A `Rewriter` (one call per `__call__`) that also answers a whole batch of asks in one
    `ModelClient.generate`, as `rewrite_batch.rewrite_contents` sends them."""

    def __init__(self, client: ModelClient, context: CallContext) -> None:
        self.client = client
        self.context = context

    def __call__(self, body: str, protected: tuple[str, ...], feedback: tuple[str, ...]) -> str:
        return self.batch([Ask(body, protected, feedback)])[0]

    def batch(self, asks: Sequence[Ask]) -> list[str]:
        requests = [RewriteRequest(a.body, a.protected, a.feedback, self.context) for a in asks]
        return [reply_text(reply) for reply in self.client.generate(requests)]


def client_rewriter(client: ModelClient, context: CallContext) -> ClientRewriter:
    return ClientRewriter(client, context)
