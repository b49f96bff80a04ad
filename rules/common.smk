import re
from pathlib import Path

from memshift.fingerprint import AUDIT_ONLY, code_fingerprint

STAGE_CODE = {}


def stage_code(stage, audit=False):
    """Fingerprint of the package code a stage runs; a change reruns exactly that stage. The
    auditor's code counts only for the audit detection's jobs."""
    if (stage, audit) not in STAGE_CODE:
        STAGE_CODE[stage, audit] = code_fingerprint(
            f"memshift.stages.{stage}", without=() if audit else AUDIT_ONLY
        )
    return STAGE_CODE[stage, audit]


def each_branch(pattern):
    """`pattern` for every branch of the study. One job covers all of a world's branches: a study
    starts a fraction of the processes (each pays for Python's start-up), and the records the
    branches share are tokenized once."""
    return [pattern.replace("{branch}", branch) for branch in BRANCHES]


BRANCH_ARGS = " ".join(f"--branch {branch}" for branch in BRANCHES)


def world_dir(wildcards):
    return f"{WORLDS}/w{wildcards.world}"


PROFILE_CODE = {}


def profile_code(*roles):
    """Fingerprint of what in the model profile can change these roles' replies (every role when
    none is named): a change reruns exactly the stages that call those roles."""
    from memshift.models.profiles import role_fingerprint
    from memshift.models.requests import ROLES

    if roles not in PROFILE_CODE:
        PROFILE_CODE[roles] = ",".join(
            role_fingerprint(PROFILE, role) for role in roles or ROLES
        )
    return PROFILE_CODE[roles]


def run_dir(wildcards):
    return f"{RUNS}/w{wildcards.world}"


def cell_answers(world):
    return [
        f"{RUNS}/w{world}/{branch}/holdmem-d{repair}-{detection}/answers.parquet"
        for branch in BRANCHES
        for detection in SYSTEMS["detections"]
        for repair in SYSTEMS["repairs"]
    ]


def all_answers(world):
    others = [*SYSTEMS["baselines"], *SYSTEMS["custom"]]
    audited = [f"{system}+audit" for system in SYSTEMS["answer_audit"]]
    return cell_answers(world) + [
        f"{RUNS}/w{world}/{branch}/{system}/answers.parquet"
        for branch in BRANCHES
        for system in [*others, *audited]
    ]


def answer_audit_logs(world):
    return [
        f"{RUNS}/w{world}/{branch}/{system}+audit/answer-audits.parquet"
        for branch in BRANCHES
        for system in SYSTEMS["answer_audit"]
    ]


def maintenance_logs(world):
    return [
        f"{RUNS}/w{world}/{branch}/holdmem-{detection}/maintenance.parquet"
        for branch in BRANCHES
        for detection in SYSTEMS["detections"]
    ]


def world_outputs(world):
    base = f"{WORLDS}/w{world}"
    files = [f"{base}/world.json", f"{base}/world.parquet", f"{base}/manifest.json"]
    for branch in BRANCHES:
        files += [
            f"{base}/{kind}-{branch}.{ext}"
            for kind, ext in (
                ("events", "parquet"),
                ("shift", "json"),
                ("gold", "parquet"),
                ("probes", "parquet"),
            )
        ]
    return files


def call_logs(world):
    """Every model call log of a world's run."""
    base = f"{RUNS}/w{world}"
    files = [f"{base}/calls-prefork.parquet"]
    for branch in BRANCHES:
        for detection in SYSTEMS["detections"]:
            files.append(f"{base}/{branch}/holdmem-{detection}/calls.parquet")
            files += [
                f"{base}/{branch}/holdmem-d{repair}-{detection}/{name}.parquet"
                for repair in SYSTEMS["repairs"]
                for name in ("calls-programs", "calls-reader")
            ]
        files += [
            f"{base}/{branch}/{system}/calls-reader.parquet"
            for system in [*SYSTEMS["baselines"], *SYSTEMS["custom"]]
        ]
        files += [
            f"{base}/{branch}/{system}+audit/calls-auditor.parquet"
            for system in SYSTEMS["answer_audit"]
        ]
    return files


def run_outputs(world):
    """Every result of a world's run, without the call logs: those hold latencies."""
    base = f"{RUNS}/w{world}"
    files = [f"{base}/prefork-writes.parquet", f"{base}/fork-check.json"]
    for branch in BRANCHES:
        for detection in SYSTEMS["detections"]:
            files += [
                f"{base}/{branch}/holdmem-{detection}/{name}.parquet"
                for name in ("writes", "maintenance", "served", "audits")
            ]
            files += [
                f"{base}/{branch}/holdmem-d{repair}-{detection}/store.parquet"
                for repair in SYSTEMS["repairs"]
            ]
    return files + answer_audit_logs(world) + all_answers(world)


def config_sha256():
    from memshift.stages.run_manifest import config_hash

    return config_hash(config)


def custom_code(wildcards):
    """Fingerprint of a custom system's module, so an edit to it reruns that system's jobs."""
    import hashlib
    import importlib.util

    spec = SYSTEMS["custom"].get(wildcards.system)
    if spec is None:
        return ""
    found = importlib.util.find_spec(spec.partition(":")[0])
    if found is None or found.origin is None:
        return f"unresolved:{spec}"
    return hashlib.sha256(Path(found.origin).read_bytes()).hexdigest()[:16]
