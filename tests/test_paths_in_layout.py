"""Every path of the results tree and of the repository's config is spelled in one module,
`memshift/layout.py`: no other module joins a world's folder name or a file name onto a path, or
keeps a file's relative path or name as a constant (a few named exceptions, each with its
reason)."""

from __future__ import annotations

import re
from pathlib import Path

import memshift

PACKAGE = Path(memshift.__file__).parent
EXTENSIONS = "parquet|json|jsonl|png|md|html|log|tsv|yaml|csv|txt"
SPELLED = re.compile(
    r'/\s*f"w\{'  # a world's folder joined by hand
    rf'|/\s*f?"[^"]*\.({EXTENSIONS})"'  # a file name joined onto a path
    rf'|"[\w./{{}}-]+/[\w.{{}}-]+\.({EXTENSIONS})"'  # a relative path as a string
    rf'|=\s*"[\w-]+\.({EXTENSIONS})"'  # a file name kept as a constant
)
# lines reading files that ship inside a package, not the results tree or the config
PACKAGE_DATA = ("__file__", "resources.files(")
EXCEPTIONS = {
    ("studies/export/streams.py", 'EPISODES = "items/episode.jsonl"'):
        "a name the Portable Memory bundle format fixes, not memshift's",
    ("retrieval/embeddings.py", '"l2_supercat_tokenizer_config.json"'):
        "a file inside the wordllama package, where that package puts it",
}  # fmt: skip


def spelled_outside_layout() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "layout.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if SPELLED.search(line) and not any(mark in line for mark in PACKAGE_DATA):
                found.append((name, line.strip()))
    return found


def test_no_module_but_layout_spells_a_path():
    unexplained = [
        (name, line)
        for name, line in spelled_outside_layout()
        if not any(name == where and snippet in line for where, snippet in EXCEPTIONS)
    ]
    assert unexplained == [], "add a function or a name to memshift/layout.py and use it"


def test_every_exception_is_still_there():
    # an exception that no longer occurs is taken off the list, so the list cannot grow stale
    found = spelled_outside_layout()
    for where, snippet in EXCEPTIONS:
        assert any(name == where and snippet in line for name, line in found), where


def test_the_check_catches_each_kind_of_spelling():
    for line in (
        'world_dir = worlds_dir / f"w{seed}"',
        'log.write(out_dir / "calls-prefork.parquet")',
        'TABLE = "tables/grid.parquet"',
        'FIGURE = "horizons.png"',
        'default="config/models.yaml",',
    ):
        assert SPELLED.search(line), line
    for line in (
        'if path.suffix == ".parquet":',
        'probe_id = f"w{seed}-{branch}"',
        '"from scores.parquet" if s.scored_now is None',
    ):
        assert not SPELLED.search(line), line
