"""A real memory system in a study (`systems.native`): which library, the model profile its LLM
and embedder are served by, and its options; built for one branch in a scratch directory."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memshift.errors import ConfigError
from memshift.intake.reading import config_schema
from memshift.intake.storable import parse_storable
from memshift.memory.interface import MemorySystem
from memshift.models.backends import api_key
from memshift.models.field_checks import check_fields
from memshift.models.profiles import Profile
from memshift.native.bridge import REPLY_TIMEOUT_S
from memshift.registry import NATIVE_SYSTEMS, load

if TYPE_CHECKING:
    from memshift.memory.programs import ProgramRunner

# the options only one library reads, by library
OWN_OPTIONS = {
    "mem0": ("batch", "invalidate", "program_view"),
    "lightrag": ("mode",),
    "memos": ("batch", "python", "reply_timeout_s"),
    "cognee": ("python", "reply_timeout_s"),
    "amem": ("python", "reply_timeout_s"),
    "hipporag": ("python", "reply_timeout_s"),
}


@dataclass(frozen=True)
class NativeSettings:
    library: str  # a key of registry.NATIVE_SYSTEMS
    profile: str  # an OpenAI-compatible profile of the models file: the system's LLM
    embedder_model: str  # served by the same profile's base_url (/v1/embeddings)
    embedding_dims: int
    embedder_base_url: str = ""  # another server for the embedder (vLLM serves one task a port)
    top_k: int = 20
    mode: str = "mix"  # LightRAG's query mode
    batch: int = 20  # Mem0, MemOS: messages per add
    invalidate: str = "none"  # Mem0: none | source (MemShift Table 19)
    program_view: bool = False  # Mem0: the writer's program value first (MemShift Table 19)
    # the libraries in an environment of their own (MemOS, Cognee, A-Mem, HippoRAG): the python
    # of that environment (default: the one environments/native.sh installs), and how long a
    # request may go unanswered before the library counts as hung
    python: str = ""
    reply_timeout_s: int = REPLY_TIMEOUT_S

    @classmethod
    def from_config(cls, name: str, raw: dict[str, Any]) -> NativeSettings:
        """The settings of `systems.native.<name>` (already checked against the schema)."""
        check_fields(f"systems.native.{name}", settings_schema(), raw, urls=URLS)
        settings = cls(**raw)
        own = OWN_OPTIONS[settings.library]
        foreign = [
            option
            for library, options in OWN_OPTIONS.items()
            if library != settings.library
            for option in options
            if option in raw and option not in own
        ]
        if foreign:
            raise ConfigError(
                f"systems.native.{name}.{foreign[0]}: an option of another library, not of "
                f"{settings.library}"
            )
        return settings

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, where: str = "settings") -> NativeSettings:
        """The settings a probe job is given in its spec (`where` names them in an error), held
        to the rules of `systems.native` in a study."""
        try:
            raw = parse_storable(text)
        except ValueError as exc:
            raise ConfigError(f"{where}: not a native system's settings: {exc}") from None
        if not isinstance(raw, dict):
            known = sorted(f.name for f in fields(cls))
            raise ConfigError(
                f"{where}: not a native system's settings: expected an object with keys among "
                f"{known}"
            )
        check_fields(where, settings_schema(), raw, urls=URLS)
        return cls(**raw)


URLS = ("embedder_base_url",)


@cache
def settings_schema() -> dict[str, Any]:
    """The schema of one native system's settings: `systems.native.<name>` of the config's."""
    settings: dict[str, Any] = config_schema()["properties"]["systems"]["properties"]["native"][
        "additionalProperties"
    ]
    return settings


def check_profile(name: str, profile: Profile) -> None:
    if profile.backend != "openai" or not profile.base_url:
        raise ConfigError(
            f"systems.native.{name}.profile: {profile.name!r} is a {profile.backend} profile; "
            "a native system needs an OpenAI-compatible server (backend openai with a base_url)"
        )


def build(
    settings: NativeSettings,
    profile: Profile,
    workdir: Path,
    programs: ProgramRunner | None = None,
) -> MemorySystem:
    """The library's adapter for one branch, its stores under `workdir`; `programs` are the
    writer's, for Mem0's program view."""
    check_profile(settings.library, profile)
    own = {
        option: getattr(settings, option)
        for option in OWN_OPTIONS[settings.library]
        if option != "program_view"
    }
    if settings.program_view:
        own["programs"] = programs
    adapter = load(NATIVE_SYSTEMS[settings.library])
    system: MemorySystem = adapter(
        base_url=profile.base_url,
        model=profile.model,
        api_key=api_key(profile, "local"),
        embedder_model=settings.embedder_model,
        embedding_dims=settings.embedding_dims,
        embedder_base_url=settings.embedder_base_url,
        top_k=settings.top_k,
        workdir=workdir,
        **own,
    )
    return system
