rule branches:
    input:
        [str(f) for f in rules.world.output],
    output:
        events=each_branch(built_branch_file(layout.events)),
        shift=each_branch(built_branch_file(layout.shift)),
    log:
        str(L.world_log("branches", "w{world}")),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        code=job_code("branches"),
        world=built_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift branches --world-dir {params.world} {params.branches} 2> {log}"
