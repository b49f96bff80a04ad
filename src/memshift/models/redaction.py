"""Keeping API keys out of everything memshift stores, logs or raises.

A server may echo the credentials it was sent in an error body ("Incorrect API key provided:
sk-..."), and an error detail ends up in the call log, the `models check` report and exceptions.
Every such string passes through `redact`, which removes the profile's own key wherever it
appears and the value of anything that reads as an `Authorization`, `x-api-key` or `api-key`
header or field, key known or not. A URL that is shown or written passes through `shown_url`,
which removes what in a URL can be a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from memshift.intake.storable import storable_text

REDACTED = "[REDACTED]"
_CREDENTIAL = re.compile(
    r"""(?ix)
    (\b(?:proxy-)?authorization|\bx-api-key|\bapi[-_]key)  # the name
    (["']?\s*[:=]\s*["']?)                                   # its separator, maybe quoted
    (?:(?:bearer|basic|token)\s+)?                           # a scheme
    [^\s"',;&}\]]+                                           # the value
    """
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret and every credential-looking header value replaced, and with
    any lone surrogate escaped, so the result can be stored anywhere."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _CREDENTIAL.sub(lambda match: f"{match.group(1)}{match.group(2)}{REDACTED}", text)
    return storable_text(text)


def shown_url(url: str) -> str:
    """`url` as it may be shown or written: credentials (user:key@), a query string and a
    fragment replaced, control characters escaped. A profile made in code is never loaded, so
    its URL may hold anything its maker put there."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{REDACTED}@{host}" if "@" in parts.netloc else host
    shown = urlunsplit(
        (
            parts.scheme,
            netloc,
            parts.path,
            REDACTED if parts.query else "",
            REDACTED if parts.fragment else "",
        )
    )
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in storable_text(shown))
