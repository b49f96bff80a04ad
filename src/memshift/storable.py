"""Whether text or a JSON value can be stored by every writer memshift uses.

Python takes in strings and numbers that Parquet, DuckDB and strict JSON refuse: a lone UTF-16
surrogate ("\\ud800" is valid JSON and a valid Python string, but no UTF-8), integers of any
size, NaN and infinities, nesting as deep as the interpreter allows. Such a value passes every
check up to the moment it is written, and then fails the write, every time the stage is run
again. Whatever enters memshift from outside (model replies, a sandboxed program's output, an
imported bundle) is therefore checked here first, where it can still be recorded as a failure of
its own.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64
INT64 = (-(2**63), 2**63 - 1)
INT32 = (-(2**31), 2**31 - 1)
# More digits than any integer a column holds: refused before Python converts them (a conversion
# of thousands of digits raises, and costs quadratic time below that limit).
MAX_INT_DIGITS = 20


class UnstorableError(ValueError):
    """Text or a value that some writer memshift uses cannot store."""


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored (it has no UTF-8 encoding), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate {text[exc.start]!r} at position {exc.start}"
    return None


def storable_text(text: str) -> str:
    """`text` with every lone surrogate written out as an escape: for logs and error details,
    which must be written whatever they quote."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def value_problem(
    value: Any, *, max_depth: int = MAX_DEPTH, int_range: tuple[int, int] = INT64
) -> str | None:
    """Why a parsed JSON value cannot be stored, or None. Walks the value without recursion, so
    no depth of nesting can exhaust the stack."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "$")]
    while stack:
        node, depth, path = stack.pop()
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels at {path}"
        problem = _leaf_problem(node, int_range)
        if problem is not None:
            return f"{problem} at {path}"
        stack.extend(_children(node, depth, path))
    return None


def _leaf_problem(node: Any, int_range: tuple[int, int]) -> str | None:
    if node is None or isinstance(node, bool | list):
        return None
    if isinstance(node, str):
        return text_problem(node)
    if isinstance(node, int):
        low, high = int_range
        return None if low <= node <= high else f"an integer outside [{low}, {high}]"
    if isinstance(node, float):
        return None if math.isfinite(node) else f"the number {node!r}, which JSON cannot hold"
    if isinstance(node, dict):
        return next((f"the key {k!r}" for k in node if not isinstance(k, str)), None)
    return f"a {type(node).__name__}, which is no JSON value"


def _children(node: Any, depth: int, path: str) -> list[tuple[Any, int, str]]:
    if isinstance(node, list):
        return [(item, depth + 1, f"{path}[{n}]") for n, item in enumerate(node)]
    if isinstance(node, dict):
        children = [(item, depth + 1, f"{path}.{storable_text(key)}") for key, item in node.items()]
        # A key is text to store as well; checked as a leaf of its own.
        return children + [(key, depth + 1, f"{path} (a key)") for key in node]
    return []


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise UnstorableError(f"a number of {len(digits.lstrip('-'))} digits")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise UnstorableError(f"{name}, which is not JSON")


def parse_json(text: str) -> Any:
    """`json.loads` for text from outside: raises `UnstorableError` for what JSON allows but no
    writer stores or no parser survives (nesting too deep to parse, integers of more than
    MAX_INT_DIGITS digits, NaN and infinities), and `json.JSONDecodeError` for what is not JSON.
    Check the value with `value_problem` next."""
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError as exc:
        raise UnstorableError("JSON nested too deep to parse") from exc


def require_storable(
    value: Any,
    what: str,
    *,
    max_depth: int = MAX_DEPTH,
    int_range: tuple[int, int] = INT64,
) -> None:
    """Raise `UnstorableError` naming `what` unless `value` can be stored."""
    problem = value_problem(value, max_depth=max_depth, int_range=int_range)
    if problem is not None:
        raise UnstorableError(f"{what} cannot be stored: {storable_text(problem)}")
