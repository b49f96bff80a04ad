from pathlib import Path

from memshift.fingerprint import code_fingerprint


def stage_code(stage):
    """Fingerprint of the package code a stage runs; a change reruns exactly that stage."""
    return code_fingerprint(f"memshift.stages.{stage}")


def world_dir(wildcards):
    return f"{WORLDS}/w{wildcards.world}"


def gold_inputs(wildcards):
    base = f"{WORLDS}/w{wildcards.world}"
    inputs = [f"{base}/world.json", f"{base}/events-{wildcards.branch}.parquet"]
    if wildcards.branch != "none":
        inputs.append(f"{base}/gold-none.parquet")
    return inputs


def profile_code():
    """Fingerprint of the model profile in use: changing it reruns the model-calling stages."""
    import hashlib
    import json
    import dataclasses

    from memshift.models.profiles import Profile, load_profile

    models = Path(config["models"])
    if config["llm"] == "rules" and not models.exists():
        profile = Profile("rules", "rules")
    else:
        profile = load_profile(models, config["llm"])
    text = json.dumps(dataclasses.asdict(profile), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
    return cell_answers(world) + [
        f"{RUNS}/w{world}/{branch}/{system}/answers.parquet"
        for branch in BRANCHES
        for system in others
    ]


def maintenance_logs(world):
    return [
        f"{RUNS}/w{world}/{branch}/holdmem-{detection}/maintenance.parquet"
        for branch in BRANCHES
        for detection in SYSTEMS["detections"]
    ]
