rule world:
    output:
        events=f"{WORLDS}/w{{world}}/world.parquet",
        description=f"{WORLDS}/w{{world}}/world.json",
    log:
        f"{WORLDS}/logs/world/w{{world}}.log",
    benchmark:
        f"{WORLDS}/benchmarks/world/w{{world}}.tsv"
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        code=stage_code("world"),
        history=HISTORY_MONTHS,
        out=world_dir,
    shell:
        "memshift world --seed {wildcards.world} --out {params.out}"
        " --history-months {params.history} 2> {log}"
