rule branches:
    input:
        rules.world.output,
    output:
        events=each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
        shift=each_branch(f"{WORLDS}/w{{world}}/shift-{{branch}}.json"),
    log:
        f"{WORLDS}/logs/branches/w{{world}}.log",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        code=stage_code("branches"),
        world=world_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift branches --world-dir {params.world} {params.branches} 2> {log}"
