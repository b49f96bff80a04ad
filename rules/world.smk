rule world:
    output:
        events=world_file(layout.world_events),
        description=world_file(layout.world_description),
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
        out=world_dir,
    shell:
        "memshift world --seed {wildcards.world} --out {params.out}"
        " --history-months {params.history} 2> {log}"
