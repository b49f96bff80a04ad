"""Model profiles and retry timing."""

from __future__ import annotations

import random

import pytest
import yaml

from memshift.errors import ConfigError
from memshift.models.profiles import load_profile, load_profiles
from memshift.models.retry import RetryPolicy, TransportFailure, parse_retry_after


def write(tmp_path, profiles):
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump({"profiles": profiles}))
    return path


def test_the_shipped_profiles_load():
    profiles = load_profiles("config/models.yaml")
    assert profiles["rules"].backend == "rules"
    vllm = profiles["qwen3.5-9b"]
    assert vllm.base_url == "http://localhost:8000/v1"
    assert vllm.extra_body["chat_template_kwargs"] == {"enable_thinking": False}
    assert {"temperature", "top_p", "max_tokens", "seed"} <= set(vllm.decoding)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"backend": "gemini"}, "'gemini' is not valid; choose one of rules, openai, anthropic"),
        ({"backend": "openai", "model": "m"}, "needs 'base_url'"),
        ({"backend": "openai", "model": "m", "base_url": "u", "decoding": {"max_tokens": 5}},
         "base_url must be an http:// or https:// URL with a host"),
        ({"backend": "openai", "model": "m", "base_url": "http://h/v1",
          "decoding": {"temperature": 0}}, "decoding must set max_tokens"),
        ({"backend": "anthropic", "model": "m", "base_url": "u"}, "must set max_tokens"),
        ({"backend": "rules", "temperature": 0},
         "config key 'profiles.p.temperature' is not known"),
    ],
)  # fmt: skip
def test_bad_profiles_are_named(tmp_path, raw, message):
    with pytest.raises(ConfigError) as info:
        load_profiles(write(tmp_path, {"p": raw}))
    assert message in str(info.value)


def test_an_unknown_profile_lists_the_known_ones(tmp_path):
    path = write(tmp_path, {"a": {"backend": "rules"}, "b": {"backend": "rules"}})
    with pytest.raises(ConfigError, match=r"unknown model profile 'c'; .* defines a, b"):
        load_profile(path, "c")


def test_role_overrides_apply_to_their_role_only():
    profile = load_profiles("config/models.yaml")["qwen3.5-9b"]
    import dataclasses

    tuned = dataclasses.replace(profile, roles={"writer": {"decoding": {"max_tokens": 99}}})
    assert tuned.decoding_for("writer")["max_tokens"] == 99
    assert tuned.decoding_for("reader")["max_tokens"] == profile.decoding["max_tokens"]


def test_backoff_grows_with_jitter_and_retry_after_wins():
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    plain = TransportFailure("boom")
    for attempt in range(1, 8):
        delays = [policy.delay(attempt, plain, rng) for _ in range(200)]
        assert min(delays) >= 0 and max(delays) <= min(8.0, 2 ** (attempt - 1))
    told = TransportFailure("slow down", status=429, retry_after=3.5)
    assert policy.delay(1, told, rng) == 3.5
    assert policy.delay(1, TransportFailure("x", retry_after=1e6), rng) == policy.max_retry_after
    assert parse_retry_after("2") == 2.0 and parse_retry_after("soon") is None


def test_a_role_fingerprint_moves_only_with_what_changes_that_roles_replies():
    from dataclasses import replace

    from memshift.models.profiles import Profile, role_fingerprint
    from memshift.vocabulary import ROLES

    base = Profile("p", "openai", model="m", base_url="http://x/v1", decoding={"temperature": 0})

    def changed(other: Profile) -> set[str]:
        return {r for r in ROLES if role_fingerprint(base, r) != role_fingerprint(other, r)}

    assert changed(replace(base, roles={"reader": {"decoding": {"max_tokens": 64}}})) == {"reader"}
    assert changed(replace(base, error_model={"rates": {"definition": 0.5}})) == {"writer"}
    assert changed(replace(base, model="m2")) == set(ROLES)
    assert changed(replace(base, decoding={"temperature": 0.7})) == set(ROLES)
    assert changed(replace(base, concurrency=4, timeout_s=5, max_attempts=2)) == set()
    assert changed(replace(base, api_key_env="OTHER_KEY")) == set()
