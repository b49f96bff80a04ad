rule gold:
    input:
        gold_inputs,
    output:
        f"{WORLDS}/w{{world}}/gold-{{branch}}.parquet",
    log:
        f"{WORLDS}/logs/gold/w{{world}}-{{branch}}.log",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        code=stage_code("gold"),
        world=world_dir,
    shell:
        "memshift gold --world-dir {params.world} --branch {wildcards.branch} 2> {log}"
