rule probes:
    input:
        each_branch(f"{WORLDS}/w{{world}}/gold-{{branch}}.parquet"),
    output:
        each_branch(f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet"),
    log:
        f"{WORLDS}/logs/probes/w{{world}}.log",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=stage_code("probes"),
        world=world_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift probes --world-dir {params.world} {params.branches} 2> {log}"


rule world_manifest:
    input:
        lambda wc: [
            f"{WORLDS}/w{wc.world}/{kind}-{branch}.{ext}"
            for branch in BRANCHES
            for kind, ext in (
                ("events", "parquet"),
                ("shift", "json"),
                ("gold", "parquet"),
                ("probes", "parquet"),
            )
        ],
    output:
        f"{WORLDS}/w{{world}}/manifest.json",
    log:
        f"{WORLDS}/logs/manifest/w{{world}}.log",
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=stage_code("manifest"),
        world=world_dir,
        branches=",".join(BRANCHES),
    shell:
        "memshift manifest --world-dir {params.world} --branches {params.branches} 2> {log}"
