"""Classes a user names as 'package.module:Class' (custom memory systems, embedders).

The module is imported and the attribute checked to be a class with the methods the project
calls and a constructor that takes no arguments. Nothing the spec names is called here: a spec
like `os:system` or `os:abort` is refused because it is not a class, before anything runs it.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Sequence

from memshift.errors import ConfigError
from memshift.intake.reading import one_line

_SPEC = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
_ABSENT = object()


def _module(spec: str) -> object:
    name = spec.partition(":")[0]
    try:
        return importlib.import_module(name)
    except Exception as exc:  # the user's module may fail in any way while it loads
        raise ConfigError(
            f"{spec!r}: cannot import {name} ({type(exc).__name__}: {one_line(str(exc))}); "
            "it must be importable where snakemake runs (installed, or on PYTHONPATH)"
        ) from None


def _kind(value: object) -> str:
    if inspect.isbuiltin(value) or inspect.isfunction(value):
        return "a function"
    if inspect.ismodule(value):
        return "a module"
    return f"an object of type {type(value).__name__}"


def missing_methods(cls: type, methods: Sequence[str]) -> list[str]:
    """The methods of `methods` that `cls` does not define as callables (looked up without
    running any of the class's code)."""
    return [m for m in methods if not callable(inspect.getattr_static(cls, m, None))]


def _check_constructor(spec: str, cls: type) -> None:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # a built-in type without a signature: nothing to check
        return
    try:
        signature.bind()
    except TypeError:
        raise ConfigError(
            f"{spec!r}: the class must be constructible without arguments; its constructor "
            f"takes {signature}"
        ) from None


def load_class(spec: str, what: str, methods: Sequence[str]) -> type:
    """The class `spec` names, imported and checked; ConfigError in one line otherwise."""
    if not isinstance(spec, str) or not _SPEC.fullmatch(spec):
        raise ConfigError(f"{spec!r} is not {what}: name a class as 'package.module:Class'")
    module = _module(spec)
    name = spec.partition(":")[2]
    value = inspect.getattr_static(module, name, _ABSENT)
    if value is _ABSENT:
        raise ConfigError(f"{spec!r}: {spec.partition(':')[0]} has no attribute {name!r}")
    if not inspect.isclass(value):
        raise ConfigError(f"{spec!r} is {_kind(value)}, not a class; {what} must be a class")
    missing = missing_methods(value, methods)
    if missing:
        raise ConfigError(
            f"{spec!r} is not {what}: the class lacks the methods {', '.join(missing)}"
        )
    _check_constructor(spec, value)
    return value
