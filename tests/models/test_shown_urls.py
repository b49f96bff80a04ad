"""Class 11: a profile built in code is never loaded, so its base URL may hold credentials;
wherever a profile is written out (the run manifest, the report's backend line) they are
replaced, and a plain URL is written as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memshift.models.profiles import Profile
from memshift.models.redaction import REDACTED, shown_url
from memshift.stages import run_manifest
from memshift.stages.report import backend_label

SECRET = "sk-in-code-4711"
LEAKY = [
    (f"http://me:{SECRET}@10.0.0.5:8000/v1", f"http://{REDACTED}@10.0.0.5:8000/v1"),
    (f"https://{SECRET}@api.example.com/v1", f"https://{REDACTED}@api.example.com/v1"),
    (f"https://api.example.com/v1?api_key={SECRET}", f"https://api.example.com/v1?{REDACTED}"),
    (f"https://api.example.com/v1#{SECRET}", f"https://api.example.com/v1#{REDACTED}"),
    (f"http://a:{SECRET}@b:{SECRET}@host/v1", f"http://{REDACTED}@host/v1"),
    (f"http://me:{SECRET}\t@host/v1?k={SECRET}", f"http://{REDACTED}@host/v1?{REDACTED}"),
    (f"http://me:{SECRET}@[::1/v1", REDACTED),
]
PLAIN = [
    "http://localhost:8000/v1",
    "https://api.anthropic.com",
    "http://[::1]:8080/v1/",
    "http://127.0.0.1:11434",
    "",
]


def in_code(url: str) -> Profile:
    return Profile("made-in-code", "openai", model="m", base_url=url, api_key_env="KEY")


@pytest.mark.parametrize(("url", "shown"), LEAKY)
def test_credentials_in_a_url_are_replaced_wherever_it_is_shown(url, shown):
    assert shown_url(url) == shown and SECRET not in shown_url(url)


@pytest.mark.parametrize("url", PLAIN)
def test_a_plain_url_is_shown_as_it_is(url):
    assert shown_url(url) == url


@pytest.mark.parametrize(("url", "shown"), LEAKY)
def test_the_run_manifest_of_a_profile_built_in_code_holds_no_credentials(
    tmp_path: Path, url: str, shown: str
) -> None:
    profiles = {role: in_code(url) for role in ("writer", "reader")}
    manifest = run_manifest.build([], tmp_path, profiles, "s", [1], "c")
    assert SECRET not in json.dumps(manifest)
    assert manifest["model"]["reader"]["base_url"] == shown


@pytest.mark.parametrize(("url", "shown"), LEAKY)
def test_the_reports_backend_line_holds_no_credentials(url, shown):
    label = backend_label(in_code(url))
    assert SECRET not in label and label.endswith(f" at {shown}")


def test_a_url_with_control_characters_is_shown_escaped_on_one_line():
    shown = shown_url("http://host/v1\x1b[2J\x00")
    assert shown.isprintable() and shown == "http://host/v1\\x1b[2J\\x00"
