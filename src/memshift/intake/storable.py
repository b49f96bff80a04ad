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
import re
from collections.abc import Callable
from functools import cache
from typing import Any

MAX_DEPTH = 64
INT64 = (-(2**63), 2**63 - 1)
INT32 = (-(2**31), 2**31 - 1)
# More digits than any integer a column holds: refused before Python converts them (a conversion
# of thousands of digits raises, and costs quadratic time below that limit).
MAX_INT_DIGITS = 20
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class UnstorableError(ValueError):
    """Text or a value that some writer memshift uses cannot store."""


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored (it has no UTF-8 encoding), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate (U+{ord(text[exc.start]):04X} at character {exc.start})"
    return None


def storable_text(text: str) -> str:
    """`text` with every lone surrogate written out as an escape: for logs and error details,
    which must be written whatever they quote."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def value_problem(
    value: Any, *, max_depth: int = MAX_DEPTH, int_range: tuple[int, int] = INT64
) -> str | None:
    """Why a parsed JSON value cannot be stored, or None. Walks the value without recursion, so
    no depth of nesting can exhaust the stack; where the problem is is found only once there is
    one, and plain ASCII strings are passed without a look (every reply is checked)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        problem = _node_problem(node, depth, max_depth, int_range)
        if problem is not None:
            return f"{problem} at {_path_to(value, node)}"
        if isinstance(node, dict | list):
            items = node.values() if isinstance(node, dict) else node
            stack.extend((item, depth + 1) for item in items if not _plain(item))
    return None


def _plain(item: Any) -> bool:
    return type(item) is str and item.isascii()


def _node_problem(node: Any, depth: int, max_depth: int, int_range: tuple[int, int]) -> str | None:
    if isinstance(node, str):
        return None if node.isascii() else text_problem(node)
    if node is None or isinstance(node, bool):
        return None
    if isinstance(node, int):
        low, high = int_range
        return None if low <= node <= high else f"an integer outside [{low}, {high}]"
    if isinstance(node, float):
        return None if math.isfinite(node) else f"the number {node!r}, which JSON cannot hold"
    if isinstance(node, dict | list):
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        return _keys_problem(node) if isinstance(node, dict) else None
    return f"a {type(node).__name__}, which is no JSON value"


def _keys_problem(node: dict[Any, Any]) -> str | None:
    for key in node:
        if not isinstance(key, str):
            return f"the key {key!r}"
        if not key.isascii() and text_problem(key) is not None:
            return f"the key {storable_text(key)!r}: {text_problem(key)}"
    return None


def _path_to(root: Any, target: Any) -> str:
    """Where `target` (found by identity) lies in `root`, as $.name[index]..."""
    stack: list[tuple[Any, str]] = [(root, "$")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, dict):
            stack.extend((item, f"{path}.{storable_text(str(k))}") for k, item in node.items())
        elif isinstance(node, list):
            stack.extend((item, f"{path}[{n}]") for n, item in enumerate(node))
    return "$"


def _no_constant(name: str) -> Any:
    raise UnstorableError(f"{name}, which is not JSON")


def _int_parser(int_range: tuple[int, int]) -> Callable[[str], int]:
    low, high = int_range

    def parse(digits: str) -> int:
        count = len(digits.lstrip("-"))
        if count > MAX_INT_DIGITS:
            raise UnstorableError(f"a number of {count} digits")
        number = int(digits)
        if not low <= number <= high:
            raise UnstorableError(f"an integer outside [{low}, {high}]")
        return number

    return parse


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise UnstorableError(f"the number {text[:40]}, beyond what a float holds")
    return number


@cache
def _decoder(int_range: tuple[int, int]) -> json.JSONDecoder:
    # Built once: json.loads with hooks builds a decoder and its scanner on every call, which
    # costs more than the parse of a reply.
    return json.JSONDecoder(
        parse_int=_int_parser(int_range), parse_float=_finite, parse_constant=_no_constant
    )


def parse_json(text: str, *, int_range: tuple[int, int] = INT64) -> Any:
    """`json.loads` for text from outside: raises `UnstorableError` for what JSON allows but no
    writer stores or no parser survives (nesting too deep to parse, integers outside `int_range`
    or of more than MAX_INT_DIGITS digits, numbers beyond a float, NaN and infinities), and
    `json.JSONDecodeError` for what is not JSON. Strings and depth are left to
    `parse_storable`."""
    try:
        return _decoder(int_range).decode(text)
    except RecursionError as exc:
        raise UnstorableError("JSON nested too deep to parse") from exc


def parse_storable(
    text: str, *, max_depth: int = MAX_DEPTH, int_range: tuple[int, int] = INT64
) -> Any:
    """The JSON value of `text` if every writer can store it, else `UnstorableError` (or
    `json.JSONDecodeError` for text that is not JSON). Costs little more than `json.loads`: a
    lone surrogate can only come from the text itself or from an escape of one in it, so the
    strings are looked at one by one only when the text holds such an escape."""
    problem = text_problem(text)
    if problem is not None:
        raise UnstorableError(problem)
    value = parse_json(text, int_range=int_range)
    if _SURROGATE_ESCAPE.search(text):
        problem = value_problem(value, max_depth=max_depth, int_range=int_range)
    else:
        problem = _depth_problem(value, max_depth)
    if problem is not None:
        raise UnstorableError(problem)
    return value


def _depth_problem(value: Any, max_depth: int) -> str | None:
    """Breadth first, one level of containers at a time (a reply has few of them)."""
    level: list[Any] = [value] if type(value) is dict or type(value) is list else []
    for _ in range(max_depth):
        deeper: list[Any] = []
        for node in level:
            items = node.values() if type(node) is dict else node
            deeper += [item for item in items if type(item) is dict or type(item) is list]
        if not deeper:
            return None
        level = deeper
    return f"nested deeper than {max_depth} levels at {_path_to(value, level[0])}"


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
