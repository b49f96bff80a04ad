"""The static check of a writer's program: what it may contain before it is run.

A program is untrusted code: `def derive(records, as_of)`. It must pass an allow-list over its
syntax tree (`check_program`), and then runs with a handful of safe builtins (`SAFE_BUILTINS`) and
the helpers; `prepare` gives the worker the compiled program, or why it may not run.
"""

from __future__ import annotations

import ast
import builtins
import warnings
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import CodeType, MappingProxyType
from typing import Any, TypeVar

ENTRY = "derive"
PARAMETERS = ("records", "as_of")
PROGRAM_FILENAME = "<program>"

MAX_SOURCE_CHARS = 20_000
MAX_NESTING = 50

EXCEPTION_NAMES = frozenset(
    {"Exception", "ValueError", "KeyError", "IndexError", "TypeError", "ZeroDivisionError"}
)
SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "isinstance", "len",
    "list", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "zip", *sorted(EXCEPTION_NAMES),
)  # fmt: skip
SAFE_BUILTINS: Mapping[str, Any] = MappingProxyType(
    {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
)

# Names a program may not even mention: they reflect, execute code, do I/O or name modules. None
# of them is in SAFE_BUILTINS either; rejecting them up front gives the writer a clear message.
DENIED_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "input", "print", "globals", "locals", "vars", "dir",
        "getattr", "setattr", "delattr", "hasattr", "type", "object", "super", "memoryview",
        "breakpoint", "help", "id", "classmethod", "staticmethod", "property", "exit", "quit",
        "copyright", "credits", "license", "os", "sys", "builtins", "importlib", "signal",
        "resource", "subprocess", "socket", "ctypes",
    }
)  # fmt: skip

# Method names of str, list, dict and set that only compute on the receiver. Deliberately absent:
# format and format_map (their fields read attributes by name), mro, encode, mapping (a dict
# view's underlying dict) and every generator, frame, code and traceback attribute.
SAFE_METHODS = frozenset(
    {
        "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum",
        "isalpha", "isdecimal", "isdigit", "islower", "isnumeric", "isspace", "istitle",
        "isupper", "join", "ljust", "lower", "lstrip", "partition", "removeprefix",
        "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip",
        "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill",
        "append", "clear", "copy", "extend", "insert", "pop", "remove", "reverse", "sort",
        "get", "items", "keys", "values", "setdefault", "update", "popitem",
        "add", "discard", "difference", "difference_update", "intersection",
        "intersection_update", "isdisjoint", "issubset", "issuperset", "symmetric_difference",
        "union",
    }
)  # fmt: skip

_OPERATORS = (
    ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift,
    ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.And, ast.Or, ast.Not, ast.Invert,
    ast.UAdd, ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot,
    ast.In, ast.NotIn,
)  # fmt: skip
ALLOWED_NODES: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign,
        ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If, ast.Expr, ast.Pass, ast.Break,
        ast.Continue, ast.Try, ast.ExceptHandler, ast.Raise, ast.Assert,
        ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Lambda, ast.Call,
        ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred, ast.Name,
        ast.NamedExpr, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
        ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.JoinedStr,
        ast.FormattedValue, ast.Load, ast.Store, *_OPERATORS,
    }
)  # fmt: skip
_CONSTANT_TYPES = (str, int, float, complex, bool, type(None), type(Ellipsis))
_T = TypeVar("_T")
TOO_LONG = f"the program is longer than {MAX_SOURCE_CHARS} characters"


def check_program(code: str) -> str | None:
    """None if the code passes the allow-list (and compiles), else a message naming the first
    violation."""
    prepared = prepare(code)
    return None if isinstance(prepared, CodeType) else prepared[1]


def prepare(code: str) -> CodeType | tuple[str, str]:
    """The compiled program, or (failure kind, message) when it may not run."""
    if len(code) > MAX_SOURCE_CHARS:  # before the cache, which would keep the source
        return "violation", TOO_LONG
    return _checked_and_compiled(code)


@lru_cache(maxsize=512)
def _checked_and_compiled(code: str) -> CodeType | tuple[str, str]:
    try:
        tree = _quietly(lambda: ast.parse(code, PROGRAM_FILENAME))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return "syntax_error", _syntax_message(error)
    problem = _first_violation(tree)
    if problem is not None:
        return "violation", problem
    try:
        return _quietly(lambda: compile(tree, PROGRAM_FILENAME, "exec", dont_inherit=True))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return "syntax_error", _syntax_message(error)


def _quietly(make: Callable[[], _T]) -> _T:
    # Invalid escape sequences warn on stderr; a program's warnings are nobody's business here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def _syntax_message(error: Exception) -> str:
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}" if error.lineno else error.msg
    if isinstance(error, RecursionError | MemoryError):
        return "the program is nested too deeply to parse"
    return str(error)


def _first_violation(tree: ast.Module) -> str | None:
    shape = _entry_problem(tree)
    if shape is not None:
        return shape
    problems = []
    for node, depth, place in _walk(tree):
        if depth > MAX_NESTING:
            return f"line {place[0]}: the program is nested more than {MAX_NESTING} levels deep"
        problem = _node_problem(node)
        if problem is not None:
            problems.append((place, problem))
    if not problems:
        return None
    (line, _), problem = min(problems)
    return f"line {line}: {problem}"


def _entry_problem(tree: ast.Module) -> str | None:
    entry = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(entry, ast.FunctionDef) or entry.name != ENTRY:
        return "the program must be exactly one top-level `def derive(records, as_of):`"
    a = entry.args
    extras = a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults
    if extras or tuple(p.arg for p in a.args) != PARAMETERS:
        return "derive must take exactly the parameters (records, as_of)"
    return None


_Place = tuple[int, int]  # line, and the column where the node ends: reading order


def _walk(tree: ast.AST) -> list[tuple[ast.AST, int, _Place]]:
    """Every node with its depth and place (an operator takes its parent's); iterative, so deep
    trees cannot overflow the stack."""
    stack: list[tuple[ast.AST, int, _Place]] = [(tree, 0, (0, 0))]
    order = []
    while stack:
        node, depth, place = stack.pop()
        if hasattr(node, "lineno"):
            place = (node.lineno, getattr(node, "end_col_offset", None) or 0)
        order.append((node, depth, place))
        stack.extend((child, depth + 1, place) for child in ast.iter_child_nodes(node))
    return order


def _node_problem(node: ast.AST) -> str | None:
    if type(node) not in ALLOWED_NODES:
        return f"{type(node).__name__} is not allowed"
    check = _NODE_CHECKS.get(type(node))
    return None if check is None else check(node)


def _name_problem(name: str | None) -> str | None:
    if name is None:
        return None
    if name.startswith("_") and name != "_":
        return f"the name {name!r} starts with an underscore"
    if name in DENIED_NAMES:
        return f"the name {name!r} is not allowed"
    return None


def _defaults_problem(arguments: ast.arguments) -> str | None:
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if any(not isinstance(d, ast.Constant) for d in defaults):
        return "default values must be constants"
    return None


def _function_problem(node: ast.FunctionDef) -> str | None:
    if node.decorator_list:
        return "decorators are not allowed"
    return _name_problem(node.name) or _defaults_problem(node.args)


def _lambda_problem(node: ast.Lambda) -> str | None:
    return _defaults_problem(node.args)


def _attribute_problem(node: ast.Attribute) -> str | None:
    if not isinstance(node.ctx, ast.Load):
        return "assigning to an attribute is not allowed"
    if node.attr not in SAFE_METHODS:
        return f"the attribute {node.attr!r} is not allowed"
    return None


def _is_exception_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in EXCEPTION_NAMES


def _handler_problem(node: ast.ExceptHandler) -> str | None:
    if node.type is None:
        return "a bare except is not allowed; name the exceptions"
    caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
    if not all(_is_exception_name(c) for c in caught):
        return f"only {', '.join(sorted(EXCEPTION_NAMES))} may be caught"
    return _name_problem(node.name)


def _try_problem(node: ast.Try) -> str | None:
    # A finally block would run code after the CPU timer has interrupted the program.
    return "finally is not allowed" if node.finalbody else None


def _raise_problem(node: ast.Raise) -> str | None:
    if node.cause is not None:
        return "raise ... from is not allowed"
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if raised is not None and not _is_exception_name(raised):
        return f"only {', '.join(sorted(EXCEPTION_NAMES))} may be raised"
    return None


def _constant_problem(node: ast.Constant) -> str | None:
    if not isinstance(node.value, _CONSTANT_TYPES):
        return f"{type(node.value).__name__} constants are not allowed"
    return None


def _formatted_problem(node: ast.FormattedValue) -> str | None:
    parts = node.format_spec.values if isinstance(node.format_spec, ast.JoinedStr) else []
    if not all(isinstance(part, ast.Constant) for part in parts):
        return "a format spec may not contain {...}"
    return None


def _comprehension_problem(node: ast.comprehension) -> str | None:
    return "async comprehensions are not allowed" if node.is_async else None


_NODE_CHECKS: dict[type[ast.AST], Callable[[Any], str | None]] = {
    ast.Name: lambda node: _name_problem(node.id),
    ast.arg: lambda node: _name_problem(node.arg),
    ast.keyword: lambda node: _name_problem(node.arg),
    ast.FunctionDef: _function_problem,
    ast.Lambda: _lambda_problem,
    ast.Attribute: _attribute_problem,
    ast.ExceptHandler: _handler_problem,
    ast.Try: _try_problem,
    ast.Raise: _raise_problem,
    ast.Constant: _constant_problem,
    ast.FormattedValue: _formatted_problem,
    ast.comprehension: _comprehension_problem,
}
