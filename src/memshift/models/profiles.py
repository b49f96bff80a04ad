"""Model profiles: which backend, model and decoding parameters a run uses.

Profiles live in `config/models.yaml`; a study names one with `llm: NAME`. API keys are never in
a profile: `api_key_env` names the environment variable that holds one, and a `base_url` that
carries credentials is refused. A decoding parameter a profile omits is not sent at all (some
models refuse `temperature` or `top_p`); only the token limit is required. Every URL and number
of a profile, loaded or built in code, passes `field_checks` before a call is made.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from memshift.errors import ConfigError
from memshift.intake.reading import describe_error, load_yaml
from memshift.intake.strict_schema import first_error
from memshift.models.field_checks import check_fields, url_problem
from memshift.registry import BACKENDS
from memshift.vocabulary import ROLES, WORLD_ROLES

DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024
MAX_TIMEOUT_S = 24 * 60 * 60
MAX_TOKENS = 2**24  # a context window's or a reply's tokens
# How a server takes the reply's JSON schema (docs/models.md, "Structured output"), by backend:
# the first of each is the default.
STRUCTURED_MODES = {
    "openai": ("json_schema", "json_object", "tool", "text"),
    "anthropic": ("json_schema", "tool", "text"),
    "ollama": ("format", "text"),
}
# The decoding parameters that bound a reply's tokens (`num_predict` is Ollama's own name).
REPLY_LIMITS = ("max_tokens", "max_completion_tokens", "num_predict")

_ALL_MODES = sorted({mode for modes in STRUCTURED_MODES.values() for mode in modes})
_DECODING = {
    "type": "object",
    "properties": {
        limit: {"type": "integer", "minimum": 1, "maximum": MAX_TOKENS} for limit in REPLY_LIMITS
    },
    "additionalProperties": {"type": ["number", "integer", "string", "boolean"]},
}
PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["backend"],
    "additionalProperties": False,
    "properties": {
        "backend": {"enum": list(BACKENDS)},
        "model": {"type": "string"},
        "revision": {"type": "string"},
        "base_url": {"type": "string"},
        "api_key_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "concurrency": {"type": "integer", "minimum": 1, "maximum": 1024},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_S},
        "max_attempts": {"type": "integer", "minimum": 1, "maximum": 20},
        "max_reply_bytes": {"type": "integer", "minimum": 1024, "maximum": 2**30},
        "decoding": _DECODING,
        "extra_body": {"type": "object"},
        "structured": {"enum": _ALL_MODES},
        "context_length": {"type": "integer", "minimum": 256, "maximum": MAX_TOKENS},
        "token_ratio": {"type": "number", "minimum": 0.25, "maximum": 8},
        "thinking": {"type": "object"},
        "roles": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                role: {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"decoding": _DECODING, "structured": {"enum": _ALL_MODES}},
                }
                for role in (*ROLES, *WORLD_ROLES)
            },
        },
        "error_model": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "seed": {"type": "integer"},
                **{
                    table: {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            g: {"type": "number", "minimum": 0, "maximum": 1}
                            for g in ("definition", "free_text", "other")
                        },
                    }
                    for table in ("rates", "overlooks")
                },
            },
        },
        "description": {"type": "string"},
    },
}
FILE_SCHEMA = {
    "type": "object",
    "required": ["profiles"],
    "additionalProperties": False,
    "properties": {"profiles": {"type": "object", "additionalProperties": PROFILE_SCHEMA}},
}


@dataclass(frozen=True)
class Profile:
    name: str
    backend: str
    model: str = "rules"
    revision: str = ""
    base_url: str = ""
    api_key_env: str = ""
    concurrency: int = 16
    timeout_s: float = 600.0
    max_attempts: int = 6
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    decoding: dict[str, Any] = field(default_factory=dict)
    extra_body: dict[str, Any] = field(default_factory=dict)
    structured: str = ""
    # the model's context window in its own tokens (0: not stated, nothing is budgeted to it),
    # and how many of the model's tokens one of memshift's counted tokens makes (tokens.py)
    context_length: int = 0
    token_ratio: float = 1.0
    thinking: dict[str, Any] = field(default_factory=dict)
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)
    error_model: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def decoding_for(self, role: str) -> dict[str, Any]:
        return {**self.decoding, **self.roles.get(role, {}).get("decoding", {})}

    def structured_for(self, role: str) -> str:
        """How the role's requests carry their reply schema: the role's own setting, else the
        profile's, else the backend's default (`STRUCTURED_MODES`)."""
        chosen = self.roles.get(role, {}).get("structured") or self.structured
        return chosen or STRUCTURED_MODES.get(self.backend, ("json_schema",))[0]

    def reply_tokens(self, role: str) -> int:
        """The most tokens a reply of `role` may take (the decoding's token limit; 0 if none)."""
        decoding = self.decoding_for(role)
        return next((int(decoding[k]) for k in REPLY_LIMITS if k in decoding), 0)

    def prompt_room(self, role: str) -> int | None:
        """How many of memshift's counted tokens a prompt of `role` may take so that it and the
        longest reply fit the context window; None when the profile states no window."""
        if not self.context_length:
            return None
        return max(0, int((self.context_length - self.reply_tokens(role)) / self.token_ratio))


def given_fields(profile: Profile) -> dict[str, Any]:
    """The fields of a profile that differ from the defaults: what a models file would say."""
    given = {}
    for spec in fields(Profile):
        default = spec.default if spec.default_factory is MISSING else spec.default_factory()
        value = getattr(profile, spec.name)
        if spec.name != "name" and (value != default or type(value) is not type(default)):
            given[spec.name] = value
    return given


# The fields sent to a server as they are written, inside no schema of their own.
SENT_AS_WRITTEN = ("extra_body", "thinking")


def check_profile_fields(profile: Profile, raw: dict[str, Any] | None = None) -> None:
    """Refuse, in one line naming the profile and the field, a profile whose URL, numbers or
    sent values are not valid (`field_checks`); `raw` is what its file says, if it was read
    from one."""
    check_fields(
        f"model profile {profile.name!r}",
        PROFILE_SCHEMA,
        given_fields(profile) if raw is None else raw,
        urls=("base_url",),
        sent=SENT_AS_WRITTEN,
    )


def _check(name: str, raw: dict[str, Any]) -> Profile:
    profile = Profile(name=name, **raw)
    if profile.backend == "rules":
        check_profile_fields(profile, raw)
        return profile
    for needed in ("model", "base_url"):
        if not raw.get(needed):
            raise ConfigError(
                f"model profile {name!r}: a {profile.backend} profile needs {needed!r}"
            )
    if not any(limit in profile.decoding for limit in REPLY_LIMITS):
        raise ConfigError(
            f"model profile {name!r}: decoding must set max_tokens (or "
            "max_completion_tokens, or num_predict) so no server default can apply"
        )
    check_profile_fields(profile, raw)
    check_extra_body(profile)
    modes = STRUCTURED_MODES.get(profile.backend, ())
    for role in ("", *profile.roles):
        chosen = profile.roles.get(role, {}).get("structured") if role else profile.structured
        if chosen and chosen not in modes:
            where = f"roles.{role}.structured" if role else "structured"
            raise ConfigError(
                f"model profile {name!r}: {where} {chosen!r} is not a form the {profile.backend} "
                f"backend sends; it takes {', '.join(modes)}"
            )
    if profile.context_length and any(
        profile.prompt_room(role) == 0 for role in ("writer", *profile.roles)
    ):
        raise ConfigError(
            f"model profile {name!r}: context_length {profile.context_length} leaves no room for "
            "a prompt beside the reply's token limit"
        )
    if profile.backend == "ollama" and profile.context_length:
        _check_num_ctx(profile)
    return profile


def _check_num_ctx(profile: Profile) -> None:
    """Ollama cuts a prompt longer than the window it runs (`num_ctx`) without saying so: a
    stated context_length beyond the num_ctx sent would let prompts be cut silently."""
    options = profile.extra_body.get(OPTIONS_FIELD)
    default = options.get("num_ctx") if isinstance(options, dict) else None
    for role in ("writer", *profile.roles):
        num_ctx = ollama_options(profile.decoding_for(role)).get("num_ctx", default)
        if isinstance(num_ctx, int) and num_ctx < profile.context_length:
            raise ConfigError(
                f"model profile {profile.name!r}: context_length {profile.context_length} is "
                f"more than the num_ctx {num_ctx} sent to Ollama, which cuts longer prompts "
                "without an error; state the window the server runs"
            )


# The request fields each backend sets itself; extra_body may add fields, never replace these.
OWN_FIELDS = {
    "openai": ("model", "messages", "response_format", "tools", "tool_choice", "stream"),
    "anthropic": ("model", "system", "messages", "tools", "tool_choice", "output_config"),
    "ollama": ("model", "messages", "format", "stream"),
}
# Ollama takes decoding parameters inside `options`; memshift's `max_tokens` goes there as
# `num_predict`.
OPTIONS_FIELD = "options"
OPTION_NAMES = {"max_tokens": "num_predict"}


def ollama_options(decoding: dict[str, Any]) -> dict[str, Any]:
    """The `options` of an Ollama request for these decoding parameters."""
    return {OPTION_NAMES.get(key, key): value for key, value in decoding.items()}


def check_extra_body(profile: Profile) -> None:
    """Refuse an extra_body field that would replace one memshift sets (its schema form, the
    messages, a decoding parameter): it used to be dropped silently in favour of extra_body."""
    roles = (*profile.roles, "writer")
    decoding = {key for role in roles for key in profile.decoding_for(role)}
    own = {*OWN_FIELDS.get(profile.backend, ()), *decoding}
    if profile.thinking:
        own.add("thinking")
    clash = sorted(own & set(profile.extra_body))
    if profile.backend == "ollama" and OPTIONS_FIELD in profile.extra_body:
        clash += _option_clash(profile, roles)
    if clash:
        raise ConfigError(
            f"model profile {profile.name!r}: extra_body sets {', '.join(clash)}, which "
            "memshift sets itself; choose the schema's form with `structured` (per role: "
            "roles.<role>.structured) and decoding parameters in `decoding`"
        )


def _option_clash(profile: Profile, roles: tuple[str, ...]) -> list[str]:
    """extra_body's `options` merge key by key into those memshift fills from `decoding`; a key
    of both would replace a decoding parameter."""
    options = profile.extra_body[OPTIONS_FIELD]
    if not isinstance(options, dict):
        return [OPTIONS_FIELD]
    sent = {name for role in roles for name in ollama_options(profile.decoding_for(role))}
    return [f"{OPTIONS_FIELD}.{key}" for key in sorted(sent & set(options))]


def check_base_url(name: str, url: str) -> None:
    """Refuse a base URL that is not plain http(s)://host[:port][/path] (`field_checks`):
    credentials in it would be sent, logged and written to the run manifest (the key belongs in
    `api_key_env`), and the API path is appended to it, which a query string or fragment would
    break. The error never repeats the URL, which may hold a secret."""
    problem = url_problem(url)
    if problem is not None:
        raise ConfigError(f"model profile {name!r}: base_url {problem}")


def load_profiles(path: Path) -> dict[str, Profile]:
    data = load_yaml(Path(path), "model profiles")
    error = first_error(FILE_SCHEMA, data)
    if error is not None:
        raise ConfigError(f"{path}: {describe_error(error)}")
    return {name: _check(name, raw) for name, raw in data["profiles"].items()}


def load_profile(path: Path, name: str) -> Profile:
    profiles = load_profiles(path)
    if name not in profiles:
        raise ConfigError(
            f"unknown model profile {name!r}; {path} defines {', '.join(sorted(profiles))}"
        )
    return profiles[name]


def study_profile(name: str, path: Path) -> Profile:
    """The profile a run uses: `name` from the models file, or the built-in rule-based profile
    when `name` is `rules` and there is no models file."""
    if name == "rules" and not Path(path).exists():
        return Profile("rules", "rules")
    return load_profile(Path(path), name)


def role_fingerprint(profile: Profile, role: str) -> str:
    """A hash of what in a profile can change the replies of `role`: backend, model and revision,
    server, structured-output mode, thinking, extra fields, the role's decoding and (for the
    writer) the error model. Concurrency, timeouts, retries and the key's variable cannot."""
    if role not in (*ROLES, *WORLD_ROLES):
        raise ValueError(f"unknown role {role!r}; roles are {', '.join((*ROLES, *WORLD_ROLES))}")
    fields = {
        "backend": profile.backend,
        "model": profile.model,
        "revision": profile.revision,
        "base_url": profile.base_url,
        "structured": profile.structured_for(role),
        "thinking": profile.thinking,
        "extra_body": profile.extra_body,
        "decoding": profile.decoding_for(role),
        "error_model": profile.error_model if role == "writer" else {},
    }
    if profile.context_length:  # budgets the evidence of every role, so its prompts
        fields["context"] = [profile.context_length, profile.token_ratio]
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
