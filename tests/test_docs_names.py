"""The docs name only commands and jobs that exist: every `memshift COMMAND` written as code in
README.md or docs/*.md is a command of the CLI (a group's subcommand too), and every job-like
name in backticks (a rule's prefix, such as `probe_...`) is a rule of the workflow or a name the
code defines (a column, a config key, a function)."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from memshift.cli import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RULE = re.compile(r"^use rule \w+ as (\w+)|^ *rule (\w+)", re.MULTILINE)
# `memshift ...` as code: inline, or a line of a code block
INLINE = re.compile(r"`memshift ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?")
BLOCK = re.compile(r"^\s*(?:\$ )?memshift ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?", re.MULTILINE)


def rules() -> set[str]:
    texts = [p.read_text() for p in [ROOT / "Snakefile", *(ROOT / "rules").glob("*.smk")]]
    return {a or b for t in texts for a, b in RULE.findall(t)}


def code_text() -> str:
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "src").rglob("*.yaml"), ROOT / "Snakefile",
             *(ROOT / "rules").glob("*.smk")]  # fmt: skip
    return "\n".join(p.read_text() for p in files)


def blocks(text: str) -> str:
    return "\n".join(text.split("```")[1::2])


def named_commands(text: str) -> set[tuple[str, str]]:
    found = INLINE.findall(text) + BLOCK.findall(blocks(text))
    return {(command, sub) for command, sub in found}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_memshift_command_the_docs_name_exists(page: Path):
    for command, sub in named_commands(page.read_text()):
        assert command in cli.commands, f"{page.name}: memshift {command}"
        group = cli.commands[command]
        if isinstance(group, click.Group) and sub and not sub.startswith("-"):
            assert sub in group.commands, f"{page.name}: memshift {command} {sub}"


def test_every_job_name_the_docs_name_exists():
    known = rules()
    prefixes = {name.split("_")[0] + "_" for name in known if "_" in name}
    code = code_text()
    missing = sorted(
        {
            (page.name, word)
            for page in PAGES
            for word in re.findall(r"`([a-z]+(?:_[a-z]+)+)`", page.read_text())
            if word.startswith(tuple(prefixes)) and word not in known and word not in code
        }
    )
    assert not missing, missing
    assert {"probe_system", "probe_reporting", "score_world", "world"} <= known
