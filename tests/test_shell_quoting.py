"""Values of a study reach the rules' shell commands as data, never as shell syntax (issue 43):
every path, name, profile, file list, `{input}`, `{output}`, `{params.*}`, `{log}` and
`{wildcards.*}` is quoted, so a results folder, models file, predictions file or native setting
holding `$(...)`, backticks, `;`, quotes, spaces, a newline, `--` or non-ASCII text comes back as
the same shell word; names the config schema restricts, and the few paths Snakemake or a stage
would misread (braces, a results folder starting with '-'), are refused in one line."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from memshift import layout
from memshift.config import check_config, study_config
from memshift.errors import ConfigError
from memshift_tools.stand_ins import stand_in_profile
from pipeline.test_snakemake import config_error, workflow_copy

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SNAKEMAKE = BIN / "snakemake"
PRESETS = [
    "config/config.yaml",
    *sorted(f"config/studies/{p.name}" for p in (ROOT / "config/studies").glob("*.yaml")),
]
RUN_ID = uuid.uuid4().hex[:8]
# a file the shell would create if it ran a value: /tmp/PWNED-<random>
PWNED = Path(f"/tmp/PWNED-{RUN_ID}")


def hostile_values(pwned: Path = PWNED) -> list[str]:
    return [
        f"r $(touch {pwned})",
        "a;b",
        "x'y\"z",
        f"`touch {pwned}`",
        "a b",
        "line\nbreak",
        "--flag",
        "ünï çødé ✓",
        "a&&b|c>d<e(f)",
        "$HOME*?[x]~",
    ]


HOSTILE = hostile_values()
SMOKE = "config/studies/smoke.yaml"


# ---- reading a printed shell command as POSIX sh reads it ----

OPERATORS = set(";&|<>()\n")
EXPANSIONS = set("$`*?[]{}~")


def active(c: str) -> str:
    """A character the shell acts on (outside quotes), as a character no value holds."""
    return chr(0xF0000 + ord(c))


class Unfinished(ValueError):
    """A quote left open: the command is not a whole shell line."""


def sh_tokens(command: str) -> list[str]:
    """The words and operators of a shell line as sh reads them. Quoted characters come back as
    they are; an operator outside quotes is a token of its own, and it, `$`, backticks and glob
    characters the shell would act on come back `active`: a value holding one of them unquoted
    is no longer found in its word."""
    tokens: list[str] = []
    word: str | None = None
    i = 0

    def end_word() -> None:
        nonlocal word
        if word is not None:
            tokens.append(word)
            word = None

    while i < len(command):
        c = command[i]
        if c == "'":
            close = command.find("'", i + 1)
            if close < 0:
                raise Unfinished(command)
            word = (word or "") + command[i + 1 : close]
            i = close + 1
        elif c == '"':
            word = word or ""
            i += 1
            while True:
                if i >= len(command):
                    raise Unfinished(command)
                d = command[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < len(command) and command[i + 1] in '$`"\\\n':
                    word += command[i + 1]
                    i += 2
                    continue
                word += active(d) if d in "$`" else d
                i += 1
        elif c == "\\":
            if i + 1 >= len(command):
                raise Unfinished(command)
            word = (word or "") + command[i + 1]
            i += 2
        elif c in " \t":
            end_word()
            i += 1
        elif c in OPERATORS:
            end_word()
            tokens.append(active(c))
            i += 1
        else:
            word = (word or "") + (active(c) if c in EXPANSIONS else c)
            i += 1
    end_word()
    return tokens


def printed_commands(output: str) -> list[tuple[str, str]]:
    """(rule, shell command) of every job a `snakemake -n --printshellcmds` printed."""
    found = []
    for block in re.split(r"^(?=(?:local)?rule \w+:$)", output, flags=re.M):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        start = block.find("\nShell command: ")
        if rule is None or start < 0:
            continue
        text = block[start + len("\nShell command: ") :]
        ends = [i for i in (text.find("\n\n"), text.find("\nJob stats:")) if i >= 0]
        text = text[: min(ends)] if ends else text.rstrip("\n")
        if text != "None":
            found.append((rule.group(1), text))
    return found


def problems_of(command: str, values: dict[str, str]) -> list[str]:
    """What is wrong with one command: a token that holds a value's tag (from its last `-T`)
    but not the value whole and inert, i.e. the shell would split, expand or run part of it."""
    try:
        tokens = sh_tokens(command)
    except Unfinished:
        return [f"an open quote: {command!r}"]
    wrong = []
    for name, value in values.items():
        tag = "-T" + value.rsplit("-T", 1)[1]
        for token in tokens:
            for word in spec_strings(token):
                if tag in word and value not in word:
                    wrong.append(f"{name} {value!r} altered: token {token!r} of {command!r}")
    return wrong


def spec_strings(token: str) -> list[str]:
    """The words a value may sit in: a job's spec (`memshift job STAGE SPEC`), one shell word of
    JSON, as its strings once the job has read it back (a string of JSON in it, as its strings
    too); any other token as it is."""
    try:
        spec = json.loads(token) if token.startswith("{") else None
    except ValueError:
        spec = None
    if not isinstance(spec, dict):
        return [token]
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            # a native system's settings are JSON of their own inside the spec
            inner = spec_strings(value) if value.startswith("{") else [value]
            found.extend(inner)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(spec)
    return found


def spec_of(tokens: list[str]) -> dict:
    """The spec of a `memshift job STAGE SPEC` command's tokens, {} for another command."""
    if tokens[:2] != ["memshift", "job"] or len(tokens) < 4:
        return {}
    return json.loads(tokens[3])


def test_the_checker_finds_a_value_the_shell_would_split_run_or_expand() -> None:
    value = "r $(touch /tmp/x)-T1234567"
    assert problems_of(f"memshift x --out {value}/w --llm rules 2> log", {"v": value})
    assert problems_of("memshift x --out a;b-T1234567/w", {"v": "a;b-T1234567"})
    assert problems_of("memshift x --out `id`-T1234567/w", {"v": "`id`-T1234567"})
    assert problems_of('memshift x --out "$(id)-T1234567"', {"v": "$(id)-T1234567"})
    assert problems_of("memshift x --out 'a\nb-T1234567'", {"v": "a b-T1234567"})
    assert problems_of("memshift x --out a\nb-T1234567", {"v": "a\nb-T1234567"})
    assert problems_of("memshift x --out 'x'y-T1234567", {"v": "x'y-T1234567"})
    assert problems_of("memshift x --out 'open", {})
    quoted = "memshift x --out 'r $(touch /tmp/x) `id` a;b'\"'\"'c\nd-T1234567/w' 2> log"
    assert not problems_of(quoted, {"v": "r $(touch /tmp/x) `id` a;b'c\nd-T1234567"})
    tokens = sh_tokens("status=0; a || status=$?; exit $status")
    assert tokens[1] == active(";") and tokens[3] == tokens[4] == active("|")
    assert tokens[5] == "status=" + active("$") + active("?")


# ---- every preset planned with hostile values ----

SHELL_RULES = {
    name
    for smk in (ROOT / "rules").glob("*.smk")
    for name in re.findall(r"^\s*(?:rule|use rule \w+ as) (\w+)", smk.read_text(), re.M)
}


def tagged(core: str, field: str) -> str:
    """A hostile value with a tag of its own at the end (what `problems_of` looks for)."""
    return f"{core}-T{field}{RUN_ID}"


def job_env(*paths: Path) -> dict[str, str]:
    python = os.pathsep.join([*map(str, paths), str(ROOT / "tests/pipeline"), *sys.path])
    return {**os.environ, "PYTHONPATH": python, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def run_snakemake(where: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=job_env(where),
        timeout=timeout,
    )


QUIET = '''from custom_memory import NewestRecords


class Quiet(NewestRecords):
    """A custom system that does not report its invalidations (rule probe_system)."""

    invalidations = None
'''


def systems_beside(where: Path, index: int) -> tuple[dict, dict[str, str]]:
    """A custom system of each kind, predictions files of each kind and a native system, whose
    paths and settings hold hostile values: the systems no preset has (probe_system,
    probe_reporting, predictions, predictions_reporting, probe_native)."""
    (where / "quiet_memory.py").write_text(QUIET)
    values = {}
    files = {}
    for offset, (name, reports) in enumerate((("ext", False), ("ext-inv", True))):
        value = tagged(HOSTILE[(index + 5 + offset) % len(HOSTILE)], f"p{offset}")
        path = where / "preds" / f"{value}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        row = {"probe_id": "w1000-0123456789abcdef", "status": "abstain", "value": None}
        path.write_text(json.dumps({**row, "invalidated": False} if reports else row) + "\n")
        values[f"predictions {name}"] = f"preds/{value}.jsonl"
        files[name] = f"preds/{value}.jsonl"
    embedder = tagged(HOSTILE[(index + 8) % len(HOSTILE)], "emb")
    # the python of a library's own environment is run as a program: absolute, no control
    # characters (the schema), anything else as it comes
    plain = "".join(c for c in HOSTILE[(index + 9) % len(HOSTILE)] if ord(c) >= 0x20)
    python = tagged(f"/{plain}", "py")
    systems = {
        "custom": {"mine": "custom_memory:NewestRecords", "quiet": "quiet_memory:Quiet"},
        "predictions": files,
        "native": {
            "mem0": {
                "library": "mem0",
                "profile": "served",
                "embedder_model": embedder,
                "embedding_dims": 64,
            },
            "memos": {
                "library": "memos",
                "profile": "served",
                "embedder_model": embedder,
                "embedding_dims": 64,
                "python": python,
            },
        },
    }
    return systems, {**values, "native embedder_model": embedder, "native python": python}


def plan_with_hostile_values(where: Path, preset: str, index: int) -> tuple[list, list[str]]:
    """Dry-run `preset` with a hostile results folder and models file (and, for the smoke
    preset, hostile systems of every kind); the printed commands and what is wrong with them."""
    core = HOSTILE[index % len(HOSTILE)]
    # a results folder cannot start with '-' (refused: `test_a_path_snakemake_or_a_stage_...`)
    results = tagged(f"out/{core}" if core.startswith("-") else core, "res")
    models_dir = tagged(HOSTILE[(index + 3) % len(HOSTILE)], "mod")
    models = where / models_dir / "models.yaml"
    models.parent.mkdir(parents=True, exist_ok=True)
    profiles = yaml.safe_load((ROOT / "config/models.yaml").read_text())
    profiles["profiles"]["served"] = stand_in_profile("http://127.0.0.1:9/v1")
    models.write_text(yaml.safe_dump(profiles))
    overlay = {"models": f"{models_dir}/models.yaml"}
    values = {"results": results, "models": f"{models_dir}/models.yaml"}
    args = []
    if preset == "config/config.yaml":
        # the issue's own command line: the results folder given with --config
        args = ["--config", f"results={results}"]
    else:
        overlay["results"] = results
    if preset == SMOKE:
        study = yaml.safe_load((ROOT / preset).read_text())
        systems, more = systems_beside(where, index)
        overlay["systems"] = {**study["systems"], **systems}
        values.update(more)
    name = f"overlay-{index}.yaml"
    (where / name).write_text(yaml.safe_dump(overlay, allow_unicode=True))
    run = run_snakemake(where, "--configfile", preset, name, "-n", "-p", *args)
    assert run.returncode == 0, f"{preset}: {run.stderr[-3000:]}"
    commands = printed_commands(run.stdout + run.stderr)
    wrong = [p for _, command in commands for p in problems_of(command, values)]
    predictions = {v for k, v in values.items() if k.startswith("predictions")}
    given: dict[str, set[str]] = {"--models-file": set(), "--file": set(), "--native": set()}
    if wrong:
        return commands, [f"{preset}: {w}" for w in wrong]
    for rule, command in commands:
        tokens = sh_tokens(command)
        # the results folder is in every command (its paths, its log)
        if not any(results in t for t in tokens):
            wrong.append(f"{preset} {rule}: no whole results folder in {command!r}")
        for at, token in enumerate(tokens[:-1]):
            if token in given:
                given[token].add(tokens[at + 1])
        spec = spec_of(tokens)
        if "access" in spec:
            given["--models-file"].add(spec["access"]["models"])
        if tokens[2:3] == ["probe_native"]:
            given["--native"].add(spec["settings"])
        if tokens[2:3] == ["predictions"]:
            given["--file"].add(spec["file"])
    # each option is given exactly the study's value, as one word
    if given["--models-file"] != {values["models"]}:
        wrong.append(f"{preset}: --models-file given {given['--models-file']}")
    if predictions and given["--file"] != predictions:
        wrong.append(f"{preset}: --file given {given['--file']}, not {predictions}")
    embedders = {json.loads(s)["embedder_model"] for s in given["--native"]}
    if predictions and embedders != {values["native embedder_model"]}:
        wrong.append(f"{preset}: --native given embedder_model {embedders}")
    return commands, wrong


# a dry run of every preset, about a minute: `make test-studies`, in CI
@pytest.mark.studies
@pytest.mark.slow(minutes=0.8)
def test_every_preset_plans_hostile_values_as_whole_shell_words(tmp_path: Path) -> None:
    unused = {"study": "unused", "worlds": {"seeds": 1}, "branches": ["none"]}
    where = workflow_copy(tmp_path / "flow", unused)
    planned: set[str] = set()
    wrong: list[str] = []
    for index, preset in enumerate(PRESETS):
        commands, problems = plan_with_hostile_values(where, preset, index)
        assert commands, preset
        planned |= {rule for rule, _ in commands}
        wrong += problems
    assert not wrong, "\n".join(wrong[:20])
    # every rule's shell command was checked at least once
    assert SHELL_RULES - {"all"} <= planned, SHELL_RULES - planned
    assert not PWNED.exists()
    assert not [p for p in where.rglob(f"PWNED-{RUN_ID}") if p.name == PWNED.name]


# ---- names the schema restricts are refused in one line ----


def smoke_study() -> dict:
    return study_config(ROOT / "config/config.yaml", [ROOT / "config/studies/smoke.yaml"])


def set_field(study: dict, field: str, value: str) -> None:
    switch = {"switches": {"s": {"to": "rules-copy"}}, "calibration_seeds": "900"}
    if field == "study":
        study["study"] = value
    elif field == "llm":
        study["llm"] = value
    elif field == "roles.reader":
        study["roles"] = {"reader": value}
    elif field == "rewriter":
        study["worlds"]["rewriter"] = value
    elif field == "systems.custom":
        study["systems"]["custom"] = {value: "custom_memory:NewestRecords"}
    elif field == "systems.predictions":
        study["systems"]["predictions"] = {value: "predictions.jsonl"}
    elif field == "systems.native":
        settings = {"library": "mem0", "profile": "s", "embedder_model": "m", "embedding_dims": 8}
        study["systems"]["native"] = {value: settings}
    elif field == "writer_switch.switches":
        study["writer_switch"] = {**switch, "switches": {value: {"to": "rules-copy"}}}
    elif field == "writer_switch.to":
        study["writer_switch"] = {**switch, "switches": {"s": {"to": value}}}
    else:
        raise AssertionError(field)


NAMES = [
    "study",
    "llm",
    "roles.reader",
    "rewriter",
    "systems.custom",
    "systems.predictions",
    "systems.native",
    "writer_switch.switches",
    "writer_switch.to",
]


@pytest.mark.parametrize("field", NAMES)
def test_a_restricted_name_with_shell_syntax_is_refused_in_one_line(
    field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    base = smoke_study()
    # a trailing newline too: Python's `$` would let "name\n" through a pattern ending in `$`
    for value in [*HOSTILE, "ok\n", "ok-a b", "ok;b"]:
        study = copy.deepcopy(base)
        set_field(study, field, value)
        with pytest.raises(ConfigError) as refused:
            check_config(study)
        message = str(refused.value)
        assert "\n" not in message and repr(value)[1:-1] in message, (field, value, message)
        assert field.split(".")[0] in message, message


def test_a_restricted_name_stops_the_workflow_before_any_job(tmp_path: Path) -> None:
    where = workflow_copy(tmp_path / "flow", yaml.safe_load((ROOT / SMOKE).read_text()))
    run = run_snakemake(
        where, "--configfile", "study.yaml", "-n", "--config", f"study=s $(touch {PWNED})"
    )
    line = config_error(run)
    assert line == (
        f"memshift: config error: config study: 's $(touch {PWNED})' does not match "
        "'^[A-Za-z0-9][A-Za-z0-9_.-]*$'"
    )
    assert not PWNED.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("results", "r{world}", "config results: 'r{world}' holds a brace"),
        ("models", "m/{x}.yaml", "config models: 'm/{x}.yaml' holds a brace"),
        ("predictions", "p{a,b}.jsonl", "config systems.predictions.ext: 'p{a,b}.jsonl' holds a "),
        ("results", "--flag", "config results: '--flag' starts with '-'"),
    ],
)
def test_a_path_snakemake_or_a_stage_would_misread_is_refused_in_one_line(
    field: str, value: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    study = smoke_study()
    if field == "predictions":
        study["systems"]["predictions"] = {"ext": value}
    else:
        study[field] = value
    with pytest.raises(ConfigError) as refused:
        check_config(study)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


# ---- a real run in a results folder with a space, `$(...)` and backticks ----

TINY = {
    "study": "quoting",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0", "1"], "extra_cells": []},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 50},
}


def memshift(where: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "memshift"), *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=job_env(where),
        timeout=300,
    )


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    """The tiny study run to its end in `res dir $(touch /tmp/PWNED-...) `touch ...``."""
    pwned = Path(f"/tmp/PWNED-{uuid.uuid4().hex[:8]}")
    study = {**TINY, "results": f"res dir $(touch {pwned}) `touch {pwned}-b`"}
    where = workflow_copy(tmp_path_factory.mktemp("hostile") / "flow", study)
    run = run_snakemake(where, "--configfile", "study.yaml")
    assert run.returncode == 0, run.stderr[-3000:]
    return where, study, pwned


def run_folder(study: dict) -> Path:
    return layout.run_dir(Path(study["results"]), study["study"], 1, "rules")


@pytest.mark.slow(minutes=0.3)
def test_a_study_runs_in_a_results_folder_with_a_space_and_command_syntax(finished) -> None:
    where, study, pwned = finished
    run = where / run_folder(study)
    assert (run / "report/report.md").is_file() and (run / "manifest.json").is_file()
    assert (run / "failures-gate.txt").is_file()
    assert not pwned.exists() and not Path(f"{pwned}-b").exists()
    # nothing else was written beside the results folder's first part
    beside = sorted(p.name for p in where.iterdir() if p.name.startswith("res"))
    assert beside == ["res dir $(touch "]
    again = run_snakemake(where, "--configfile", "study.yaml", "-n")
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.slow(minutes=0.3)
def test_score_predictions_with_command_syntax_in_the_file_name_runs_nothing(finished) -> None:
    where, study, pwned = finished
    done = memshift(where, "export-dataset", "--configfile", "study.yaml", "--out", "dataset")
    assert done.returncode == 0, done.stderr[-3000:]
    probes = pq.read_table(where / "dataset/probes.parquet").column("probe_id").to_pylist()
    marker = f"PWNED-{uuid.uuid4().hex[:8]}"
    name = f"p$(touch {marker}) `touch {marker}-b`.jsonl"
    rows = [{"probe_id": p, "status": "abstain", "value": None} for p in probes]
    (where / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = memshift(
        where, "score-predictions", name, "--configfile", "study.yaml", "--name", "outside"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = where / run_folder(study)
    scores = pq.read_table(run / "scores.parquet").to_pylist()
    # scored on the probes every system is asked (the dataset gives more, which hide them), and
    # abstaining everywhere, exactly as the always-abstain floor
    outside = sorted((s["probe_id"], s["correct"]) for s in scores if s["system"] == "outside")
    floor = sorted((s["probe_id"], s["correct"]) for s in scores if s["system"] == "always-abstain")
    assert outside and outside == floor and len(outside) < len(probes)
    assert "| outside |" in (run / "report/report.md").read_text()
    for made in (where / marker, where / f"{marker}-b", pwned):
        assert not made.exists(), made
    assert not list(where.rglob(f"{marker}*")), list(where.rglob(f"{marker}*"))


def test_score_predictions_refuses_a_name_with_shell_syntax(tmp_path: Path) -> None:
    where = workflow_copy(tmp_path / "flow", {**TINY, "results": "results"})
    (where / "p.jsonl").write_text("")
    done = memshift(
        where,
        "score-predictions",
        "p.jsonl",
        "--configfile",
        "study.yaml",
        "--name",
        "a;b $(touch x)",
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "memshift: error: --name 'a;b $(touch x)' is not a system name: lower-case letters, "
        "digits, - and _, starting with a letter or digit"
    )
    assert not (where / "results").exists() and not (where / "x").exists()
