"""A study names a real memory library under `systems.native`: its settings are checked when the
study is read, each mistake named in one line, and its jobs are planned like any system's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from memshift.config import check_config
from memshift.errors import ConfigError
from memshift.native.settings import NativeSettings
from memshift_tools.stand_ins import STAND_IN_EMBEDDER, stand_in_profile

MODELS = {
    "profiles": {
        "rules": {"backend": "rules"},
        "served": stand_in_profile("http://127.0.0.1:9/v1"),
        "claude": {
            "backend": "anthropic",
            "model": "c",
            "base_url": "http://127.0.0.1:9",
            "decoding": {"max_tokens": 10},
        },
    }
}
MEM0 = {"library": "mem0", "profile": "served", **STAND_IN_EMBEDDER}


def study(tmp_path: Path, native: dict) -> dict:
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump(MODELS))
    return {
        "study": "t",
        "models": str(models),
        "worlds": {"seeds": "1000"},
        "branches": ["none", "del"],
        "systems": {"native": native},
    }


def test_a_native_system_is_planned_with_its_settings(tmp_path):
    plan = check_config(study(tmp_path, {"mem0-view": {**MEM0, "program_view": True}}))
    settings = NativeSettings.from_json(plan["system_plan"]["native"]["mem0-view"])
    assert settings.library == "mem0" and settings.program_view and settings.top_k == 20


@pytest.mark.parametrize(
    ("native", "message"),
    [
        ({"m": {**MEM0, "library": "graphiti"}}, "systems.native.m.library"),
        ({"m": {**MEM0, "mode": "mix"}}, "systems.native.m.mode: an option of another library"),
        ({"m": {**MEM0, "library": "lightrag", "invalidate": "source"}}, "m.invalidate"),
        ({"m": {**MEM0, "profile": "nowhere"}}, "systems.native.m.profile: unknown model profile"),
        ({"m": {**MEM0, "profile": "claude"}}, "needs an OpenAI-compatible server"),
        ({"m": {**MEM0, "profile": "rules"}}, "needs an OpenAI-compatible server"),
        ({"m": {k: v for k, v in MEM0.items() if k != "embedding_dims"}}, "embedding_dims"),
        ({"m": {**MEM0, "embedding_dims": 0}}, "embedding_dims"),
        ({"m": {**MEM0, "surprise": 1}}, "surprise"),
        ({"m": {**MEM0, "python": "/x/bin/python"}}, "m.python: an option of another library"),
        ({"m": {**MEM0, "library": "cognee", "batch": 5}}, "m.batch: an option of another"),
        ({"m": {**MEM0, "library": "memos", "python": "bin/python"}}, "m.python"),
        ({"m": {**MEM0, "library": "memos", "python": "/x\nrm -rf /"}}, "m.python"),
        ({"m": {**MEM0, "reply_timeout_s": 60}}, "m.reply_timeout_s: an option of another"),
        ({"m": {**MEM0, "library": "cognee", "reply_timeout_s": 0}}, "m.reply_timeout_s"),
        ({"m": {**MEM0, "library": "memos", "reply_timeout_s": "1; sleep"}}, "m.reply_timeout_s"),
        ({"bm25": MEM0}, "systems.native: the name 'bm25' is taken"),
        ({"Bad Name": MEM0}, "systems.native"),
    ],
)
def test_a_bad_native_system_is_named_in_one_line(tmp_path, native, message):
    with pytest.raises(ConfigError) as info:
        check_config(study(tmp_path, native))
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("library", "options"),
    [
        ("memos", {"batch": 5, "python": "/opt/memos/bin/python", "reply_timeout_s": 60}),
        ("cognee", {"python": "", "reply_timeout_s": 7200}),
    ],
)
def test_a_library_in_its_own_environment_takes_its_own_options(tmp_path, library, options):
    plan = check_config(study(tmp_path, {"m": {**MEM0, "library": library, **options}}))
    settings = NativeSettings.from_json(plan["system_plan"]["native"]["m"])
    assert settings.library == library
    assert {k: getattr(settings, k) for k in options} == options


def test_settings_passed_on_the_command_line_are_checked():
    assert NativeSettings.from_json(NativeSettings(**MEM0).to_json()) == NativeSettings(**MEM0)
    for bad in ("{", "[]", json.dumps({**MEM0, "extra": 1})):
        with pytest.raises(ConfigError, match="settings: "):
            NativeSettings.from_json(bad)


def windowed(tmp_path: Path, library: str, context_length: int) -> dict:
    """A study whose native system's profile states a context window, max_tokens 512."""
    config = study(tmp_path, {"m": {**MEM0, "library": library, "profile": "short"}})
    short = {**stand_in_profile("http://127.0.0.1:9/v1"), "context_length": context_length}
    short["decoding"] = {"temperature": 0.0, "max_tokens": 512}
    Path(config["models"]).write_text(
        yaml.safe_dump({"profiles": {**MODELS["profiles"], "short": short}})
    )
    return config


def test_a_library_whose_own_instructions_overflow_the_window_is_refused(tmp_path):
    # the prompts are read from mem0's files, never by importing mem0, whose import would turn
    # its telemetry on for every later test of the process
    with pytest.raises(ConfigError) as info:
        check_config(windowed(tmp_path, "mem0", 8192))
    message = str(info.value)
    assert "\n" not in message
    assert re.fullmatch(
        r"systems\.native\.m: Mem0's fact-extraction instructions alone are [\d,]+ tokens "
        r"\(x token_ratio 1\.00\) \+ max_tokens 512 = [\d,]+ > context_length 8,192 of profile "
        r"'short'; give the library a model with a longer context",
        message,
    ), message
    tokens = int(re.search(r"are ([\d,]+) tokens", message).group(1).replace(",", ""))
    assert tokens > 7000  # the additive extraction prompt of mem0ai 2.2.1


def test_a_window_that_holds_the_instructions_is_accepted(tmp_path):
    for library in ("mem0", "lightrag"):
        plan = check_config(windowed(tmp_path, library, 65536))
        assert NativeSettings.from_json(plan["system_plan"]["native"]["m"]).library == library


def test_lightrag_is_measured_by_its_own_prompt(tmp_path):
    with pytest.raises(ConfigError, match="LightRAG's entity-extraction instructions alone"):
        check_config(windowed(tmp_path, "lightrag", 2048))


def test_a_library_not_installed_is_not_checked(tmp_path, monkeypatch):
    from memshift.native import prompt_sizes

    monkeypatch.setitem(prompt_sizes.INSTRUCTIONS, "mem0", ("Mem0's", lambda: None))
    assert check_config(windowed(tmp_path, "mem0", 1024))["system_plan"]["native"]["m"]
