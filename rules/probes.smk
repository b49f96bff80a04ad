rule probes:
    input:
        each_branch(built_branch_file(layout.gold)),
        each_branch(built_branch_file(layout.shift)),
    output:
        each_branch(built_branch_file(layout.probes)),
    log:
        str(L.world_log("probes", "w{world}")),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=job_code("probes"),
        world=built_dir,
        branches=BRANCH_ARGS,
    shell:
        "memshift probes --world-dir {params.world} {params.branches} 2> {log}"


rule world_manifest:
    input:
        lambda wc: [
            str(f)
            for branch in BRANCHES
            for f in layout.branch_files(L.built_world(wc.world), branch)
        ],
    output:
        built_file(layout.manifest),
    log:
        str(L.world_log("manifest", "w{world}")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("manifest"),
        world=built_dir,
        branches=",".join(BRANCHES),
    shell:
        "memshift manifest --world-dir {params.world} --branches {params.branches} 2> {log}"


if L.rewriter:

    rule rewrite:
        input:
            built_file(layout.manifest),
        output:
            world_outputs("{world}"),
            str(layout.rewrite_log(WORLD)),
        log:
            str(L.world_log("rewrite", "w{world}")),
        benchmark:
            str(L.world_benchmark("rewrite", "w{world}"))
        conda:
            "../envs/memshift.yaml"
        resources:
            mem_mb=2000,
            runtime=30,
            llm_api=1,
        params:
            code=code_of("rewrite", [("rewriter", L.rewriter)]),
            profile=profiles_code([("rewriter", L.rewriter)]),
            template=built_dir,
            out=world_dir,
            branches=BRANCH_ARGS,
            llm=L.rewriter,
            models=STUDY["models"],
            cache=str(L.llm_cache),
        shell:
            "memshift rewrite --template-dir {params.template} --out {params.out}"
            " {params.branches} --llm {params.llm} --models-file {params.models}"
            " --cache-dir {params.cache} 2> {log}"
