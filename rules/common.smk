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
