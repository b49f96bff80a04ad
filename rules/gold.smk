rule gold:
    input:
        f"{WORLDS}/w{{world}}/world.json",
        each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
    output:
        each_branch(f"{WORLDS}/w{{world}}/gold-{{branch}}.parquet"),
    log:
        f"{WORLDS}/logs/gold/w{{world}}.log",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        code=stage_code("gold"),
        world=world_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift gold --world-dir {params.world} {params.branches} 2> {log}"
