"""Starting a model server for a study, waiting for it and stopping it (memshift serve-study),
with real processes: the local server standing in for a model server, and programs that exit,
hang or do not exist."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memshift.errors import ConfigError, MemshiftError
from memshift.models import server
from memshift.models.profiles import load_profiles
from pipeline.test_snakemake import job_env, workflow_copy

REPO = Path(__file__).resolve().parents[2]
MEMSHIFT = Path(sys.executable).with_name("memshift")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def local_preset(port: int, **settings: object) -> server.Preset:
    command = (sys.executable, "-m", "memshift_tools.localserver", "--port", "{port}")
    return server.Preset("local", command, port, "local", **settings)  # type: ignore[arg-type]


def quiet(_: str) -> None:
    pass


def test_a_server_is_started_waited_for_and_stopped_with_its_children(tmp_path):
    preset = local_preset(free_port(), ready_timeout_s=60)
    with server.serving(preset, tmp_path, tmp_path / "server.log", quiet) as running:
        assert server.answers(preset.url)
        pid = running.process.pid
    assert running.process.poll() is not None
    assert not server.port_in_use(preset.port)
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


def test_a_server_that_exits_before_it_answers_is_an_error_with_its_log(tmp_path):
    command = (sys.executable, "-c", "import sys; print('no model file'); sys.exit(3)")
    preset = server.Preset("dies", command, free_port(), "local")
    with (
        pytest.raises(MemshiftError, match=r"exited with status 3.*\n.*no model file"),
        server.serving(preset, tmp_path, tmp_path / "dies.log", quiet),
    ):
        pass


def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path):
    command = (sys.executable, "-c", "import time; time.sleep(120)")
    preset = server.Preset("hangs", command, free_port(), "local", ready_timeout_s=2)
    said: list[str] = []
    with (
        pytest.raises(MemshiftError, match=r"did not answer on .* within 2 s"),
        server.serving(preset, tmp_path, tmp_path / "hangs.log", said.append),
    ):
        pass
    assert said[-1] == "stopped hangs"


def test_a_missing_program_names_what_to_install(tmp_path):
    preset = server.Preset(
        "absent", ("no-such-server-program",), free_port(), "local", needs="pip install it"
    )
    with pytest.raises(MemshiftError, match=r"cannot start 'no-such-server-program'.*pip install"):
        server.start(preset, tmp_path, tmp_path / "absent.log")


def test_a_busy_port_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        preset = local_preset(sock.getsockname()[1])
        with pytest.raises(MemshiftError, match="is in use"):
            server.start(preset, tmp_path, tmp_path / "busy.log")


@pytest.mark.parametrize(
    "hostile", ["$(touch {root}/owned)", "`touch {root}/owned`", "a; touch {root}/owned", "'\"\\"]
)
def test_every_part_of_a_command_reaches_the_program_as_one_argument(tmp_path, hostile):
    """No shell reads a preset's command: a value that would run something in one is an
    argument like any other."""
    echo = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
    out = tmp_path / "argument"
    preset = server.Preset("echo", (sys.executable, "-c", echo, str(out), hostile), 1, "x")
    running = server.start(preset, tmp_path, tmp_path / "echo.log")
    running.process.wait(30)
    assert out.read_text() == hostile.replace("{root}", str(tmp_path))
    assert not (tmp_path / "owned").exists()


def test_the_shipped_presets_load_and_agree_with_their_profiles():
    presets = server.load_presets(REPO / "config/servers.yaml")
    assert {"vllm-qwen3.5-9b", "llama-cpp-smollm2"} <= set(presets)
    for preset in presets.values():
        profile = server.matching_profile(preset, REPO / "config/models.yaml")
        assert profile.context_length, f"{profile.name} states no context window"
    vllm = presets["vllm-qwen3.5-9b"].argv(REPO)
    assert "--enable-prefix-caching" in vllm
    assert vllm[vllm.index("--max-model-len") + 1] == str(
        load_profiles(REPO / "config/models.yaml")["qwen3.5-9b"].context_length
    )


def test_a_profile_on_another_port_is_refused(tmp_path):
    models = tmp_path / "models.yaml"
    local = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    local["decoding"] = {"max_tokens": 8}
    models.write_text(yaml.safe_dump({"profiles": {"local": local}}))
    with pytest.raises(ConfigError, match=r"listens on 127\.0\.0\.1:8.*sends to 127\.0\.0\.1:9"):
        server.matching_profile(local_preset(8), models)


def test_bad_preset_files_are_one_line_errors(tmp_path):
    path = tmp_path / "servers.yaml"
    path.write_text(yaml.safe_dump({"servers": {"x": {"command": "vllm serve", "port": 1}}}))
    with pytest.raises(ConfigError, match=r"servers\.yaml"):
        server.load_presets(path)
    path.write_text(
        yaml.safe_dump({"servers": {"x": {"command": ["a"], "port": 1, "profile": "p"}}})
    )
    with pytest.raises(ConfigError, match="unknown server preset 'y'"):
        server.load_preset(path, "y")


def write_study_files(where: Path, port: int) -> None:
    """A workflow copy with a models file and a servers file of its own, both on `port`."""
    local = {
        "backend": "openai",
        "model": "local-model",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "context_length": 65536,
        "decoding": {"max_tokens": 512},
    }
    (where / "models.yaml").write_text(yaml.safe_dump({"profiles": {"local": local}}))
    command = [sys.executable, "-m", "memshift_tools.localserver", "--port", "{port}"]
    preset = {"command": command, "port": port, "profile": "local", "ready_timeout_s": 60}
    (where / "servers.yaml").write_text(yaml.safe_dump({"servers": {"local": preset}}))


def test_serve_study_starts_checks_runs_and_stops(tmp_path):
    """The whole flow of `memshift serve-study` against a server it starts: every role checked,
    the study planned on the preset's profile (a dry run: the study itself is not the point
    here), and the server gone afterwards."""
    port = free_port()
    study = {"study": "served", "results": "results", "models": "models.yaml"}
    where = workflow_copy(tmp_path / "study", study)
    write_study_files(where, port)
    done = subprocess.run(
        [
            str(MEMSHIFT), "serve-study", "local", "--servers-file", "servers.yaml",
            "--models-file", "models.yaml", "--configfile", "study.yaml", "--cores", "1",
            "-n", "--quiet",
        ],
        cwd=where, capture_output=True, text=True, timeout=300, env=job_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "4 of 4 roles work" in done.stderr
    # memshift's own interpreter, whichever of the venv's names its entry point was given
    assert re.search(r"running \S+/bin/python[0-9.]* -m snakemake ", done.stderr)
    assert "--config llm=local" in done.stderr
    assert done.stderr.rstrip().endswith("memshift: stopped local")
    assert not server.port_in_use(port)


def test_the_gpu_preset_dry_run_plans_the_study_without_a_gpu(tmp_path):
    """What `memshift serve-study vllm-qwen3.5-9b` would start and run, up to where a GPU is
    needed: the server's command and the main study planned on the paper's model."""
    where = workflow_copy(tmp_path / "study", {"study": "gpu", "results": "results"})
    done = subprocess.run(
        [
            str(MEMSHIFT), "serve-study", "vllm-qwen3.5-9b", "--dry-run", "--cores", "2",
            "--configfile", "config/studies/main.yaml", "--config", "results=r 1",
        ],
        cwd=where, capture_output=True, text=True, timeout=300, env=job_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = done.stdout.splitlines()[:2]
    assert first.startswith("server: vllm serve Qwen/Qwen3.5-9B --host 127.0.0.1 --port 8000")
    assert second.endswith("--config llm=qwen3.5-9b 'results=r 1'")
    planned = done.stdout.split("Job stats:")[-1]
    assert "report" in planned and "probe" in planned  # snakemake planned the study's jobs
