"""Reading what users hand the project: study configs and model profiles (YAML), memory bundles
and run manifests (JSON).

Every such file goes through `load_yaml` or `load_json`: bounded in size and nesting, UTF-8 only,
YAML without anchors or aliases (a few hundred bytes of aliases expand to gigabytes), JSON without
a key repeated in one object. Each refusal is one line naming the file and the problem.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
import stat
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from memshift.errors import ConfigError, MemshiftError

MAX_YAML_BYTES = 1 << 20
MAX_DEPTH = 64  # mappings and sequences (objects and arrays) inside one another


def schema_path() -> Path:
    """The study config's JSON Schema (every key, its allowed values, its default)."""
    return Path(str(resources.files("memshift") / "data" / "config.schema.yaml"))


@functools.cache
def config_schema() -> dict[str, Any]:
    """The schema, parsed once per process (by libyaml where PyYAML has it: every command reads
    its defaults at start, and the pure-Python parser takes 27 ms of it), with each side study's
    key read from that study's own schema (`studies/<study>/schema.yaml`, which the main file
    names by a relative `$ref`, as Snakemake's `validate` resolves it)."""
    path = schema_path()
    loaded: dict[str, Any] = _schema_file(path)
    for key, node in loaded["properties"].items():
        if set(node) == {"$ref"}:
            study = _schema_file((path.parent / node["$ref"]).resolve())
            study.pop("$schema", None)  # the draft, which a file of its own must name
            loaded["properties"][key] = study
    return loaded


def _schema_file(path: Path) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loaded: dict[str, Any] = yaml.load(path.read_text(), Loader=loader)
    return loaded


def schema_default(key: str) -> Any:
    """The default the config schema gives `key` (dotted, e.g. "consent.read_set"): the one
    place a setting's default is written, which the command line's options and the stages take
    too."""
    node: Any = config_schema()
    for part in key.split("."):
        node = node["properties"][part]
    return copy.deepcopy(node["default"])


def schema_field(key: str) -> Any:
    """A dataclass field whose default is the config schema's for `key` (`schema_default`), so
    a record built without the setting takes the study's default and no module spells it."""
    return dataclasses.field(default_factory=functools.partial(schema_default, key))


class InputError(MemshiftError):
    """A file handed to the project is unreadable, oversized, too deep or malformed."""


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def shortened(value: object, limit: int = 80) -> str:
    """repr of a value, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_bounded_text(
    path: Path, what: str, max_bytes: int, error: type[MemshiftError] = InputError
) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` bytes."""
    try:
        info = Path(path).stat()
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{what} {path} is not a regular file")
        if info.st_size > max_bytes:
            raise error(f"{what} {path} holds {info.st_size:,} bytes; the limit is {max_bytes:,}")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(f"{what} {path} holds more than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{what} {path} is not UTF-8 text (byte {exc.start} cannot be decoded)"
        ) from None


class _Refused(yaml.MarkedYAMLError):
    pass


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing anchors, aliases and nesting deeper than MAX_DEPTH."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(
                problem="anchors and aliases (&name, *name) are not allowed",
                problem_mark=event.start_mark,
            )
        if not isinstance(event, yaml.CollectionStartEvent):
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise _Refused(
                problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=event.start_mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _yaml_problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        where = exc.problem_mark or exc.context_mark
        at = f" (line {where.line + 1}, column {where.column + 1})" if where else ""
        return one_line(f"{exc.context or ''} {exc.problem}") + at
    return one_line(str(exc))


def load_yaml(path: Path, what: str = "config") -> Any:
    """A YAML file a user wrote, parsed safely; ConfigError in one line when it cannot be."""
    text = read_bounded_text(path, what, MAX_YAML_BYTES, ConfigError)
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path}: {_yaml_problem(exc)}") from None
    except (ValueError, OverflowError) as exc:  # a timestamp or number out of range
        raise ConfigError(f"{what} {path}: {one_line(str(exc))}") from None
    finally:
        loader.dispose()


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """How deeply the arrays and objects of a JSON text nest (counted without parsing it)."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


class _RepeatedKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _RepeatedKey(key)
        data[key] = value
    return data


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def load_json(path: Path, what: str, max_bytes: int) -> Any:
    """A JSON file handed to the project, parsed within bounds; InputError in one line."""
    return parse_json(read_bounded_text(path, what, max_bytes), f"{what} {path}")


def parse_json(text: str, what: str) -> Any:
    """A JSON text (`what` names it in an error) parsed with no key twice in an object, no
    NaN or Infinity and no nesting deeper than MAX_DEPTH; InputError in one line."""
    if json_depth(text) > MAX_DEPTH:
        raise InputError(f"{what} nests arrays and objects deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except _RepeatedKey as exc:
        raise InputError(
            f"{what}: the key {shortened(exc.args[0])} appears twice in one object"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON: {one_line(str(exc))}") from None


def describe_error(error: jsonschema.ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    where = ".".join(path) or "(top level)"
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        key = ".".join([*path, extra[0]])
        return f"config key {key!r} is not known; valid keys here: {', '.join(allowed)}"
    if error.validator == "maxLength" and isinstance(error.instance, str):
        # jsonschema's own message repeats the whole text, however long
        return (
            f"config {where}: {shortened(error.instance)} is {len(error.instance):,} characters "
            f"long; at most {error.validator_value}"
        )
    if error.validator == "enum":
        choices = ", ".join(str(c) for c in error.validator_value)
        return f"config {where}: {error.instance!r} is not valid; choose one of {choices}"
    return f"config {where}: {error.message}"
