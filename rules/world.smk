# A world from nothing in one job: its base events, then every branch's events, gold and probes,
# then its manifest (`memshift job world` runs the five stages in one process: they make no
# model calls, and any change to one reruns everything after it anyway). Every branch, whatever
# the study's: a world is shared by every study of its seeds and history, and a job that built
# only one study's branches would be run again, over the other study's, by a study of others
# (the three a study may leave out cost about 0.6 s a world).
rule world:
    output:
        events=built_file(layout.world_events),
        description=built_file(layout.world_description),
        branches=[
            str(f)
            for branch in ALL_BRANCHES
            for f in layout.branch_files(BUILT, branch)
        ],
        manifest=built_file(layout.manifest),
    log:
        str(L.world_log("world", "w{world}")),
    benchmark:
        str(L.world_benchmark("world", "w{world}"))
    priority: WORLDS_FIRST
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10 * len(ALL_BRANCHES),
    params:
        code=stages_code(
            "world", "branches", "gold", "probes", "manifest", shifts=ALL_BRANCHES
        ),
        spec=lambda wildcards: WorldJob(
            seed=int(wildcards.world),
            out=L.built_world(wildcards.world),
            history_months=STUDY["worlds"]["history_months"],
            definitions=STUDY["worlds"]["definitions"],
            branches=tuple(ALL_BRANCHES),
        ).to_json(),
    shell:
        "memshift job world {params.spec:q} 2> {log:q}"


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
            spec=lambda wildcards: RewriteJob(
                template=L.built_world(wildcards.world),
                out=L.world(wildcards.world),
                branches=tuple(BRANCHES),
                rewriter=L.rewriter,
                access=access(),
            ).to_json(),
        shell:
            "memshift job rewrite {params.spec:q} 2> {log:q}"
