rule world:
    output:
        events=built_file(layout.world_events),
        description=built_file(layout.world_description),
    log:
        str(L.world_log("world", "w{world}")),
    benchmark:
        str(L.world_benchmark("world", "w{world}"))
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        code=job_code("world"),
        history=STUDY["worlds"]["history_months"],
        definitions=STUDY["worlds"]["definitions"],
        out=built_dir,
    shell:
        "memshift world --seed {wildcards.world} --out {params.out}"
        " --history-months {params.history} --definitions {params.definitions} 2> {log}"
