"""Study configuration: seed ranges, the config schema check and its one-line errors."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from memshift.errors import ConfigError

SPLITS: dict[str, range] = {
    "dev": range(0, 10),
    "calibration": range(900, 910),
    "test": range(1000, 1020),
    "replication": range(1020, 1040),
}
MAX_SEED = 2**31 - 1


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


def schema_path() -> Path:
    return Path(str(resources.files("memshift") / "schemas" / "config.schema.yaml"))


def describe_error(error: jsonschema.ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    where = ".".join(path) or "(top level)"
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        key = ".".join([*path, extra[0]])
        return f"config key {key!r} is not known; valid keys here: {', '.join(allowed)}"
    if error.validator == "enum":
        choices = ", ".join(str(c) for c in error.validator_value)
        return f"config {where}: {error.instance!r} is not valid; choose one of {choices}"
    return f"config {where}: {error.message}"


def check_config(config: dict[str, Any]) -> dict[str, Any]:
    """Validate against the package's schema and resolve seeds; raise ConfigError in one line."""
    schema = yaml.safe_load(schema_path().read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(
        validator.iter_errors(config),
        key=lambda e: (len(e.absolute_path), str(list(e.absolute_path))),
    )
    if errors:
        raise ConfigError(describe_error(errors[0]))
    resolved = dict(config)
    resolved["seed_list"] = parse_seeds(config["worlds"]["seeds"])
    resolved["system_plan"] = study_systems(config)
    return resolved


def load_config(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must be a mapping of keys to values")
    return check_config(data)


DEFAULT_DETECTIONS = ["append", "source", "citation"]
DEFAULT_REPAIRS = ["0", "1"]
BUILTIN_BASELINES = ("bm25", "rag", "oracle")


def study_systems(config: dict[str, Any]) -> dict[str, Any]:
    """The systems of a study with every default filled in."""
    systems = config.get("systems") or {}
    holdmem = systems.get("holdmem") or {}
    custom = dict(systems.get("custom") or {})
    taken = [n for n in custom if n in BUILTIN_BASELINES or n.startswith("holdmem")]
    if taken:
        raise ConfigError(f"systems.custom: the name {taken[0]!r} is taken by a built-in system")
    plan = {
        "detections": list(holdmem.get("detections", DEFAULT_DETECTIONS)),
        "repairs": list(holdmem.get("repairs", DEFAULT_REPAIRS)),
        "baselines": list(systems.get("baselines", BUILTIN_BASELINES)),
        "custom": custom,
    }
    known = [
        *(f"holdmem-d{r}-{d}" for d in plan["detections"] for r in plan["repairs"]),
        *plan["baselines"],
        *custom,
    ]
    audited = list(systems.get("answer_audit") or [])
    unknown = [s for s in audited if s not in known]
    if unknown:
        raise ConfigError(
            f"systems.answer_audit: {unknown[0]!r} is not a system of this study; "
            f"choose from {', '.join(known)} (a study file inherits the key from "
            "config/config.yaml unless it sets it; [] audits none)"
        )
    plan["answer_audit"] = audited
    return plan
