"""The one check of every URL, number and secret that a model profile or a native memory
system's settings hold, whether read from a file, given on a command line or built in code.

What it refuses would otherwise pass until the first call, then fail there with a traceback or
never end: a key with a line break (the HTTP library refuses the header), a NaN timeout (a call
to a silent server waits for ever), a NaN decoding value (sent as `NaN`, which is no JSON), a URL
with a line break or a tab (which URL parsing drops without a word, so another host is called
than the one written), credentials (printed on command lines and written to manifests), a query
string (the API path is appended after it), no host, or a port out of range. Each refusal is
one line naming the setting and the field; none repeats a URL or a key, which may hold a
secret. A secret is refused, never trimmed: a key that is not the one the user set is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from memshift.errors import ConfigError
from memshift.intake.storable import value_problem
from memshift.intake.strict_schema import first_error

URL_SCHEMES = ("http", "https")
MAX_URL_CHARACTERS = 2048
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_PORT = re.compile(r"[0-9]{1,5}")


def url_problem(url: Any) -> str | None:
    """Why `url` is not a plain http(s)://host[:port][/path], or None. The problem never
    repeats the URL."""
    if not isinstance(url, str):
        return "must be a string"
    if len(url) > MAX_URL_CHARACTERS:
        return f"is longer than {MAX_URL_CHARACTERS:,} characters"
    if _CONTROL.search(url) or any(character.isspace() for character in url):
        return "must not hold whitespace or a control character (a line break, a tab...)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        return "is not a valid URL (its host or port cannot be read)"
    if "@" in parts.netloc:
        return (
            "must not carry credentials (user:key@); put the API key in an environment "
            "variable and name it in api_key_env"
        )
    if parts.scheme not in URL_SCHEMES or not parts.hostname:
        return "must be an http:// or https:// URL with a host"
    port = _port_text(parts.netloc)
    if port is not None and not (_PORT.fullmatch(port) and 1 <= int(port) <= 65535):
        return "must have a port from 1 to 65535"
    if "?" in url or "#" in url:
        return "must not carry a query string or fragment (the API path is appended to it)"
    return None


def _port_text(netloc: str) -> str | None:
    """The port as written after the host (an IPv6 host is in brackets), None if none is."""
    after_host = netloc.rsplit("]", 1)[-1]
    if ":" not in after_host:
        return None
    port = after_host.rsplit(":", 1)[1]
    return port or None


def secret_problem(secret: str) -> str | None:
    """Why `secret` cannot go in an HTTP header as it is, or None. The problem names where in
    the secret, never what."""
    if secret != secret.strip():
        return (
            "begins or ends with whitespace (a line break left by a file or `echo`?); set the "
            "variable to the key alone, memshift does not trim it"
        )
    for position, character in enumerate(secret, 1):
        if _CONTROL.match(character):
            return f"holds a control character at character {position}"
        if not (character.isascii() and character.isprintable()):
            return f"holds a character that is not printable ASCII at character {position}"
    return None


def check_secret(where: str, what: str, secret: str) -> None:
    problem = secret_problem(secret)
    if problem is not None:
        raise ConfigError(f"{where}: {what} {problem}")


def fields_problem(
    schema: Mapping[str, Any],
    raw: Mapping[str, Any],
    urls: Sequence[str] = (),
    sent: Sequence[str] = (),
) -> tuple[str, str] | None:
    """(field, problem) of the first field of `raw` that is not valid, or None; the field is ""
    for a problem of the whole (a field missing or unknown). Looked at in turn: each URL of
    `urls` (first, so that no other message can quote it), the whole against `schema` (an
    integer is an int, a number is finite, each within the schema's bounds), and each value of
    `sent` (objects sent to a server as they are) as JSON can carry it."""
    for name in urls:
        problem = url_problem(raw[name]) if raw.get(name) else None
        if problem is not None:
            return name, problem
    error = first_error(schema, raw)
    if error is not None:
        return ".".join(str(step) for step in error.absolute_path), error.message
    for name in sent:
        problem = value_problem(raw.get(name))
        if problem is not None:
            return name, f"holds {problem}"
    return None


def check_fields(
    where: str,
    schema: Mapping[str, Any],
    raw: Mapping[str, Any],
    urls: Sequence[str] = (),
    sent: Sequence[str] = (),
) -> None:
    """Raise ConfigError `<where>: <field> <problem>` for the first field of `raw` that is not
    valid (`fields_problem`); a problem of the whole (a field missing or unknown) has no field."""
    found = fields_problem(schema, raw, urls, sent)
    if found is not None:
        field, problem = found
        raise ConfigError(f"{where}: {field} {problem}" if field else f"{where}: {problem}")
