"""The rewriter role of a `rules` profile: the offline rewriter behind `ModelClient`.

The `rules` backend answers with a JSON value, never with text (`RulesBackend.answer` returns a
dict, which the client serializes and checks against the role's schema). So the offline
rewriter's reply text is parsed here, strictly (`rewrite.parse_reply`):

- a reply that is exactly `{"body": "..."}` is answered as that value, and the rewrite checks
  (`rewrite.check_rewrite`) then judge its body, which is how a slip that drops a protected fact
  is caught, as it would be for a model;
- a reply that is no such object (a code fence, a reply cut short, words around the JSON) is
  answered with a value off the role's schema, holding the reply text. The client refuses it
  (`schema_violation`), just as it refuses a model's malformed text over HTTP (`invalid_json`),
  so the call fails, the attempt counts as failed and the body is asked for again.

Either way each slip takes the path a model's would through the client, and which bodies are
retried or kept as template is what the offline rewriter alone decides: the same world as
`rewrite_events(..., OfflineRewriter(), ...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memshift.models.profiles import Profile
from memshift.models.requests import RewriteRequest
from memshift.simulator.rewriter import OfflineRewriter
from memshift.world.rewrite import parse_reply

# The key of the off-schema value that carries a malformed reply (the schema allows only "body").
UNPARSED = "unparsed_reply"


def answer(rewriter: OfflineRewriter, request: RewriteRequest) -> dict[str, Any]:
    text = rewriter(request.body, request.protected, request.feedback)
    body, _ = parse_reply(text)
    return {"body": body} if body is not None else {UNPARSED: text}


def simulated_rewriter(profile: Profile) -> Callable[[RewriteRequest], dict[str, Any]]:
    """The rewriter role of a `rules` profile, at the offline rewriter's own slip rates."""
    rewriter = OfflineRewriter()
    return lambda request: answer(rewriter, request)
