"""Class 9: sync settings the stage cannot run on are refused when the study is checked (and by
`memshift sync` itself), in one line naming the setting: integers are integers, numbers are
finite, and minutes stay within a week, past which a datetime overflows long before a result
could change."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from memshift.cli import main
from memshift.config import check_config
from memshift.errors import ConfigError
from memshift.intake.reading import config_schema
from memshift.studies.sync.contracts import BOUNDS, MAX_MINUTES, SyncSettings, deliver
from memshift.world.records import PublicEvent

FORK = datetime(2026, 10, 1)


def study(**sync: object) -> dict:
    return {"study": "t", "worlds": {"seeds": "1000"}, "branches": ["none"], "sync": sync}


BAD = [
    ("lag_minutes", 10**12, "10080"),
    ("lag_minutes", 10**30, "10080"),
    ("lag_minutes", -1, "minimum of 0"),
    ("lag_minutes", 5.0, "5.0 is not an integer (write 5)"),
    ("probe_delay_minutes", 10**15, "10080"),
    ("probe_delay_minutes", math.inf, "inf is not a finite number"),
    ("poll_minutes", 15.0, "15.0 is not an integer (write 15)"),
    ("poll_minutes", 0, "minimum of 1"),
    ("poll_minutes", 10_081, "10080"),
    ("poll_minutes", "15", "is not of type 'integer'"),
    ("page", 2.0, "2.0 is not an integer"),
    ("page", 10**9, "10000"),
    ("page", True, "is not of type 'integer'"),
    ("resync_p", math.nan, "nan is not a finite number"),
    ("resync_p", math.inf, "inf is not a finite number"),
    ("resync_p", -0.1, "minimum of 0"),
    ("resync_p", 1.5, "maximum of 1"),
]


@pytest.mark.parametrize(("name", "value", "problem"), BAD)
def test_a_sync_setting_the_stage_cannot_run_on_is_refused_at_config_check(name, value, problem):
    with pytest.raises(ConfigError) as caught:
        check_config(study(**{name: value}))
    message = str(caught.value)
    assert message.startswith(f"config sync.{name}: ") and problem in message
    assert "\n" not in message


@pytest.mark.parametrize(("name", "value", "problem"), BAD[:-4] + BAD[-3:])
def test_the_same_settings_made_in_code_are_refused_naming_the_setting(name, value, problem):
    with pytest.raises(ConfigError) as caught:
        SyncSettings(**{name: value})
    assert str(caught.value).startswith(f"sync.{name}: ")


def test_a_yaml_nan_resync_chance_is_refused(tmp_path: Path):
    path = tmp_path / "study.yaml"
    path.write_text("sync:\n  resync_p: .nan\n")
    with pytest.raises(ConfigError, match=r"config sync\.resync_p: nan is not a finite number"):
        check_config({**study(), **yaml.safe_load(path.read_text())})


def test_the_schema_and_the_stage_state_the_same_bounds():
    schema = config_schema()["properties"]["sync"]["properties"]
    assert {name: (spec["minimum"], spec["maximum"]) for name, spec in schema.items()} == BOUNDS
    kinds = {name: spec["type"] for name, spec in schema.items()}
    assert kinds == {name: "number" if name == "resync_p" else "integer" for name in BOUNDS}


def test_settings_at_their_bounds_pass_and_whole_numbers_pass_as_a_chance():
    widest = {"lag_minutes": MAX_MINUTES, "probe_delay_minutes": MAX_MINUTES,
              "poll_minutes": MAX_MINUTES, "page": 10_000, "resync_p": 1}  # fmt: skip
    assert check_config(study(**widest))["sync"] == widest
    assert check_config(study(lag_minutes=0, poll_minutes=1, resync_p=0))["sync"]["page"] == 50


def test_the_widest_settings_deliver_a_year_of_events_without_overflow():
    events = [
        PublicEvent(FORK + timedelta(days=day), "insert", f"m{day}", "email", "message", 1,
                    f"m{day}", {"body": "x"}, "x")
        for day in range(1, 360, 7)
    ]  # fmt: skip
    settings = SyncSettings(MAX_MINUTES, MAX_MINUTES, 10_000, 1.0, MAX_MINUTES)
    delivered = deliver(events, FORK, FORK + timedelta(days=365), settings, seed=1)
    polled = [d for d in delivered if not d.resync]
    assert {d.event.object_id for d in polled} == {e.object_id for e in events[:-1]}
    assert all(d.event.time - d.changed_at >= timedelta(minutes=MAX_MINUTES) for d in polled)


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("lag_minutes", 10**20, "sync.lag_minutes: "),
        ("probe_delay_minutes", 10**15, "sync.probe_delay_minutes: "),
        ("poll_minutes", 20000, "sync.poll_minutes: "),
        ("resync_p", 1.5, "sync.resync_p: "),
        ("resync_p", math.nan, "is not valid JSON: NaN is not a JSON number"),
        ("resync_p", "0.5", "spec.settings.resync_p: '0.5' is not a number"),
        ("lag", 5, "sync.lag is not a sync setting"),
    ],
)
def test_the_sync_job_refuses_them_in_one_line_before_reading_a_world(
    tmp_path: Path, monkeypatch, capsys, name: str, value: object, problem: str
):
    settings = {**asdict(SyncSettings()), name: value}
    spec = {"world": str(tmp_path / "w"), "out": str(tmp_path / "r"), "settings": settings,
            "access": {"roles": {"writer": "rules", "reader": "rules"},
                       "models": "config/models.yaml", "cache": None}}  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["memshift", "job", "sync", json.dumps(spec)])
    with pytest.raises(SystemExit) as exited:
        main()
    error = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in error
    assert error.count("\n") == 1 and problem in error
    assert not any(tmp_path.iterdir())
