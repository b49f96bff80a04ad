"""The names a study is made of, in one place: branches, detections (B), repairs (D), baselines,
the grammar of system names and the orders the report shows them in, and the fixed settings of
its measures. Stages, the Snakefile's wildcards, the config schema (kept equal by a test) and the
report read them here."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memshift.registry import SHIFTS, SYSTEMS

# the registry entry serving every HoldMem cell, and the stem of every HoldMem name
HOLDMEM = "holdmem"
# a seed is a world's number, within a signed 32-bit integer
MAX_SEED = 2**31 - 1
# the branch without a shift, whose item-times pair with a shifted branch's
UNSHIFTED = "none"
# the branch whose shift moves definitions to their second version (unnamed probes are asked
# there)
REDEFINITION = "def"
# the branch whose shift revokes one scope of one agent, and the one whose redefinition is never
# stated: on both every item-time after the fork of the items the shift touched is probed (held
# probes, the population of their failure-mode measures)
CONSENT = "cons"
UNSTATED = "undef"
HELD_BRANCHES: tuple[str, ...] = (CONSENT, UNSTATED)
BRANCHES: tuple[str, ...] = (UNSHIFTED, *SHIFTS)


def in_order(names: Iterable[str]) -> tuple[str, ...]:
    """The branches of `names` once each, in the order of the shifts (none first): the other
    branches' gold reads none's."""
    chosen = set(names)
    return tuple(b for b in BRANCHES if b in chosen)


BRANCH_NAMES: dict[str, str] = {
    "none": "no shift",
    **{name: shift.label for name, shift in SHIFTS.items()},
}

# HoldMem's detection policies, in the report's order: `append` (B=0) never invalidates; the
# keyed ones invalidate an item whose key changed; `refresh` and `upsert` re-derive without
# retiring (or retire without a key); `leaky` is the validation control with a known m; `audit`
# lets a model propose and a gate verify.
DETECTIONS: tuple[str, ...] = (
    "append",
    "source",
    "citation",
    "oracle",
    "scope",
    "refresh",
    "upsert",
    "leaky",
    "audit",
)
# the detections a writer switch or an export can take: not the oracle key, a control built
# from gold, which holds no writer and which neither a switch nor an import has gold to rebuild
MOVABLE: tuple[str, ...] = tuple(d for d in DETECTIONS if d != "oracle")
KEYED: tuple[str, ...] = ("source", "citation", "oracle", "scope", "audit", "leaky")
# What a B=1 cell revokes an item by when the asking agent loses a scope: the scopes its served
# write read (the writer's selection) or cited; a B=0 cell keeps no read set and ignores consent
# (MemShift F.10).
READ_SETS: tuple[str, ...] = ("selection", "citations")
# The leaky control: the source key, blind to a seeded share of the item slots of each world, so
# its missed invalidation is known (a validation of m).
LEAKY_BLIND_SHARE = 0.25
# The prefix cache a job's prompts are replayed through for the cacheable share
# (`models/prefix_cache.py`): vLLM's 16-token blocks, and 2^20 tokens of room.
BLOCK_TOKENS = 16
CAPACITY_TOKENS = 2**20
# D: the writer's own value (0), exact recomputation (1), the writer's programs (m), and four
# controls: the check-only control (check: D=1's check without its recomputation; a failed check
# serves nothing), the JSON arm (json: D=1's store served as JSON records), the template
# control (tmpl: D=0's value stated in D=1's template) and the user's words (w: D=m with programs
# written from the definitions in the person's own phrasing, MemShift F.4)
REPAIRS: tuple[str, ...] = ("0", "1", "m", "check", "json", "tmpl", "w")
CHECK_ONLY, JSON_ARM, TEMPLATE, WORDS = "check", "json", "tmpl", "w"
PROGRAMS = "m"
# the arms whose repair runs the writer's programs, and the wording of the definition each
# program request states
PROGRAM_WORDING: dict[str, str] = {PROGRAMS: "codified", WORDS: "user"}
# each control against the arm it varies, as (plus, minus) of its contrast: what recomputation
# adds to the check alone, what JSON records change against statements, what D=1's template
# changes for D=0's value
CONTROLS: dict[str, tuple[str, str]] = {
    CHECK_ONLY: ("1", CHECK_ONLY),
    JSON_ARM: (JSON_ARM, "1"),
    TEMPLATE: (TEMPLATE, "0"),
    WORDS: (WORDS, PROGRAMS),
}
BASELINES: tuple[str, ...] = tuple(name for name in SYSTEMS if name != HOLDMEM)
ITEM_CLASSES: tuple[str, ...] = ("all", "definition", "other", "free text")


def item_class(definition: bool, free_text: bool) -> str:
    """The report's class of an item (as `analysis/sql/item_times.sql` assigns it)."""
    return "definition" if definition else ("free text" if free_text else "other")


# The model roles: each names a profile (`roles:` in a study, `llm` where it does not); a run's
# folder is `llm` followed by `+role=profile` for every role whose profile differs from it.
ROLES: tuple[str, ...] = ("writer", "reader", "program", "auditor")
# roles that build worlds rather than run memories: named by the world's config, not `roles:`
WORLD_ROLES: tuple[str, ...] = ("rewriter",)


def role_profiles(llm: str, roles: dict[str, str]) -> dict[str, str]:
    """Every role's profile: the one `roles` names, else `llm`."""
    return {role: roles.get(role, llm) for role in ROLES}


def run_name(llm: str, roles: dict[str, str]) -> str:
    """The run folder of a study whose roles use these profiles (`rules`,
    `rules+reader=claude-sonnet`)."""
    profiles = role_profiles(llm, roles)
    return llm + "".join(f"+{role}={profiles[role]}" for role in ROLES if profiles[role] != llm)


# A system's name names the folders and files of its outputs (`layout.system_dir`): one path
# component of lower-case letters, digits, - and _, starting with a letter or digit, at most
# SYSTEM_NAME_MAX characters. The config schema gives the names of custom, native and predicted
# systems the same rule (a test keeps them equal) and the command line checks every name it is
# given with `system_name_problem`.
SYSTEM_NAME = r"[a-z0-9][a-z0-9_-]*"
SYSTEM_NAME_MAX = 64


def system_name_problem(name: str) -> str | None:
    """Why `name` is not a system name, or None."""
    if len(name) > SYSTEM_NAME_MAX:
        return f"is not a system name: {len(name):,} characters, at most {SYSTEM_NAME_MAX}"
    if re.fullmatch(SYSTEM_NAME, name) is None:
        return (
            "is not a system name: lower-case letters, digits, - and _, starting with a letter "
            "or digit"
        )
    return None


# System names: a detection's writes `holdmem-<detection>`, a cell `holdmem-d<repair>-<detection>`,
# the answers of any system after the answer-level audit `<system>+audit`; the store written
# before the fork is logged under `holdmem`.
AUDITED = "+audit"
_CELL = re.compile(r"holdmem-d(?P<repair>[^-]+)-(?P<detection>[^+]+)")


def detection_system(detection: str) -> str:
    return f"{HOLDMEM}-{detection}"


def cell_system(detection: str, repair: str) -> str:
    return f"{HOLDMEM}-d{repair}-{detection}"


def cell_parts(system: str) -> tuple[str, str] | None:
    """(repair, detection) of a HoldMem cell's name; None for any other system."""
    match = _CELL.fullmatch(system)
    return None if match is None else (match["repair"], match["detection"])


# How much of StateAuditor an audit runs: the full audit (base audit in two passes, transitions,
# the gate, verified-only authority), or one of its ablations (`memshift.audit.arbiter`).
AUDIT_VARIANTS = ("full", "draftonly", "nogate", "noauthority", "control", "semantic", "joint")
# An ablation of the audit names its answers `<system>+audit-<variant>` (`AUDIT_VARIANTS`).
# (the SQL of the report matches names with the same pattern: `analysis/frame.py`)
AUDITED_PATTERN = r"(?P<base>.+)\+audit(?:-(?P<variant>[a-z]+))?"
_AUDITED = re.compile(AUDITED_PATTERN)


def audited_system(system: str, variant: str = "full") -> str:
    """The name under which `system`'s answers are scored after the answer-level audit (an
    ablation's: with its variant)."""
    return system + AUDITED + ("" if variant == "full" else f"-{variant}")


def audited_parts(system: str) -> tuple[str, str] | None:
    """(audited system, variant) of an audited system's name; None for any other system."""
    match = _AUDITED.fullmatch(system)
    if match is None:
        return None
    return match["base"], match["variant"] or "full"


def audited_base(system: str) -> str | None:
    """The system whose answers `system` audits; None when it is not an audited system."""
    parts = audited_parts(system)
    return None if parts is None else parts[0]


# A HoldMem cell exported to Portable Memory and imported by the second implementation,
# `pm-d<repair>-<detection>-<arm>`, with (`ext`) or without (`noext`) the derivation extension.
PORTABLE = "pm"
EXPORT_ARMS: tuple[str, ...] = ("ext", "noext")
_PORTABLE = re.compile(r"pm-d(?P<repair>[^-]+)-(?P<detection>[^+]+)-(?P<arm>ext|noext)")


def portable_system(cell: str, arm: str) -> str:
    """The imported memory of a HoldMem cell's export in one arm."""
    return f"{PORTABLE}-{cell.removeprefix(HOLDMEM + '-')}-{arm}"


def portable_parts(system: str) -> tuple[str, str] | None:
    """(the exported cell, the arm) of an imported memory's name; None for any other system."""
    match = _PORTABLE.fullmatch(system)
    if match is None:
        return None
    return cell_system(match["detection"], match["repair"]), match["arm"]


def is_reserved(name: str) -> bool:
    """Whether a custom system may not take `name`: a built-in's, a floor's, or any HoldMem
    name."""
    return name in SYSTEMS or name in FLOORS or name.startswith((HOLDMEM, PORTABLE + "-"))


# The floors (memshift/scoring/floors.py): answers to every probe of every study, computed by
# the score stage without a memory or a model and reported beside the systems, not as contenders.
# `always-abstain` abstains on every probe; `frozen-at-fork` answers every probe with its item's
# value in HoldMem's pre-fork store, at every checkpoint (it never notices a change). Neither
# invalidates anything, so both have m = 1 on every changed item-time. (The SQL of the report
# knows them through the macro `is_floor`: `analysis/frame.py`.)
ALWAYS_ABSTAIN = "always-abstain"
FROZEN_AT_FORK = "frozen-at-fork"
FLOORS: tuple[str, ...] = (ALWAYS_ABSTAIN, FROZEN_AT_FORK)


def is_floor(system: str) -> bool:
    return system in FLOORS


def choice(values: tuple[str, ...]) -> str:
    """A Snakemake wildcard constraint matching exactly one of `values`."""
    return "|".join(re.escape(v) for v in values) or "(?!)"
