"""Hostile bundles: a Portable Memory bundle that would hang or exhaust memory is refused before
anything reads it; forged content (an id twice, another world, NaN, bytes that are no UTF-8, a
key twice) and lone surrogates are refused in one line by `memshift validate-bundle`, by the
second implementation's import and by `memshift import-run`; HoldMem's own JSON bundle refuses a
lone surrogate too. The format's reference package still validates what memshift exports.

The commands run in a subprocess with a timeout and 1 GiB of address space, so that a
regression fails (a hang, a read of /dev/zero) rather than stalls the suite or the machine."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from portable_memory import BundleValidator
from test_portable import MEM, cell

from conftest import world
from memshift.definitions.catalog import FIXED_SET
from memshift.errors import MemshiftError
from memshift.intake.reading import schema_default
from memshift.memory.holdmem_system import BUNDLE_FORMAT, HoldMem
from memshift.models.requests import CallContext
from memshift.stages.specs import ImportRunJob, ModelAccess, WorldJob
from memshift.studies.export.bounds import MAX_BUNDLE_BYTES, MAX_ENTRIES, MAX_FILE_BYTES, survey
from memshift.studies.export.bundles import MAX_ISSUE_CHARS, bundle_issues, bundle_summary
from memshift.studies.export.imported import PortableHoldMem
from memshift.studies.export.portable import export_bundle
from memshift.studies.export.streams import line_problem

SEED = 1000
SYSTEM = "pm-d1-source-ext"
TIMEOUT = 30
ADDRESS_SPACE = 1 << 30


# ---- making bundles ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pristine") / "w1000.mem"
    export_bundle(cell(SEED, "source", "1"), True, out, world(SEED).timeline.fork)
    return out


@pytest.fixture(scope="module")
def world_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("worlds") / "w1000"
    spec = WorldJob(SEED, out, schema_default("worlds.history_months"), FIXED_SET, ("none",))
    command = [sys.executable, "-m", "memshift.cli", "job", "world", spec.to_json()]
    subprocess.run(command, check=True, timeout=120)
    return out


@pytest.fixture
def bundle(pristine: Path, tmp_path: Path) -> Path:
    """A fresh copy of world 1000's bundle where `import-run` looks for it."""
    return Path(shutil.copytree(pristine, tmp_path / "run/export" / f"{SYSTEM}.mem"))


def episodes(bundle: Path) -> list[dict]:
    return [json.loads(line) for line in (bundle / "items/episode.jsonl").read_text().splitlines()]


def line_of(episode: dict) -> bytes:
    return json.dumps(episode, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def reseal(bundle: Path) -> None:
    """List every file under items/ and audit/ in the manifest and CHECKSUMS with its true hash
    and size, as a forger would, so the reference validator finds every checksum right."""
    files = sorted(
        str(path.relative_to(bundle))
        for directory in ("items", "audit")
        for path in (bundle / directory).glob("*")
        if path.is_file()
    )
    entries = []
    for name in files:
        data = (bundle / name).read_bytes()
        entries.append(
            {"bytes": len(data), "path": name, "sha256": hashlib.sha256(data).hexdigest()}
        )
    checksums = "".join(f"{e['sha256']}  {e['path']}\n" for e in entries).encode()
    (bundle / "CHECKSUMS").write_bytes(checksums)
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"] = entries
    manifest["bundleDigest"] = hashlib.sha256(checksums).hexdigest()
    (bundle / "manifest.json").write_text(json.dumps(manifest, sort_keys=True))


def forged(bundle: Path, lines: list[bytes]) -> Path:
    """The bundle with its episode lines replaced by `lines`, resealed."""
    (bundle / "items/episode.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    reseal(bundle)
    return bundle


def edited(bundle: Path, change: Callable[[list[dict]], list[dict]]) -> Path:
    return forged(bundle, [line_of(e) for e in change(episodes(bundle))])


def with_raw(bundle: Path, first: Callable[[bytes], bytes]) -> Path:
    """The first episode line rewritten as bytes (for what json.dumps cannot write)."""
    lines = (bundle / "items/episode.jsonl").read_bytes().splitlines()
    return forged(bundle, [first(lines[0]), *lines[1:]])


def extra_key(raw: str) -> Callable[[bytes], bytes]:
    """Adds `raw` (JSON text) as an unknown top-level key of the episode."""
    return lambda line: (
        line[:-1] + b',"vendor.extra":' + raw.encode("utf-8", "surrogatepass") + b"}"
    )


# ---- running the commands ---------------------------------------------------------------------


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def memshift(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memshift.cli", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limited,
    )


def validate_refuses(bundle: Path, problem: str) -> list[str]:
    """`memshift validate-bundle` exits 1, each line naming the bundle, bounded, no traceback."""
    run = memshift("validate-bundle", str(bundle))
    lines = run.stderr.splitlines()
    assert run.returncode == 1, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and lines, run.stderr[-2000:]
    assert all(line.startswith(f"{bundle}: ") for line in lines), run.stderr[-2000:]
    assert all(len(line) <= len(f"{bundle}: ") + MAX_ISSUE_CHARS for line in lines)
    assert problem in run.stderr, run.stderr[-2000:]
    return lines


def import_run_refuses(bundle: Path, world_dir: Path, problem: str) -> str:
    """The import job stops with one line naming the bundle, writing no answers."""
    run_dir = bundle.parents[1]
    models = Path(__file__).resolve().parents[2] / "config/models.yaml"
    access = ModelAccess({"writer": "rules", "reader": "rules"}, models, None)
    spec = ImportRunJob(world_dir, run_dir, ("none",), SYSTEM, False, access)
    run = memshift("job", "import_run", spec.to_json())
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.stderr.startswith(f"memshift: error: bundle {bundle}: "), run.stderr[-2000:]
    assert problem in run.stderr, run.stderr[-2000:]
    assert len(run.stderr) < 2000
    assert not list(run_dir.rglob("answers*")), "a refused bundle's answers were written"
    return run.stderr


def import_refuses(bundle: Path, problem: str, world: int | None = SEED) -> str:
    """The second implementation refuses the bundle in one line and keeps what it had."""
    memory = PortableHoldMem(
        world_items(), context=CallContext(world=-1 if world is None else world)
    )
    with pytest.raises(MemshiftError) as info:
        memory.import_(bundle)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"bundle {bundle}: "), message
    assert problem in message, message
    assert memory.slots == {}
    return message


def world_items():
    return world(SEED).items


# ---- class 2: a bundle that would hang or exhaust memory is refused before it is read ----------


def fifo(bundle: Path, name: str) -> None:
    (bundle / name).unlink(missing_ok=True)
    os.mkfifo(bundle / name)


def link(bundle: Path, name: str, target: str | Path) -> None:
    (bundle / name).unlink(missing_ok=True)
    os.symlink(target, bundle / name)


def sparse(bundle: Path, name: str, size: int) -> None:
    with (bundle / name).open("wb") as handle:
        handle.truncate(size)


def outside_copy(bundle: Path, name: str) -> None:
    """The file moved outside the bundle, a link left in its place: the content is right."""
    outside = bundle.parents[2] / "elsewhere" / Path(name).name
    outside.parent.mkdir(exist_ok=True)
    shutil.move(bundle / name, outside)
    os.symlink(outside, bundle / name)


def socket_file(bundle: Path, name: str) -> None:
    server = socket.socket(socket.AF_UNIX)
    here = Path.cwd()
    os.chdir(bundle / Path(name).parent)  # an AF_UNIX path is limited to about 100 bytes
    try:
        server.bind(Path(name).name)
    finally:
        os.chdir(here)
        server.close()


def nested(bundle: Path, depth: int) -> None:
    deep = bundle.joinpath(*(f"d{n}" for n in range(depth)))
    deep.mkdir(parents=True)
    (deep / "x.jsonl").write_text("{}\n")


def inner_link(bundle: Path) -> None:
    shutil.copy(bundle / "items/episode.jsonl", bundle / "episodes.copy")
    link(bundle, "items/episode.jsonl", "../episodes.copy")


def linked_items(bundle: Path) -> None:
    elsewhere = bundle.parents[2] / "items-elsewhere"
    shutil.move(bundle / "items", elsewhere)
    os.symlink(elsewhere, bundle / "items")


def several_within_bound(bundle: Path) -> None:
    each = MAX_FILE_BYTES - 1
    for n in range(MAX_BUNDLE_BYTES // each + 1):
        sparse(bundle, f"audit/part{n}.bin", each)


HANGS = {
    "a FIFO in place of the episodes": (
        lambda b: fifo(b, "items/episode.jsonl"),
        "a FIFO, not a regular file: items/episode.jsonl",
    ),
    "a stray FIFO named as a known kind": (
        lambda b: fifo(b, "items/fact.jsonl"),
        "a FIFO, not a regular file: items/fact.jsonl",
    ),
    "a FIFO in place of the manifest": (
        lambda b: fifo(b, "manifest.json"),
        "a FIFO, not a regular file: manifest.json",
    ),
    "a FIFO in place of CHECKSUMS": (
        lambda b: fifo(b, "CHECKSUMS"),
        "a FIFO, not a regular file: CHECKSUMS",
    ),
    "a FIFO outside the known folders": (
        lambda b: fifo(b, "notes"),
        "a FIFO, not a regular file: notes",
    ),
    "the episodes a link to /dev/zero": (
        lambda b: link(b, "items/episode.jsonl", "/dev/zero"),
        "a symbolic link, not a regular file: items/episode.jsonl",
    ),
    "a stray known kind a link to /dev/zero": (
        lambda b: link(b, "items/entity.jsonl", "/dev/zero"),
        "a symbolic link, not a regular file: items/entity.jsonl",
    ),
    "the manifest a link to /dev/urandom": (
        lambda b: link(b, "manifest.json", "/dev/urandom"),
        "a symbolic link, not a regular file: manifest.json",
    ),
    "the episodes a link leaving the bundle": (
        lambda b: outside_copy(b, "items/episode.jsonl"),
        "a symbolic link, not a regular file: items/episode.jsonl",
    ),
    "the episodes a link inside the bundle": (
        inner_link,
        "a symbolic link, not a regular file: items/episode.jsonl",
    ),
    "items/ a link to a folder outside": (
        linked_items,
        "a symbolic link, not a regular file: items",
    ),
    "a sparse gigabyte in place of the episodes": (
        lambda b: sparse(b, "items/episode.jsonl", 1 << 30),
        f"a file of more than {MAX_FILE_BYTES:,} bytes: items/episode.jsonl (1,073,741,824 bytes)",
    ),
    "a stray file one byte over the bound": (
        lambda b: sparse(b, "items/fact.jsonl", MAX_FILE_BYTES + 1),
        f"a file of more than {MAX_FILE_BYTES:,} bytes: items/fact.jsonl",
    ),
    "files each within the bound, over the bundle's": (
        several_within_bound,
        f"more than the {MAX_BUNDLE_BYTES:,} a bundle may hold",
    ),
    "a socket among the items": (
        lambda b: socket_file(b, "items/chunk.jsonl"),
        "a socket, not a regular file: items/chunk.jsonl",
    ),
    "folders nested ten deep": (
        lambda b: nested(b, 10),
        "directories nested more than 4 deep: d0/d1/d2/d3/d4",
    ),
}


@pytest.mark.parametrize("case", HANGS)
def test_validate_bundle_refuses_what_would_hang_or_exhaust_memory(bundle, case):
    make, problem = HANGS[case]
    make(bundle)
    validate_refuses(bundle, problem)


@pytest.mark.parametrize("case", HANGS)
def test_import_run_refuses_what_would_hang_or_exhaust_memory(bundle, world_dir, case):
    make, problem = HANGS[case]
    make(bundle)
    import_run_refuses(bundle, world_dir, problem)


@pytest.mark.parametrize("count", [MAX_ENTRIES + 1, 20_000])
def test_stray_files_past_the_bound_are_one_short_line_naming_the_count(bundle, world_dir, count):
    held = len(list(bundle.rglob("*")))
    for n in range(count):
        (bundle / f"items/s{n:05}").touch()
    counted = f"{held + count:,} files and directories, more than the {MAX_ENTRIES:,}"
    lines = validate_refuses(bundle, counted)
    first_few = f"({count + 1:,} in items/: items/episode.jsonl, items/s00000, items/s00001 and"
    assert len(lines) == 1 and first_few in lines[0]
    import_run_refuses(bundle, world_dir, counted)


@pytest.mark.parametrize("count", [4, 40, MAX_ENTRIES - 10])
def test_stray_files_within_the_bound_are_one_line_of_the_reference_validators(bundle, count):
    for n in range(count):
        (bundle / f"items/s{n:04}.jsonl").write_text("{}\n")
    lines = validate_refuses(bundle, "unlisted file present: items/s0000.jsonl, items/s0001.jsonl")
    unlisted = [line for line in lines if "unlisted file present" in line]
    assert len(unlisted) == 1 and unlisted[0].endswith(f"and {count - 3:,} more")


def test_a_fifo_or_a_link_to_dev_zero_given_as_the_bundle_is_no_bundle(tmp_path):
    os.mkfifo(tmp_path / "pipe.mem")
    os.symlink("/dev/zero", tmp_path / "zero.mem")
    for path in (tmp_path / "pipe.mem", tmp_path / "zero.mem"):
        run = memshift("validate-bundle", str(path))
        assert run.returncode == 1 and f"{path} is not a bundle directory" in run.stderr


def test_a_file_name_with_a_newline_stays_on_its_line(bundle):
    fifo(bundle, "items/a\nb.jsonl")
    assert validate_refuses(bundle, r"a FIFO, not a regular file: items/a\nb.jsonl")


def test_the_bounds_are_inclusive_and_checked_without_reading(tmp_path):
    root = tmp_path / "b.mem"
    root.mkdir()
    sparse(root, "at-the-bound", MAX_FILE_BYTES)
    for n in range(MAX_ENTRIES - 1):
        (root / f"f{n}").touch()
    assert survey(root).issues == [] and survey(root).bytes == MAX_FILE_BYTES
    (root / "one-more").touch()
    assert "1,001 files and directories" in survey(root).issues[0]


def test_a_bundle_memshift_exports_still_passes_both_validators(pristine):
    assert bundle_issues(pristine) == []
    assert BundleValidator().validate(pristine).ok
    run = subprocess.run([str(MEM), "validate", str(pristine)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout + run.stderr
    memory = PortableHoldMem(world_items(), context=CallContext(world=SEED))
    memory.import_(pristine)
    assert len(memory.slots) == 48


@pytest.fixture
def within_30_seconds():
    """In-process calls that a regression would block on a FIFO fail instead."""

    def expired(signum, frame):
        raise TimeoutError("blocked for 30 s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TIMEOUT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_export_clears_a_fifo_and_links_under_items_and_refuses_one_elsewhere(
    tmp_path, within_30_seconds
):
    out = tmp_path / "out.mem"
    (out / "items").mkdir(parents=True)
    os.mkfifo(out / "items/fact.jsonl")
    os.symlink("/dev/zero", out / "items/entity.jsonl")
    os.symlink("/dev/zero", out / "manifest.json")
    export_bundle(cell(SEED, "source", "1"), True, out, world(SEED).timeline.fork)
    assert bundle_issues(out) == [] and not (out / "manifest.json").is_symlink()
    os.mkfifo(out / "notes")
    with pytest.raises(MemshiftError) as info:
        export_bundle(cell(SEED, "source", "1"), True, out, world(SEED).timeline.fork)
    assert str(info.value) == f"bundle {out} does not validate: a FIFO, not a regular file: notes"


def test_the_reports_bundle_table_states_a_hostile_bundle_without_reading_it(
    bundle, within_30_seconds
):
    fifo(bundle, "items/episode.jsonl")
    sparse(bundle, "items/fact.jsonl", 1 << 30)
    total = (1 << 30) + sum(
        p.stat().st_size for p in (bundle / "manifest.json", bundle / "CHECKSUMS")
    )
    summary = bundle_summary(bundle)
    assert summary["ok"] is False and summary["episodes"] == 0 and summary["bytes"] == total
    assert summary["issues"] == (
        "a FIFO, not a regular file: items/episode.jsonl; "
        f"a file of more than {MAX_FILE_BYTES:,} bytes: items/fact.jsonl (1,073,741,824 bytes); "
        f"files of {total:,} bytes in all, more than the {MAX_BUNDLE_BYTES:,} "
        "a bundle may hold"
    )


# ---- class 3: forged content ------------------------------------------------------------------


def twice(position: int = 1, forged: str = "The user lives in Atlantis.") -> Callable:
    def change(eps: list[dict]) -> list[dict]:
        copy = dict(eps[0], details=forged, summary=forged)
        copy["metadata"] = dict(eps[0]["metadata"], position=str(position))
        return [*eps, copy]

    return change


def of_world(seed: int | None, how_many: int = 1) -> Callable:
    def change(eps: list[dict]) -> list[dict]:
        return [
            dict(e, contextID=None if seed is None else f"memshift:w{seed}") if n < how_many else e
            for n, e in enumerate(eps)
        ]

    return change


FORGERIES = {
    "one id twice, the second a forged statement": (
        lambda b: edited(b, twice()),
        "episode id given twice",
    ),
    "one id twice at the same position": (
        lambda b: edited(b, twice(position=0)),
        "episode id given twice",
    ),
    "one line given twice": (
        lambda b: edited(b, lambda eps: [*eps, eps[5]]),
        "(lines 6 and 49)",
    ),
    "forty ids given twice": (
        lambda b: edited(b, lambda eps: eps + eps[:40]),
        "and 37 more",
    ),
    "an episode of world 1001": (
        lambda b: edited(b, of_world(1001)),
        "1 of its 48 episodes are not of world 1000",
    ),
    "every episode of world 1001": (
        lambda b: edited(b, of_world(1001, 48)),
        "48 of its 48 episodes are not of world 1000",
    ),
    "an episode of no world": (
        lambda b: edited(b, of_world(None)),
        "has contextID None",
    ),
    "NaN in an unknown key": (
        lambda b: with_raw(b, extra_key("NaN")),
        "NaN, which is not a JSON number",
    ),
    "-Infinity in an unknown key": (
        lambda b: with_raw(b, extra_key('{"score": -Infinity}')),
        "-Infinity, which is not a JSON number",
    ),
    "a number beyond a float in an unknown key": (
        lambda b: with_raw(b, extra_key("1e999")),
        "the number inf, which JSON cannot hold",
    ),
    "an integer of thirty digits in an unknown key": (
        lambda b: with_raw(b, extra_key("1" * 30)),
        "a number of 30 digits",
    ),
    "a byte that is no UTF-8 in an unknown key": (
        lambda b: with_raw(b, lambda line: line[:-1] + b',"vendor.note":"caf\xe9"}'),
        "not UTF-8 text: items/episode.jsonl",
    ),
    "a byte that is no UTF-8 in the statement": (
        lambda b: with_raw(b, lambda line: line.replace(b"As of", b"As\xff of", 1)),
        "not UTF-8 text: items/episode.jsonl",
    ),
    "the statement given twice in one object": (
        lambda b: with_raw(
            b, lambda line: line[:-1] + b',"details":"The user lives in Atlantis."}'
        ),
        "the key 'details' twice in one object",
    ),
    "an unknown key nested a hundred deep": (
        lambda b: with_raw(b, extra_key("[" * 100 + "]" * 100)),
        "nested deeper than 64 levels at $.vendor.extra",
    ),
}


def test_nesting_past_the_parsers_recursion_is_one_line_not_a_crash():
    problem, _ = line_problem('{"x":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert problem == "JSON nested too deep to parse"


@pytest.mark.parametrize("case", FORGERIES)
def test_the_reference_validator_alone_lets_each_forgery_through(bundle, case):
    make, _ = FORGERIES[case]
    assert BundleValidator().validate(make(bundle)).ok


@pytest.mark.parametrize("case", FORGERIES)
def test_the_import_refuses_forged_content_in_one_line(bundle, case):
    make, problem = FORGERIES[case]
    import_refuses(make(bundle), problem)


@pytest.mark.parametrize("case", [c for c in FORGERIES if "world" not in c])
def test_validate_bundle_refuses_forged_content(bundle, case):
    make, problem = FORGERIES[case]
    validate_refuses(make(bundle), problem)


@pytest.mark.parametrize(
    "case", ["one id twice, the second a forged statement", "an episode of world 1001"]
)
def test_import_run_refuses_forged_content_in_one_line(bundle, world_dir, case):
    make, problem = FORGERIES[case]
    import_run_refuses(make(bundle), world_dir, problem)


def test_the_forged_second_statement_is_never_served(pristine, bundle):
    memory = PortableHoldMem(world_items(), context=CallContext(world=SEED))
    memory.import_(pristine)
    before = {item: list(slot.texts) for item, slot in memory.slots.items()}
    with pytest.raises(MemshiftError, match="episode id given twice"):
        memory.import_(edited(bundle, twice(forged="The user lives in Atlantis.")))
    assert {item: slot.texts for item, slot in memory.slots.items()} == before
    assert not any("Atlantis" in text for texts in before.values() for text in texts)


def test_a_true_export_of_another_world_is_refused(tmp_path):
    other = tmp_path / "w1001.mem"
    export_bundle(cell(1001, "source", "1"), True, other, world(1001).timeline.fork)
    assert bundle_issues(other) == []  # a valid bundle, of world 1001
    import_refuses(other, "48 of its 48 episodes are not of world 1000")
    accepted = PortableHoldMem(world(1001).items, context=CallContext(world=1001))
    accepted.import_(other)
    assert len(accepted.slots) == 48


def test_without_a_world_a_bundle_of_two_worlds_is_refused(bundle):
    import_refuses(edited(bundle, of_world(1001, 10)), "its episodes claim 2 worlds", world=None)


# ---- class 4: lone surrogates (a JavaScript tool cutting a string inside an emoji) -------------


def at(key: bytes, escape: str) -> Callable[[bytes], bytes]:
    """Puts `escape` (JSON escapes, e.g. \\ud83d) at the start of the first string after `key`."""
    return lambda line: line.replace(b'"' + key + b'":"', b'"' + key + b'":"' + escape.encode(), 1)


SURROGATES = {
    "a high surrogate alone in the statement": (
        at(b"details", "\\ud83d"),
        "a lone surrogate (U+D83D at character 0) at $.details",
    ),
    "a low surrogate alone in the statement": (
        at(b"details", "\\ude00"),
        "a lone surrogate (U+DE00 at character 0) at $.details",
    ),
    "an emoji cut after its first half, at the end": (
        lambda line: line.replace(b'none."', b'none. \\ud83d"', 1),
        "a lone surrogate (U+D83D",
    ),
    "the two halves in the wrong order": (
        at(b"details", "\\ude00\\ud83d"),
        "a lone surrogate (U+DE00",
    ),
    "a lone surrogate in the summary": (
        at(b"summary", "\\udbff"),
        "at $.summary",
    ),
    "a lone surrogate in the derivation's writer": (
        at(b"writer", "\\ud800"),
        "a lone surrogate (U+D800",
    ),
    "a lone surrogate in an unknown key": (
        extra_key('"\\ud83d"'),
        "at $.vendor.extra",
    ),
    "a lone surrogate in a key's name": (
        lambda line: line.replace(b'"metadata":{', b'"metadata":{"k\\ud83d":"v",', 1),
        "a lone surrogate (U+D83D at character 1) at $.metadata",
    ),
    "a surrogate written as raw bytes": (
        lambda line: line.replace(b'"details":"', b'"details":"\xed\xa0\xbd', 1),
        "not UTF-8 text: items/episode.jsonl",
    ),
}


@pytest.mark.parametrize("case", SURROGATES)
def test_a_lone_surrogate_in_a_bundle_is_refused_in_one_line(bundle, case):
    change, problem = SURROGATES[case]
    with_raw(bundle, change)
    assert BundleValidator().validate(bundle).ok  # the package alone lets it through
    validate_refuses(bundle, problem)
    import_refuses(bundle, problem)


def test_lone_surrogates_in_every_episode_are_one_line(bundle):
    lines = (bundle / "items/episode.jsonl").read_bytes().splitlines()
    forged(bundle, [at(b"details", "\\ud83d")(line) for line in lines])
    lines = validate_refuses(bundle, "items/episode.jsonl line 1 (a lone surrogate")
    assert len(lines) == 1


def test_import_run_stops_on_a_lone_surrogate_before_any_answer(bundle, world_dir):
    with_raw(bundle, at(b"details", "\\ud83d"))
    import_run_refuses(bundle, world_dir, "a lone surrogate (U+D83D at character 0) at $.details")


@pytest.mark.parametrize("emoji", ["\\ud83d\\ude00", "\U0001f600"])
def test_a_whole_emoji_is_no_surrogate_and_is_served(bundle, emoji):
    with_raw(bundle, at(b"details", emoji))
    assert bundle_issues(bundle) == []
    memory = PortableHoldMem(world_items(), context=CallContext(world=SEED))
    memory.import_(bundle)
    item = episodes(bundle)[0]["metadata"]["item_id"]
    assert memory.slots[item].texts[0].startswith("\U0001f600")


def holdmem_refuses(tmp_path: Path, slots: dict[str, list[str]], problem: str) -> None:
    path = tmp_path / "store.json"
    text = json.dumps({"format": BUNDLE_FORMAT, "slots": slots})  # escapes every surrogate
    path.write_text(text)
    memory = HoldMem(world_items())
    with pytest.raises(MemshiftError) as info:
        memory.import_(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    assert problem in message, message
    assert memory.imported is None


@pytest.mark.parametrize(
    ("statements", "problem"),
    [
        (["\ud83d"], "first statement 0 of ITEM: a lone surrogate (U+D83D at character 0)"),
        (["Lives in Berlin \ud83d"], "a lone surrogate (U+D83D at character 16)"),
        (["\ude00"], "a lone surrogate (U+DE00"),
        (["\ude00\ud83d"], "a lone surrogate (U+DE00 at character 0)"),
        (["fine", "cut \udbff"], "first statement 1 of ITEM"),
        (["\ud83d"] * 5, "5 statement(s) cannot be stored"),
    ],
)
def test_holdmem_refuses_a_lone_surrogate_in_its_bundle(tmp_path, statements, problem):
    item = world_items()[0].item_id
    holdmem_refuses(tmp_path, {item: statements}, problem.replace("ITEM", item))


def test_holdmem_serves_a_whole_emoji_from_its_bundle(tmp_path):
    item = world_items()[0].item_id
    path = tmp_path / "store.json"
    path.write_text(json.dumps({"format": BUNDLE_FORMAT, "slots": {item: ["Berlin \U0001f600"]}}))
    memory = HoldMem(world_items())
    memory.import_(path)
    assert memory.imported == {item: ["Berlin \U0001f600"]}
