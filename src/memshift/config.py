"""Study configuration: seed ranges, the config schema check and its one-line errors."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from memshift import layout
from memshift.definitions.catalog import FIXED_SET
from memshift.errors import ConfigError
from memshift.intake.reading import (
    MAX_DEPTH,
    config_schema,
    describe_error,
    load_yaml,
)
from memshift.intake.strict_schema import first_error
from memshift.layout import Study
from memshift.probes.sample import ProbeSample
from memshift.vocabulary import (
    MAX_SEED,
    MOVABLE,
    REPAIRS,
    UNSHIFTED,
    WORDS,
    cell_parts,
    cell_system,
    is_reserved,
    portable_system,
    role_profiles,
    run_name,
)

SPLITS: dict[str, range] = {
    "dev": range(0, 10),
    "calibration": range(900, 910),
    "test": range(1000, 1020),
    "replication": range(1020, 1040),
}
MAX_CONFIG_VALUES = 100_000
DEFAULT_CONFIG = layout.config_file("config")


def parse_seeds(spec: str | int | list[Any]) -> list[int]:
    """Seeds from '1000-1019', '0-9,900-909', a split name ('test'), an int or a list of these."""
    if isinstance(spec, bool):
        raise ConfigError(f"seeds: {spec!r} is not a seed range")
    if isinstance(spec, int):
        parts: list[Any] = [spec]
    elif isinstance(spec, list):
        parts = spec
    elif isinstance(spec, str):
        parts = [p.strip() for p in spec.split(",")]
    else:
        raise ConfigError(f"seeds: {spec!r} is not a seed range")
    seeds: list[int] = []
    for part in parts:
        seeds.extend(_seed_part(part))
    if not seeds:
        raise ConfigError("seeds: the range is empty")
    duplicates = sorted({s for s in seeds if seeds.count(s) > 1})
    if duplicates:
        raise ConfigError(f"seeds: {duplicates[:5]} listed more than once")
    return seeds


def _seed_part(part: Any) -> list[int]:
    if isinstance(part, int) and not isinstance(part, bool):
        return [_check_seed(part)]
    if not isinstance(part, str) or not part:
        raise ConfigError(f"seeds: {part!r} is not a seed, a range 'A-B' or a split name")
    if part in SPLITS:
        return list(SPLITS[part])
    lo, dash, hi = part.partition("-")
    try:
        if not dash:
            return [_check_seed(int(lo))]
        a, b = int(lo), int(hi)
    except ValueError:
        raise ConfigError(
            f"seeds: {part!r} is not a seed, a range 'A-B' or a split name ({', '.join(SPLITS)})"
        ) from None
    if b < a:
        raise ConfigError(f"seeds: range {part!r} ends before it starts")
    return [_check_seed(s) for s in range(a, b + 1)]


def _check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seeds: {seed} is outside 0..{MAX_SEED}")
    return seed


def _key(path: tuple[str, ...]) -> str:
    return ".".join(path) or "(top level)"


def check_bounds(config: Any) -> None:
    """Refuse a config of more than MAX_CONFIG_VALUES values or nested deeper than MAX_DEPTH,
    counting a value reached twice (a YAML alias from any source) twice."""
    left = MAX_CONFIG_VALUES
    stack: list[tuple[Any, tuple[str, ...]]] = [(config, ())]
    while stack:
        value, path = stack.pop()
        left -= 1
        if left < 0:
            raise ConfigError(
                f"config {_key(path)}: the config holds more than {MAX_CONFIG_VALUES:,} values"
            )
        if len(path) > MAX_DEPTH:
            raise ConfigError(f"config {_key(path)}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, Mapping):
            stack.extend((v, (*path, str(k))) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((v, (*path, str(i))) for i, v in enumerate(value))


def check_config(config: dict[str, Any]) -> dict[str, Any]:
    """Validate against the package's schema and resolve seeds, custom systems and the embedder;
    raise ConfigError in one line."""
    check_bounds(config)
    schema = config_schema()
    error = first_error(schema, config)
    if error is not None:
        raise ConfigError(describe_error(error))
    resolved = with_defaults(config, schema)
    if "horizon" in resolved:
        resolved["worlds"]["history_months"] = resolved["horizon"]
    if "definition_set" in resolved:
        resolved["worlds"]["definitions"] = resolved["definition_set"]
    if "rewriter" in resolved:
        resolved["worlds"]["rewriter"] = resolved["rewriter"] or None
    resolved["seed_list"] = parse_seeds(resolved["worlds"]["seeds"])
    check_paths(resolved)
    check_words(resolved)
    resolved["system_plan"] = study_systems(resolved)
    resolved["role_profiles"] = role_profiles(resolved["llm"], resolved["roles"])
    resolved["switch_plan"] = switch_plan(resolved)
    resolved["export_plan"] = export_plan(resolved)
    resolved["probe_sample"] = probe_sample(resolved)
    check_embedder(resolved["embedder"])
    return resolved


# The parts of a study that build memories of their own from the whole world: a sample would not
# reach them, and their tables would set a slice beside whole worlds.
UNSAMPLED_PARTS = ("writer_switch", "export", "sync")


def probe_sample(config: Mapping[str, Any]) -> ProbeSample | None:
    """The study's `probes.sample`, None without one; refused beside the parts it cannot
    reach."""
    sample = ProbeSample.from_config(config["probes"].get("sample"))
    found = [part for part in UNSAMPLED_PARTS if config.get(part) is not None]
    if sample is not None and found:
        raise ConfigError(
            f"probes.sample: a sampled study cannot have {found[0]}: it builds its memories "
            "from every item of the world (run it in a study of its own)"
        )
    return sample


def check_paths(study: Mapping[str, Any]) -> None:
    """The results folder, the models file and the predictions files may hold any character but
    braces: the workflow's file patterns and parameters are built from them, and Snakemake reads
    `{...}` there as a wildcard; the results folder cannot start with '-' either. (Every other
    character reaches a rule's command quoted, as one word.)"""
    paths = {key: study[key] for key in ("results", "models")}
    for name, path in study["systems"]["predictions"].items():
        paths[f"systems.predictions.{name}"] = path
    for key, path in paths.items():
        if "{" in path or "}" in path:
            raise ConfigError(
                f"config {key}: {path!r} holds a brace, which Snakemake would read as a "
                "wildcard of the workflow's file patterns; name it without { and }"
            )
    # the results folder's paths are also the stages' arguments (`memshift score ANSWERS...`)
    if study["results"].startswith("-"):
        raise ConfigError(
            f"config results: {study['results']!r} starts with '-', which a stage would read "
            f"as an option; name it {'./' + study['results']!r}"
        )


def check_words(study: Mapping[str, Any]) -> None:
    """The user's-words arm (D=w) states the fixed six in the person's words: held-out
    definitions have none."""
    holdmem = study["systems"]["holdmem"]
    repairs = [
        *holdmem["repairs"],
        *(parts[0] for c in holdmem["extra_cells"] if (parts := cell_parts(c)) is not None),
    ]
    sets = study.get("definition_sets") or [study["worlds"]["definitions"]]
    held_out = [s for s in sets if s != FIXED_SET]
    if WORDS in repairs and held_out:
        raise ConfigError(
            f"systems.holdmem: the user's-words arm (D={WORDS}) needs the fixed definitions; "
            f"{held_out[0]} has no user's words"
        )


def with_defaults(config: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """`config` with every key the schema gives a default filled in, at any depth: the schema is
    the one place a default is written."""
    filled = copy.deepcopy(dict(config))
    for key, rule in schema.get("properties", {}).items():
        if key not in filled and "default" in rule:
            filled[key] = copy.deepcopy(rule["default"])
        if isinstance(filled.get(key), dict) and "properties" in rule:
            filled[key] = with_defaults(filled[key], rule)
    return filled


def study_layout(study: Mapping[str, Any], **worlds: Any) -> Study:
    """Where a checked study's artifacts go (`layout.py`); with `worlds`, those settings of its
    worlds changed, as `snakemake --config horizon=`, `definition_set=` or `rewriter=` changes
    them (where a side study finds each of its runs)."""
    changed = {**study["worlds"], **worlds}
    return Study(
        Path(study["results"]),
        study["study"],
        changed["history_months"],
        run_name(study["llm"], study["roles"]),
        changed["definitions"],
        changed.get("rewriter"),
    )


def check_embedder(spec: str) -> None:
    from memshift.retrieval.embeddings import embedder_class

    try:
        embedder_class(spec)
    except ConfigError as exc:
        raise ConfigError(f"config embedder: {exc}") from None


def read_config_file(path: Path) -> dict[str, Any]:
    """A config file as a mapping, read through the safe loader."""
    data = load_yaml(path, "config")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must be a mapping of keys to values")
    return data


def merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """`update` merged into `base` key by key, as Snakemake merges config files."""
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
    return base


# The keys a study file takes whole or not at all: systems are run only where a study names
# them, so a study that sets any of `systems` gets none of the default study's (a study naming
# only the `append` detection does not inherit the default's extra cells)
WHOLE_SECTIONS = ("systems",)


def study_config(
    default: Path, files: Sequence[Path] = (), given: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The study as Snakemake sees it: `default`, then each of `files`, then `given` (what
    Snakemake already read from the command line) merged over it; every file is read through
    the safe loader, so one Snakemake read first is checked here too. A section of
    WHOLE_SECTIONS that a file sets is not taken from `default`."""
    studies = [read_config_file(Path(path)) for path in files]
    config = _default_under(default, studies)
    for study in studies:
        merge(config, study)
    check_bounds(given or {})
    return merge(config, given or {})


def checked_study(
    configfile: Path | None, given: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The study a command's --configfile names (config/config.yaml alone without one), as the
    Snakefile reads it, checked."""
    return check_config(study_config(DEFAULT_CONFIG, [configfile] if configfile else [], given))


def _default_under(default: Path, studies: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`default` as the base of `studies`: without a WHOLE_SECTIONS section any of them sets."""
    config = read_config_file(default)
    for section in WHOLE_SECTIONS:
        if any(section in study for study in studies):
            config.pop(section, None)
    return config


def typed_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The nested values of `snakemake --config` typed as YAML types them: Snakemake reads a
    nested value (`report={draws: 1000}`) with YAML's base loader, which leaves every leaf a
    string; a top-level one (`horizon=3`) it types itself."""
    return {key: _typed(v) for key, v in overrides.items() if isinstance(v, dict | list)}


# a leaf longer than this is text, not a number or a flag
_TYPED_LENGTH = 64


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _typed(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, str) and len(value) <= _TYPED_LENGTH:
        try:
            scalar = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if scalar is None or isinstance(scalar, bool | int | float):
            return scalar
    return value


def inherited(
    default: Path, files: Sequence[Path] = (), given: Mapping[str, Any] | None = None
) -> list[str]:
    """The settings (dotted paths of leaves) a study of `files` and `given` takes from
    `default` because it does not set them; none when it is the default study itself."""
    if not files:
        return []
    studies = [read_config_file(Path(path)) for path in files]
    taken = _default_under(default, studies)
    return sorted(_leaves(taken) - set().union(*(_leaves(s) for s in [*studies, given or {}])))


def _leaves(config: Mapping[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out |= _leaves(value, path + ".")
        else:
            out.add(path)
    return out


def load_config(path: Path) -> dict[str, Any]:
    return check_config(read_config_file(path))


def check_predictions(predicted: Mapping[str, str]) -> list[str]:
    """Read every predictions file (refused in one line when malformed); the names of those that
    give `invalidated`."""
    from memshift.intake.predictions import read_predictions
    from memshift.intake.reading import InputError

    reporting = []
    for name, path in predicted.items():
        try:
            if read_predictions(Path(path)).reports_invalidations:
                reporting.append(name)
        except InputError as exc:
            raise ConfigError(f"systems.predictions.{name}: {exc}") from None
    return reporting


def check_custom_systems(custom: Mapping[str, str]) -> list[str]:
    """Import every custom system and check it is a class with the interface's methods; the
    names of those that also report their invalidations."""
    from memshift.memory.interface import reports_invalidations, system_class

    reporting = []
    for name, spec in custom.items():
        try:
            if reports_invalidations(system_class(spec)):
                reporting.append(name)
        except ConfigError as exc:
            raise ConfigError(f"systems.custom.{name}: {exc}") from None
    return reporting


def check_native(config: Mapping[str, Any], native: Mapping[str, Any]) -> dict[str, str]:
    """Each native system's settings, as the JSON its probe job reads; its profile must be an
    OpenAI-compatible server of the study's models file whose context window (if stated) holds
    the library's own instructions."""
    from memshift.models.profiles import load_profile
    from memshift.native.prompt_sizes import check_window
    from memshift.native.settings import NativeSettings, check_profile

    out = {}
    for name, raw in native.items():
        settings = NativeSettings.from_config(name, dict(raw))
        try:
            profile = load_profile(Path(config["models"]), settings.profile)
        except ConfigError as exc:
            raise ConfigError(f"systems.native.{name}.profile: {exc}") from None
        check_profile(name, profile)
        check_window(name, settings.library, profile)
        out[name] = settings.to_json()
    return out


def study_systems(config: dict[str, Any]) -> dict[str, Any]:
    """The systems of a study whose defaults are filled in (`with_defaults`)."""
    systems = config["systems"]
    holdmem = systems["holdmem"]
    custom = dict(systems["custom"])
    predicted = dict(systems["predictions"])
    taken = [n for n in custom if is_reserved(n)]
    if taken:
        raise ConfigError(f"systems.custom: the name {taken[0]!r} is taken by a built-in system")
    taken = [n for n in predicted if is_reserved(n) or n in custom]
    if taken:
        raise ConfigError(f"systems.predictions: the name {taken[0]!r} is taken by another system")
    native = check_native(config, dict(systems["native"]))
    taken = [n for n in native if is_reserved(n) or n in custom or n in predicted]
    if taken:
        raise ConfigError(f"systems.native: the name {taken[0]!r} is taken by another system")
    plan = {
        "detections": list(holdmem["detections"]),
        "repairs": list(holdmem["repairs"]),
        "baselines": list(systems["baselines"]),
        "custom": custom,
        # the custom systems with the optional `invalidations` method
        "reporting": check_custom_systems(custom),
        "predictions": predicted,
        # name -> the settings of a real memory library (memshift.native.settings), as JSON
        "native": native,
        # the predictions files that say which items the system found stale
        "predictions_reporting": check_predictions(predicted),
    }
    plan["cells"] = study_cells(plan, list(holdmem["extra_cells"]))
    known = [*plan["cells"], *plan["baselines"], *custom, *predicted, *native]
    plan["answer_audit"] = listed_systems("systems.answer_audit", systems["answer_audit"], known)
    plan["audit_variants"] = ["full", *systems["audit_variants"]]
    plan["answer_audit_batch"] = systems["answer_audit_batch"]
    plan["unshifted_all_items"] = listed_systems(
        "systems.unshifted_all_items", systems["unshifted_all_items"], known
    )
    if plan["unshifted_all_items"] and UNSHIFTED not in config["branches"]:
        raise ConfigError(
            f"systems.unshifted_all_items needs the unshifted branch {UNSHIFTED!r} in branches "
            "(or set it to [])"
        )
    return plan


def listed_systems(key: str, listed: Sequence[str], known: Sequence[str]) -> list[str]:
    """`listed` when every name is a system of the study (`known`)."""
    unknown = [s for s in listed if s not in known]
    if unknown:
        raise ConfigError(
            f"{key}: {unknown[0]!r} is not a system of this study; "
            f"choose from {', '.join(known) or '(none: the study runs no such system)'}"
        )
    return list(listed)


def study_cells(plan: Mapping[str, Any], extra: Sequence[str]) -> list[str]:
    """Every detection crossed with every repair, then the extra cells (a detection of the study
    with any repair: the check-only control, say), each once."""
    grid = [cell_system(d, r) for d in plan["detections"] for r in plan["repairs"]]
    for cell in extra:
        parts = cell_parts(cell)
        if parts is None or parts[0] not in REPAIRS or parts[1] not in plan["detections"]:
            raise ConfigError(
                f"systems.holdmem.extra_cells: {cell!r} is not holdmem-d<repair>-<detection> "
                f"with repair one of {', '.join(REPAIRS)} and one of the study's detections "
                f"({', '.join(plan['detections'])})"
            )
    return list(dict.fromkeys([*grid, *extra]))


def movable_cells(plan: Mapping[str, Any]) -> list[str]:
    """The study's HoldMem cells a writer switch or an export can take (vocabulary.MOVABLE)."""
    return [c for c in plan["cells"] if (parts := cell_parts(c)) and parts[1] in MOVABLE]


def switch_plan(config: dict[str, Any]) -> dict[str, Any] | None:
    """The writer switches of a checked study: every switch's `from` and `to` profiles, the
    cells that go through them and the calibration worlds; None without switches."""
    spec = config.get("writer_switch")
    if spec is None:
        return None
    plan = config["system_plan"]
    cells = movable_cells(plan)
    chosen = list(spec.get("cells") or cells)
    for cell in chosen:
        parts = cell_parts(cell)
        if parts is None or parts[0] not in REPAIRS or parts[1] not in MOVABLE:
            raise ConfigError(
                f"writer_switch.cells: {cell!r} is not a HoldMem cell a switch can take: "
                f"holdmem-d<repair>-<detection> with repair one of {', '.join(REPAIRS)} and "
                f"detection one of {', '.join(MOVABLE)} (the oracle key cannot)"
            )
    writer = config["role_profiles"]["writer"]
    switches = {
        name: {"from": s.get("from", writer), "to": s["to"]} for name, s in spec["switches"].items()
    }
    same = [name for name, s in switches.items() if s["from"] == s["to"]]
    if same:
        raise ConfigError(
            f"writer_switch.switches.{same[0]}: from and to are the same profile, so no key "
            "would change; an identity switch needs a copy under another name (rules-copy)"
        )
    calibration = parse_seeds(spec["calibration_seeds"])
    shared = sorted(set(calibration) & set(config["seed_list"]))
    if shared:
        raise ConfigError(
            f"writer_switch.calibration_seeds: world {shared[0]} is also a study world; the "
            "agreement of two writers is measured on worlds the switches do not use"
        )
    pools = {name: list(members) for name, members in spec["pools"].items()}
    for name, members in pools.items():
        unknown = [m for m in members if m not in switches]
        if unknown:
            raise ConfigError(
                f"writer_switch.pools.{name}: {unknown[0]!r} is not a switch of this study"
            )
    return {"switches": switches, "cells": chosen, "calibration": calibration, "pools": pools}


def export_plan(config: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The imported memories of a checked study: name -> (exported cell, arm); empty without
    `export:`. Every exported cell must be a cell of the study (the leaving test compares the
    import with it); the oracle key cannot be exported (it is built from gold)."""
    spec = config.get("export")
    if spec is None:
        return {}
    plan = config["system_plan"]
    cells = movable_cells(plan)
    unknown = [c for c in spec["cells"] if c not in cells]
    if unknown:
        raise ConfigError(
            f"export.cells: {unknown[0]!r} is not a HoldMem cell of this study that can be "
            f"exported; choose from {', '.join(cells)}"
        )
    return {portable_system(c, arm): (c, arm) for c in spec["cells"] for arm in spec["arms"]}
