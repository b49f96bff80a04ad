"""HoldMem's store at the fork as a Portable Memory bundle, checked by the format's reference
package (validator, importer, `mem validate`) and by the format's published JSON Schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from portable_memory import BundleImporter, BundleValidator, PortableMemoryStore

from conftest import data, world
from memshift.errors import MemshiftError
from memshift.memory.detection import prefork_writes
from memshift.models.client import ModelClient
from memshift.models.profiles import Profile
from memshift.models.requests import CallContext
from memshift.studies.export.analysis import bundles_table
from memshift.studies.export.bundles import bundle_issues
from memshift.studies.export.portable import EXT_KEY, export_bundle, served_at_fork
from memshift.world.records import public_view

SCHEMAS = Path(__file__).parents[1] / "data/portable-memory"
MEM = Path(sys.executable).with_name("mem")
RULES = Profile("rules", "rules")


@cache
def cell(seed: int, detection: str, repair: str):
    events = tuple(public_view(data(seed)["none"].branch.events))
    prefork = prefork_writes(world(seed), events, ModelClient(RULES), CallContext(world=seed))
    return served_at_fork(world(seed), events, prefork, detection, repair, ModelClient(RULES))


def exported(tmp_path: Path, detection="source", repair="1", arm="ext", seed=1000) -> Path:
    out = tmp_path / f"w{seed}-d{repair}-{detection}-{arm}.mem"
    export_bundle(cell(seed, detection, repair), arm == "ext", out, world(seed).timeline.fork)
    return out


class Collector(PortableMemoryStore):
    """A receiving store that keeps what the importer hands it."""

    def __init__(self) -> None:
        self.episodes: dict[str, object] = {}
        self.ext: dict[str, dict | None] = {}

    def import_episode(self, e, ext):  # type: ignore[no-untyped-def]
        self.episodes[e.id] = e
        self.ext[e.id] = None if ext is None else json.loads(ext)


@pytest.mark.parametrize(
    ("detection", "repair", "arm"),
    [
        ("source", "1", "ext"),
        ("source", "1", "noext"),
        ("append", "0", "ext"),
        ("citation", "1", "ext"),
    ],
)
def test_every_bundle_validates_with_the_reference_package_and_its_cli(
    tmp_path, detection, repair, arm
):
    bundle = exported(tmp_path, detection, repair, arm)
    assert BundleValidator().validate(bundle).ok
    run = subprocess.run([str(MEM), "validate", str(bundle)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout + run.stderr
    lines = (bundle / "items/episode.jsonl").read_text().splitlines()
    assert len(lines) == len(cell(1000, detection, repair)) == 48


def test_every_episode_and_the_manifest_match_the_published_schemas(tmp_path):
    bundle = exported(tmp_path)
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    episode = json.loads((SCHEMAS / "episode.schema.json").read_text())
    for line in (bundle / "items/episode.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), episode, format_checker=checker)
    manifest = json.loads((SCHEMAS / "manifest.schema.json").read_text())
    jsonschema.validate(
        json.loads((bundle / "manifest.json").read_text()), manifest, format_checker=checker
    )


def test_an_export_is_the_same_bytes_every_time_and_dated_at_the_fork(tmp_path):
    first, second = exported(tmp_path / "a"), exported(tmp_path / "b")
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert [str(f) for f in files] == ["CHECKSUMS", "items/episode.jsonl", "manifest.json"]
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    created = json.loads((first / "manifest.json").read_text())["createdAt"]
    assert created == world(1000).timeline.fork.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_derivation_comes_back_whole_and_only_in_the_ext_arm(tmp_path):
    received = Collector()
    BundleImporter().import_bundle(received, exported(tmp_path), reembed=False)
    sent = {s.episode.id: s.derivation for s in cell(1000, "source", "1")}
    assert {i: e[EXT_KEY] for i, e in received.ext.items() if e} == sent
    first = next(iter(sent.values()))
    assert first["writer"] == "rules:rules@" and first["key"]["writer"] == "rules:rules@"
    assert first["key_kind"] == "source" and first["schema"] == "memshift-derivation-1"
    bare = Collector()
    BundleImporter().import_bundle(bare, exported(tmp_path, arm="noext"), reembed=False)
    assert len(bare.episodes) == 48 and all(e is None for e in bare.ext.values())


def test_a_tampered_or_padded_bundle_is_refused_naming_the_file(tmp_path):
    bundle = exported(tmp_path)
    lines = bundle / "items/episode.jsonl"
    raw = bytearray(lines.read_bytes())
    raw[100] = ord("X") if raw[100] != ord("X") else ord("Y")
    lines.write_bytes(bytes(raw))
    assert "checksum mismatch: items/episode.jsonl" in bundle_issues(bundle)
    padded = exported(tmp_path / "p")
    (padded / "items/extra.jsonl").write_text("{}\n")
    assert any("extra.jsonl" in issue for issue in bundle_issues(padded))
    assert bundle_issues(tmp_path / "nowhere") == [
        f"{tmp_path / 'nowhere'} is not a bundle directory"
    ]


def test_validate_bundle_exits_one_naming_each_issue(tmp_path):
    bundle = exported(tmp_path)
    memshift = [sys.executable, "-m", "memshift.cli", "validate-bundle", str(bundle)]
    ok = subprocess.run(memshift, capture_output=True, text=True)
    assert ok.returncode == 0 and "valid" in ok.stderr
    (bundle / "CHECKSUMS").write_text("")
    bad = subprocess.run(memshift, capture_output=True, text=True)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert all(line.startswith(f"{bundle}: ") for line in bad.stderr.splitlines())


def test_the_reports_bundle_table_states_each_bundle_and_what_is_wrong(tmp_path):
    good = exported(tmp_path / "w1000/export", arm="ext")
    good = good.rename(good.with_name("pm-d1-source-ext.mem"))
    bad = exported(tmp_path / "w1000/export", arm="noext")
    bad = bad.rename(bad.with_name("pm-d1-source-noext.mem"))
    (bad / "items/episode.jsonl").write_bytes(b"{}\n")
    rows = bundles_table([bad, good]).to_pylist()
    manifest = json.loads((good / "manifest.json").read_text())
    assert rows[0] == {
        "world": 1000,
        "cell": "holdmem-d1-source",
        "arm": "ext",
        "ok": True,
        "issues": "",
        "bundle_digest": manifest["bundleDigest"],
        "episodes": 48,
        "bytes": sum(f.stat().st_size for f in good.rglob("*") if f.is_file()),
    }
    assert rows[1]["arm"] == "noext" and rows[1]["ok"] is False
    assert "checksum mismatch: items/episode.jsonl" in rows[1]["issues"]
    for elsewhere in (tmp_path / "elsewhere.mem", tmp_path / "wx/export/pm-d1-source-ext.mem"):
        with pytest.raises(MemshiftError, match="not a bundle of w<world>/export"):
            bundles_table([elsewhere])
