"""Stage `plan`: what a study will cost on its profile, before anything is sent to a model.

Runs the study with the rule-based backend (Snakemake: jobs already done are not repeated),
reads that run's call logs and prices every request on the study's profiles
(`analysis/plan.py`); writes plan.parquet and plan.json into the study's run folder on that
profile, where the report's calls table will later show what was spent.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from memshift.analysis.plan import PLAN, Call, Line, Rates, estimate, plan_table, stage_of, totals
from memshift.artifacts import write_json, write_table
from memshift.config import study_layout
from memshift.errors import MemshiftError
from memshift.models.profiles import Profile, study_profile
from memshift.stages.snakemake_runs import snakemake
from memshift.vocabulary import role_profiles

RULES = "rules"


@dataclass(frozen=True)
class Plan:
    lines: list[Line]
    totals: list[Line]
    source: Path  # the rule-based run whose calls were priced
    out: Path  # the run folder on the profile, where plan.parquet and plan.json went


def profiles_of(study: Mapping[str, Any]) -> dict[str, Profile]:
    """Every role's profile (one line naming a profile the models file lacks)."""
    models = Path(study["models"])
    return {
        role: study_profile(name, models)
        for role, name in role_profiles(study["llm"], study["roles"]).items()
    }


def rules_study(study: Mapping[str, Any]) -> dict[str, Any]:
    """The same study with every role on the rule-based backend."""
    return {**study, "llm": RULES, "roles": dict.fromkeys(study["roles"], RULES)}


def run_rules_study(study: Mapping[str, Any], configfile: Path | None, cores: str) -> None:
    """Snakemake on the study with every role on the rule-based backend; its output on stderr."""
    given = [f"llm={RULES}"]
    if study["roles"]:
        given.append(f"roles={json.dumps(dict.fromkeys(study['roles'], RULES))}")
    named = ["--configfile", str(configfile)] if configfile is not None else []
    snakemake(
        [*named, "--cores", cores, "--config", *given],
        "the rule-based run of the study failed",
        "; the plan needs its call logs",
        stdout=sys.stderr,
    )


def logged_calls(run: Path) -> list[Call]:
    """Every call of a run's call logs, with the job that made it."""
    logs = sorted(run.glob("w*/**/calls*.parquet"))
    if not logs:
        raise MemshiftError(f"{run} holds no call logs (w*/calls-*.parquet): run the study first")
    wanted = ["role", "tokens_in", "tokens_out", "cache_hit", "prompt_tokens", "prefix_hit_tokens"]
    calls = []
    for log in logs:
        stage = stage_of(log)
        # the last two are absent from call logs written before the prefix-cache replay
        columns = [name for name in wanted if name in pq.read_schema(log).names]
        for row in pq.read_table(log, columns=columns).to_pylist():
            calls.append(
                Call(
                    stage,
                    row["role"],
                    row["tokens_in"] or 0,
                    row["tokens_out"] or 0,
                    row.get("prompt_tokens") or 0,
                    row.get("prefix_hit_tokens") or 0,
                    # the rule-based run reads no response cache: its hits are the job's repeats
                    bool(row.get("cache_hit")),
                )
            )
    return calls


def plan(
    study: Mapping[str, Any],
    rates: Rates,
    configfile: Path | None = None,
    cores: str = "all",
    *,
    build: bool = True,
) -> Plan:
    """Price the study's requests on its profiles; with `build`, run (or finish) its rule-based
    run first, else read that run as it is."""
    profiles = profiles_of(study)
    source = study_layout(rules_study(study)).runs
    if build:
        run_rules_study(study, configfile, cores)
    lines = estimate(logged_calls(source), profiles, profiles["writer"], rates)
    where = study_layout(study)
    out = where.runs
    result = Plan(lines, totals(lines, rates), source, out)
    write_table(plan_table([*result.lines, *result.totals]), PLAN, where.plan)
    write_json(summary(result, study, profiles, rates), where.plan_summary)
    return result


def summary(
    result: Plan, study: Mapping[str, Any], profiles: Mapping[str, Profile], rates: Rates
) -> dict[str, Any]:
    """plan.json: what was priced, on what, at which assumptions, and every line."""
    return {
        "study": study["study"],
        "source": str(result.source),
        "profiles": {
            role: {
                "name": p.name,
                "token_ratio": p.token_ratio,
                "reply_limit": p.reply_tokens(role),
            }
            for role, p in profiles.items()
        },
        "rates": asdict(rates),
        "tokens_out": "the rule-based backend's replies x token_ratio; tokens_out_limit: every "
        "reply at its role's reply limit",
        "lines": [asdict(line) for line in [*result.lines, *result.totals]],
    }
