# memshift: worlds -> branches -> gold -> probes -> memory -> audit/repair -> reader -> scorer
# -> report.
# Rules only wire artifacts; every stage is a `memshift` subcommand with its logic in src/memshift.
import json
import mimetypes
import os
import sys
from pathlib import Path

from snakemake.utils import min_version

from memshift.config import (
    DEFAULT_CONFIG,
    check_config,
    inherited,
    merge,
    study_config,
    study_layout,
    typed_overrides,
)
from memshift.errors import ConfigError
from memshift.models.profiles import study_profile
from memshift.report import sections as report_sections
from memshift.report.failed_jobs import summary as failed_jobs_summary
from memshift.report.where import report_hint
from memshift.vocabulary import BRANCHES as ALL_BRANCHES
from memshift.vocabulary import choice
from memshift.workflow.fingerprint import remember_imports, save_remembered_imports
from memshift.workflow.job_env import own_bin_first
from memshift.workflow.output_lookup import index_outputs_by_suffix
from memshift.workflow.scheduler_passes import keep_one_pending_pass
from memshift.workflow.staleness import clear_stale_locks

min_version("9.0")
# the jobs run the `memshift` installed beside this Snakemake (memshift/workflow/job_env.py)
own_bin_first()
# one pending re-evaluation of the scheduler, not one more per job (memshift/workflow/scheduler_passes.py)
keep_one_pending_pass()
# the producers of a file looked up by their outputs' constant suffix too (memshift/workflow/output_lookup.py)
index_outputs_by_suffix()
# what each module of the package imports, for the rules' code fingerprints, parsed once per
# source and remembered between runs (memshift/workflow/fingerprint.py)
IMPORTS_MEMO = Path(".snakemake", "memshift", "imports.json")
remember_imports(IMPORTS_MEMO)

# The default study is config/config.yaml. It is read here, and every --configfile read again,
# through memshift's loader, which refuses YAML aliases and oversized or deeply nested files.
# STUDY is the checked study with every default of the config schema filled in; nothing below
# reads `config` for a value.
try:
    # `--config report={draws: 1000}` as YAML types it (Snakemake leaves nested values text)
    merge(config, typed_overrides(workflow.config_settings.config))
    # what the study takes from the default study, said at the start of the run (below)
    TAKEN = inherited(DEFAULT_CONFIG, workflow.overwrite_configfiles, config)
    config.update(study_config(DEFAULT_CONFIG, workflow.overwrite_configfiles, config))
    STUDY = check_config(config)
    PROFILE = study_profile(STUDY["llm"], Path(STUDY["models"]))
    # each role's profile (`roles:`; `llm` where a role is not named)
    ROLE = STUDY["role_profiles"]
    # the writer switches (`writer_switch:`), None without
    SWITCH_PLAN = STUDY["switch_plan"]
    # the imported memories of the export shift (`export:`): name -> (exported cell, arm)
    EXPORTS = STUDY["export_plan"]
    # the sync study's settings (`sync:`), None without
    SYNC = STUDY.get("sync")
    SWITCHED = [
        p for s in (SWITCH_PLAN or {}).get("switches", {}).values() for p in s.values()
    ]
    PROFILES = {
        name: study_profile(name, Path(STUDY["models"]))
        for name in sorted(
            {
                *ROLE.values(),
                *SWITCHED,
                *filter(None, [STUDY["worlds"].get("rewriter")]),
                *(
                    json.loads(n)["profile"]
                    for n in STUDY["system_plan"]["native"].values()
                ),
            }
        )
    }
except ConfigError as exc:
    sys.exit(f"memshift: config error: {exc}")
if not (workflow.remote_exec or workflow.subprocess_exec):
    # a run killed hard left its lock behind: removed when no other run is alive here
    clear_stale_locks()
    # a study file names what it runs; what it takes from the default study is said here
    if TAKEN:
        print(
            f"memshift: study {STUDY['study']!r} takes from {DEFAULT_CONFIG}, as it does not set"
            f" them: {', '.join(TAKEN)}",
            file=sys.stderr,
        )

# where a job's conda environment installs memshift from (envs/memshift.post-deploy.sh)
os.environ.setdefault("MEMSHIFT_CHECKOUT", workflow.basedir)
L = study_layout(STUDY)  # every path of the study (memshift.layout)
SYSTEMS = STUDY["system_plan"]
SEEDS = STUDY["seed_list"]
BRANCHES = ["none", *[b for b in STUDY["branches"] if b != "none"]]


wildcard_constraints:
    world=r"\d+",
    branch=choice(ALL_BRANCHES),


# The description atop `snakemake --report`; the figures and tables are in rules/report.smk.
report: "workflow/report/report.rst"


# so that the report offers the Parquet tables as downloads of their own type, not as text
mimetypes.add_type("application/vnd.apache.parquet", ".parquet")


include: "rules/common.smk"
include: "rules/world.smk"
include: "rules/memory.smk"
include: "rules/probe.smk"
include: "rules/switch.smk"
include: "rules/export.smk"
include: "rules/sync.smk"
include: "rules/score.smk"
include: "rules/report.smk"
include: "rules/run_manifest.smk"


save_remembered_imports(IMPORTS_MEMO)


# The run's manifest covers every output of the study (rules/run_manifest.smk): naming only it
# spares the DAG looking up thousands of files a second time.
rule all:
    default_target: True
    input:
        str(L.manifest),
        str(L.failures_gate),
    localrule: True


onsuccess:
    hint = report_hint(
        str(L.runs),
        workflow.overwrite_configfiles,
        workflow.config_settings.config,
    )
    if hint and not (workflow.remote_exec or workflow.subprocess_exec):
        print(hint, file=sys.stderr)


# Snakemake names only the failed jobs' logs; each job's own error line is printed here
onerror:
    if not (workflow.remote_exec or workflow.subprocess_exec):
        # Snakemake 9 passes the run's log files, a list
        for line in failed_jobs_summary([Path(f) for f in log]):
            print(line, file=sys.stderr)
