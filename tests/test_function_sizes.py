"""The stages and the report are read function by function: none is longer than 80 lines, so
each says one thing (a longer one is split where its parts are, as the report's text is). A side
study's stages and report sections (`studies/<study>/*stage.py`, `*report*.py`) are held to the
same."""

from __future__ import annotations

import ast
from pathlib import Path

from test_rooms import room

MAX_LINES = 80
ROOMS = ("stages", "report")
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "memshift"


def long_functions(folder: Path, rooms: tuple[str, ...] | None = None) -> list[str]:
    """The functions over MAX_LINES in `folder`'s modules (of those in `rooms` only, if given)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if rooms is not None and room(path) not in rooms:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_LINES:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines})")
    return found


def test_no_function_of_the_stages_or_the_report_is_over_80_lines():
    assert [f for name in ROOMS for f in long_functions(PACKAGE / name)] == []
    assert long_functions(PACKAGE / "studies", ROOMS) == []


def test_the_check_finds_a_function_one_line_too_long(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path)
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n\n\ndef short():\n    pass\n")
    assert long_functions(tmp_path) == [f"long.py:1 long ({MAX_LINES + 1})"]
