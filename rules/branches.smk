rule branches:
    input:
        rules.world.output,
    output:
        events=f"{WORLDS}/w{{world}}/events-{{branch}}.parquet",
        shift=f"{WORLDS}/w{{world}}/shift-{{branch}}.json",
    log:
        f"{WORLDS}/logs/branches/w{{world}}-{{branch}}.log",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        code=stage_code("branches"),
        world=world_dir,
    shell:
        "memshift branches --world-dir {params.world} --branch {wildcards.branch} 2> {log}"
