rule gold:
    input:
        built_file(layout.world_description),
        each_branch(built_branch_file(layout.events)),
    output:
        each_branch(built_branch_file(layout.gold)),
    log:
        str(L.world_log("gold", "w{world}")),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        code=job_code("gold"),
        world=built_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift gold --world-dir {params.world} {params.branches} 2> {log}"
