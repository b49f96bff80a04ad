rule probes:
    input:
        each_branch(branch_file(layout.gold)),
    output:
        each_branch(branch_file(layout.probes)),
    log:
        str(L.world_log("probes", "w{world}")),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=job_code("probes"),
        world=world_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift probes --world-dir {params.world} {params.branches} 2> {log}"


rule world_manifest:
    input:
        lambda wc: [
            str(f)
            for branch in BRANCHES
            for f in layout.branch_files(L.world(wc.world), branch)
        ],
    output:
        world_file(layout.manifest),
    log:
        str(L.world_log("manifest", "w{world}")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("manifest"),
        world=world_dir,
        branches=",".join(BRANCHES),
    shell:
        "memshift manifest --world-dir {params.world} --branches {params.branches} 2> {log}"
