# memshift: worlds -> branches -> gold -> probes -> memory -> audit/repair -> reader -> scorer
# -> report.
# Rules only wire artifacts; every stage is a `memshift` subcommand with its logic in src/memshift.
import mimetypes
import sys
from pathlib import Path

from snakemake.utils import min_version, validate

from memshift.config import DEFAULT_CONFIG, check_config, study_config
from memshift.errors import ConfigError
from memshift.models.profiles import study_profile
from memshift.report.where import report_hint
from memshift.staleness import clear_stale_locks

min_version("9.0")

# The default study is config/config.yaml. It is read here, and every --configfile read again,
# through memshift's loader, which refuses YAML aliases and oversized or deeply nested files.
try:
    config.update(study_config(DEFAULT_CONFIG, workflow.overwrite_configfiles, config))
    STUDY = check_config(config)
except ConfigError as exc:
    sys.exit(f"memshift: config error: {exc}")
if not (workflow.remote_exec or workflow.subprocess_exec):
    # a run killed hard left its lock behind: removed when no other run is alive here
    clear_stale_locks()
validate(config, "workflow/schemas/config.schema.yaml")

RESULTS = config.setdefault("results", "results")
config.setdefault("llm", "rules")
config.setdefault("models", "config/models.yaml")
config.setdefault("embedder", "wordllama")
try:
    PROFILE = study_profile(config["llm"], Path(config["models"]))
except ConfigError as exc:
    sys.exit(f"memshift: config error: {exc}")
SYSTEMS = STUDY["system_plan"]
RUNS = f"{RESULTS}/runs/{config['llm']}"
LLM_CACHE = f"{RESULTS}/cache/llm"
SEEDS = STUDY["seed_list"]
BRANCHES = ["none", *[b for b in config["branches"] if b != "none"]]
HISTORY_MONTHS = config["worlds"]["history_months"]
WORLDS = (
    f"{RESULTS}/worlds"
    if HISTORY_MONTHS == 9
    else f"{RESULTS}/worlds-h{HISTORY_MONTHS}"
)


wildcard_constraints:
    world=r"\d+",
    branch="none|src|def|del|cons|conflict",
    detection="append|source|citation|oracle|scope|refresh|upsert|audit|leaky",
    repair="0|1|m",


# The description atop `snakemake --report`; the figures and tables are in rules/report.smk.
report: "workflow/report/report.rst"


# so that the report offers the Parquet tables as downloads of their own type, not as text
mimetypes.add_type("application/vnd.apache.parquet", ".parquet")


include: "rules/common.smk"
include: "rules/world.smk"
include: "rules/branches.smk"
include: "rules/gold.smk"
include: "rules/probes.smk"
include: "rules/memory.smk"
include: "rules/probe.smk"
include: "rules/score.smk"
include: "rules/report.smk"
include: "rules/run_manifest.smk"


rule all:
    default_target: True
    input:
        expand(f"{WORLDS}/w{{world}}/manifest.json", world=SEEDS),
        [answers for world in SEEDS for answers in all_answers(world)],
        expand(f"{RUNS}/w{{world}}/fork-check.json", world=SEEDS),
        f"{RUNS}/scores.parquet",
        f"{RUNS}/report/report.md",
        f"{RUNS}/manifest.json",
    localrule: True


onsuccess:
    hint = report_hint(RUNS, workflow.overwrite_configfiles)
    if hint and not (workflow.remote_exec or workflow.subprocess_exec):
        print(hint, file=sys.stderr)
