# memshift: worlds -> branches -> gold -> probes (later: memory, audit/repair, reader, scorer, report).
# Rules only wire artifacts; every stage is a `memshift` subcommand with its logic in src/memshift.
import sys

from snakemake.utils import min_version, validate

from memshift.config import check_config
from memshift.errors import ConfigError

min_version("9.0")


configfile: "config/config.yaml"


try:
    STUDY = check_config(config)
except ConfigError as exc:
    sys.exit(f"memshift: config error: {exc}")
validate(config, "workflow/schemas/config.schema.yaml")

RESULTS = config["results"]
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


include: "rules/common.smk"
include: "rules/world.smk"
include: "rules/branches.smk"
include: "rules/gold.smk"
include: "rules/probes.smk"


rule all:
    default_target: True
    input:
        expand(f"{WORLDS}/w{{world}}/manifest.json", world=SEEDS),
    localrule: True
