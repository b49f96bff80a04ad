"""A study names a real memory library under `systems.native`: its settings are checked when the
study is read, each mistake named in one line, and its jobs are planned like any system's."""

from __future__ import annotations

import json
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
        ({"bm25": MEM0}, "systems.native: the name 'bm25' is taken"),
        ({"Bad Name": MEM0}, "systems.native"),
    ],
)
def test_a_bad_native_system_is_named_in_one_line(tmp_path, native, message):
    with pytest.raises(ConfigError) as info:
        check_config(study(tmp_path, native))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_settings_passed_on_the_command_line_are_checked():
    assert NativeSettings.from_json(NativeSettings(**MEM0).to_json()) == NativeSettings(**MEM0)
    for bad in ("{", "[]", json.dumps({**MEM0, "extra": 1})):
        with pytest.raises(ConfigError, match="--native"):
            NativeSettings.from_json(bad)
