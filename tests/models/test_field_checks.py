"""Class 7: every URL, number and secret a model profile or a native system's settings hold is
checked before a call is made, loaded from a file, given on a command line or built in code;
each refusal is one line naming the profile or setting and the field, and repeats no secret."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from batchwork import openai_profile, reader_batch

from conftest import finishes
from memshift.config import check_config
from memshift.errors import ConfigError
from memshift.models.client import ModelClient
from memshift.models.field_checks import secret_problem, url_problem
from memshift.models.profiles import load_profiles
from memshift.native.settings import NativeSettings
from memshift.stages.specs import ModelAccess, NativeProbeJob
from memshift_tools.localserver import LocalServer, canned_answer
from memshift_tools.stand_ins import STAND_IN_EMBEDDER, stand_in_profile

KEY_ENV = "MEMSHIFT_TEST_FIELD_KEY"
SECRET = "sk-field-9931"


@pytest.fixture
def silent() -> Iterator[str]:
    """The URL of a server that takes connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def refused(call: Callable[[], Any]) -> str:
    """The one-line message `call` is refused with."""
    with pytest.raises(ConfigError) as caught:
        finishes(call)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message
    assert SECRET not in message
    return message


def models_file(tmp_path: Path, **fields: Any) -> Path:
    raw = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
           "decoding": {"max_tokens": 64}, **fields}  # fmt: skip
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"p": raw}}))
    return path


# --- Secrets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [f"{SECRET}\n", f"{SECRET}\r\n", f" {SECRET}", f"{SECRET} ", f"{SECRET}\t",
     f"sk-\t{SECRET}", f"sk-\x1b{SECRET}", f"sk-\x7f{SECRET}", f"sk-\u0085{SECRET}",
     f"sk-é{SECRET}", f"sk-\udcff{SECRET}"],
    ids=["newline", "crlf", "leading-space", "trailing-space", "trailing-tab", "inner-tab",
         "escape", "del", "c1-control", "non-ascii", "undecodable-byte"],
)  # fmt: skip
def test_an_api_key_that_cannot_go_in_a_header_is_refused_before_any_call(monkeypatch, key):
    monkeypatch.setenv(KEY_ENV, key)
    with LocalServer(canned_answer) as server:
        client = ModelClient(openai_profile(server.url, api_key_env=KEY_ENV))
        message = refused(lambda: client.generate(reader_batch(1)))
        assert server.stats()["requests"] == 0
    assert message.startswith(f"model profile 'local': the API key in {KEY_ENV} ")


def test_a_key_is_refused_not_trimmed_and_a_clean_one_is_sent(monkeypatch):
    assert "does not trim" in secret_problem(f"{SECRET}\n")
    monkeypatch.setenv(KEY_ENV, "sk-proj_AB-12.x~Z")
    with LocalServer(canned_answer) as server:
        replies = ModelClient(openai_profile(server.url, api_key_env=KEY_ENV)).generate(
            reader_batch(1)
        )
        assert server.stats()["requests"] == 1
    assert replies[0].failure != "transport_error"


@pytest.mark.parametrize("name", ["KEY\n", "A B", "1KEY", "A=B", "", "KEY\x00"])
def test_a_key_variable_that_is_no_variable_name_is_refused(tmp_path, name):
    message = refused(lambda: load_profiles(models_file(tmp_path, api_key_env=name)))
    assert "profiles.p.api_key_env" in message


# --- Numbers ----------------------------------------------------------------------------------

BAD_NUMBERS = [
    ({"timeout_s": math.nan}, "timeout_s", "nan is not a finite number"),
    ({"timeout_s": math.inf}, "timeout_s", "inf is not a finite number"),
    ({"timeout_s": -math.inf}, "timeout_s", "-inf is not a finite number"),
    ({"timeout_s": 0}, "timeout_s", "less than or equal to the minimum"),
    ({"timeout_s": 90_000}, "timeout_s", "greater than the maximum of 86400"),
    ({"timeout_s": "10"}, "timeout_s", "is not of type 'number'"),
    ({"token_ratio": math.nan}, "token_ratio", "nan is not a finite number"),
    ({"concurrency": 16.0}, "concurrency", "16.0 is not an integer (write 16)"),
    ({"max_attempts": 2.5}, "max_attempts", "is not of type 'integer'"),
    ({"context_length": 4096.0}, "context_length", "4096.0 is not an integer"),
    ({"max_reply_bytes": math.inf}, "max_reply_bytes", "inf is not a finite number"),
    ({"decoding": {"max_tokens": 64, "temperature": math.nan}}, "decoding.temperature", "nan"),
    ({"decoding": {"max_tokens": 64.0}}, "decoding.max_tokens", "64.0 is not an integer"),
    ({"decoding": {"max_tokens": 0}}, "decoding.max_tokens", "less than the minimum of 1"),
    ({"decoding": {"max_tokens": "64"}}, "decoding.max_tokens", "is not of type 'integer'"),
    ({"decoding": {"max_tokens": True}}, "decoding.max_tokens", "is not of type 'integer'"),
    ({"decoding": {"max_tokens": 64, "top_p": -math.inf}}, "decoding.top_p", "not a finite"),
    ({"roles": {"reader": {"decoding": {"temperature": math.nan}}}},
     "roles.reader.decoding.temperature", "nan is not a finite number"),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "field", "problem"), BAD_NUMBERS)
def test_a_models_file_number_out_of_bounds_is_refused_naming_profile_and_field(
    tmp_path, fields, field, problem
):
    message = refused(lambda: load_profiles(models_file(tmp_path, **fields)))
    assert f"profiles.p.{field}: " in message and problem in message


@pytest.mark.parametrize(("fields", "field", "problem"), BAD_NUMBERS)
def test_a_profile_built_in_code_is_held_to_the_same_numbers(silent, fields, field, problem):
    profile = openai_profile(silent, **fields)
    message = refused(lambda: ModelClient(profile).generate(reader_batch(1)))
    assert message.startswith(f"model profile 'local': {field} ") and problem in message


def test_an_error_models_rate_that_is_nan_is_refused(tmp_path):
    path = tmp_path / "models.yaml"
    rates = {"seed": 1, "rates": {"definition": math.nan}}
    path.write_text(
        yaml.safe_dump({"profiles": {"weak": {"backend": "rules", "error_model": rates}}})
    )
    message = refused(lambda: load_profiles(path))
    assert "profiles.weak.error_model.rates.definition: nan is not a finite number" in message


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"extra_body": {"options": {"repeat_penalty": math.nan}}}, "extra_body"),
        ({"extra_body": {"logit_bias": {"7": math.inf}}}, "extra_body"),
        ({"extra_body": {"big": 2**80}}, "extra_body"),
        ({"extra_body": {"text": "\ud800"}}, "extra_body"),
    ],
)
def test_values_sent_as_written_must_be_json_a_server_can_read(tmp_path, silent, fields, field):
    message = refused(lambda: load_profiles(models_file(tmp_path, **fields)))
    assert message.startswith(f"model profile 'p': {field} holds ")
    built = openai_profile(silent, **fields)
    message = refused(lambda: ModelClient(built).generate(reader_batch(1)))
    assert message.startswith(f"model profile 'local': {field} holds ")


def test_a_nan_timeout_built_in_code_never_reaches_a_silent_server(silent):
    profile = openai_profile(silent, timeout_s=math.nan, max_attempts=1)
    assert "timeout_s nan is not a finite number" in refused(
        lambda: ModelClient(profile).generate(reader_batch(1))
    )


# --- URLs -------------------------------------------------------------------------------------

BAD_URLS = [
    ("http://127.0.0.1:9/v1\n", "whitespace or a control character"),
    ("http://127.0.0.1:9/\tv1", "whitespace or a control character"),
    ("http://127.0.0.1:9 /v1", "whitespace or a control character"),
    ("http://127.0.0.1:9/v1\r", "whitespace or a control character"),
    ("http://127.0.0.1\x00:9/v1", "whitespace or a control character"),
    ("http://127.0.0.1:9/v1\x7f", "whitespace or a control character"),
    ("http://127.0.0.1:9/v1\u0085", "whitespace or a control character"),
    ("http:///v1", "with a host"),
    ("http://:8000/v1", "with a host"),
    ("127.0.0.1:8000/v1", "with a host"),
    ("http://h:0/v1", "port from 1 to 65535"),
    ("http://h:99999/v1", "not a valid URL"),
    ("http://h:abc/v1", "not a valid URL"),
    ("http://h:\u0668\u0660/v1", "port"),  # Arabic-Indic digits, which int() would take
    ("http://[::1/v1", "not a valid URL"),
    ("http://h/v1?", "query string"),
    ("http://h/v1#", "query string or fragment"),
    (f"http://h/v1?key={SECRET}", "query string"),
    (f"http://me:{SECRET}@h/v1", "must not carry credentials"),
    ("http://h/" + "v" * 3000, "longer than 2,048 characters"),
]


@pytest.mark.parametrize(("url", "problem"), BAD_URLS)
def test_a_base_url_that_is_not_plain_http_is_refused_in_one_line(tmp_path, url, problem):
    message = refused(lambda: load_profiles(models_file(tmp_path, base_url=url)))
    assert message.startswith("model profile 'p': base_url ") and problem in message


@pytest.mark.parametrize(("url", "problem"), BAD_URLS)
def test_a_base_url_built_in_code_is_refused_before_any_connection(url, problem):
    profile = openai_profile("http://127.0.0.1:9", base_url=url)
    message = refused(lambda: ModelClient(profile).generate(reader_batch(1)))
    assert message.startswith("model profile 'local': base_url ") and problem in message


@pytest.mark.parametrize(
    "url",
    ["http://localhost:8000/v1", "https://api.openai.com/v1", "http://[::1]:8080/v1/",
     "http://127.0.0.1:11434", "https://h.example:443", "http://h:/v1"],
)  # fmt: skip
def test_plain_urls_pass(url):
    assert url_problem(url) is None


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/v1\n", "http://127.0.0.1:99999/v1", f"http://u:{SECRET}@h/v1"]
)
def test_models_check_holds_an_overriding_url_to_the_same_rules(url):
    done = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "models", "check", "qwen3.5-9b", "--base-url", url],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "base_url" in done.stderr
    assert SECRET not in done.stdout + done.stderr


# --- Native settings --------------------------------------------------------------------------


def study(tmp_path: Path, **native: Any) -> dict[str, Any]:
    models = tmp_path / "models.yaml"
    served = stand_in_profile("http://127.0.0.1:9/v1")
    models.write_text(yaml.safe_dump({"profiles": {"served": served}}))
    settings = {"library": "mem0", "profile": "served", **STAND_IN_EMBEDDER, **native}
    return {"study": "t", "models": str(models), "worlds": {"seeds": "1000"},
            "branches": ["none"], "systems": {"native": {"m": settings}}}  # fmt: skip


BAD_EMBEDDER_URLS = [
    (f"http://me:{SECRET}@127.0.0.1:8001/v1", "must not carry credentials"),
    (f"http://127.0.0.1:8001/v1?key={SECRET}", "query string"),
    ("http:///v1", "with a host"),
    ("http://127.0.0.1:99999/v1", "not a valid URL"),
    ("http://127.0.0.1:8001/v1\n", "whitespace or a control character"),
    (f"ftp://me:{SECRET}@127.0.0.1/v1", "must not carry credentials"),
]


@pytest.mark.parametrize(("url", "problem"), BAD_EMBEDDER_URLS)
def test_a_native_embedder_url_is_held_to_a_profiles_rules_at_config_check(tmp_path, url, problem):
    message = refused(lambda: check_config(study(tmp_path, embedder_base_url=url)))
    assert message.startswith("systems.native.m: embedder_base_url ") and problem in message


@pytest.mark.parametrize(("url", "problem"), BAD_EMBEDDER_URLS)
def test_a_native_embedder_url_on_the_command_line_is_refused(url, problem):
    settings = {"library": "mem0", "profile": "p", **STAND_IN_EMBEDDER, "embedder_base_url": url}
    message = refused(lambda: NativeSettings.from_json(json.dumps(settings)))
    assert message.startswith("settings: embedder_base_url ") and problem in message


MEM0 = json.dumps({"library": "mem0", "profile": "p", **STAND_IN_EMBEDDER})
BAD_NATIVE_JSON = [
    ("[" * 10_000 + "]" * 10_000, "nested too deep"),
    ('{"embedding_dims": ' + "9" * 5000 + "}", "a number of 5000 digits"),
    (MEM0[:-1] + ', "top_k": NaN}', "NaN, which is not JSON"),
    (MEM0[:-1] + ', "top_k": 1e999}', "beyond what a float holds"),
    (MEM0[:-1] + ', "mode": "\\ud800"}', "lone surrogate"),
    (MEM0[:-1] + ', "top_k": 20.0}', "top_k 20.0 is not an integer"),
    (MEM0[:-1] + ', "batch": true}', "batch True is not of type 'integer'"),
    (MEM0[:-1] + ', "top_k": 1000000}', "top_k 1000000 is greater than the maximum"),
    (MEM0.replace('"mem0"', '"graphiti"'), "library 'graphiti' is not one of"),
    ('{"library": "mem0"}', "is a required property"),
    ("null", "expected an object"),
    ("{", "not a native system's settings"),
]


@pytest.mark.parametrize(("text", "problem"), BAD_NATIVE_JSON)
def test_malformed_native_settings_are_refused_in_one_line(text, problem):
    message = refused(lambda: NativeSettings.from_json(text))
    assert message.startswith("settings: ") and problem in message


@pytest.mark.parametrize(("text", "problem"), BAD_NATIVE_JSON[:3])
def test_the_native_probe_job_refuses_malformed_settings_without_a_traceback(
    tmp_path, text, problem
):
    access = ModelAccess({"reader": "rules", "program": "rules"}, Path("config/models.yaml"), None)
    job = NativeProbeJob(tmp_path / "w", tmp_path / "r", ("none",), "m", text, False, access)
    done = subprocess.run(
        [sys.executable, "-m", "memshift.cli", "job", "probe_native", job.to_json()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and problem in done.stderr
    assert "the probe_native job's spec.settings: " in done.stderr


def test_valid_native_settings_pass_both_ways(tmp_path):
    url = "http://127.0.0.1:8001/v1"
    plan = check_config(study(tmp_path, embedder_base_url=url))
    settings = NativeSettings.from_json(plan["system_plan"]["native"]["m"])
    assert settings.embedder_base_url == url
