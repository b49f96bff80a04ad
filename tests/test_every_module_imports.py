"""Every module of the package imports: a module moved or renamed leaves no import of its old
name behind (the compile step checks syntax alone). The native adapters import their libraries
only when a system is built, so every module imports without the optional extras."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import memshift

ROOT = Path(memshift.__file__).parent
MODULES = sorted(
    ".".join(["memshift", *p.relative_to(ROOT).with_suffix("").parts]).removesuffix(".__init__")
    for p in ROOT.rglob("*.py")
    if p.name != "__main__.py"  # runs the command line when imported
)


@pytest.mark.parametrize("name", MODULES)
def test_the_module_imports(name):
    importlib.import_module(name)
