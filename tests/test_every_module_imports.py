"""Every module of the package imports: a module moved or renamed leaves no import of its old
name behind (the compile step checks syntax alone). A module whose optional third-party package
is not installed here (the native libraries' extra) is skipped by name, never a memshift one."""

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
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if (missing.name or "").partition(".")[0] == "memshift":
            raise
        pytest.skip(f"{name} needs {missing.name}, an optional package not installed here")
