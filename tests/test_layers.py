"""The runtime package never imports the test and benchmark tools (`memshift_tools`): a stage's
code fingerprint is the import closure of `memshift`, and the tools must not be part of it."""

import ast
from pathlib import Path

import memshift

PACKAGE = Path(memshift.__file__).parent


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_module_of_memshift_imports_memshift_tools():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50
    offending = [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")))
        if name.split(".")[0] == "memshift_tools"
    ]
    assert not offending, offending
