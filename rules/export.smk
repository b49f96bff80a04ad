# The export shift (docs/export.md): per world, each exported cell's store at the fork as a
# Portable Memory bundle in each arm; then the second implementation imports it and follows every
# branch, and the reader answers every probe.


rule export_pm:
    input:
        str(layout.prefork(RUN)),
        world_file(layout.world_description),
        str(layout.events(WORLD, "none")),
    output:
        [str(layout.bundle_dir(RUN, "{system}") / name) for name in BUNDLE_FILES],
    log:
        str(L.run_log("export_pm", "w{world}-{system}")),
    benchmark:
        str(L.run_benchmark("export_pm", "w{world}-{system}"))
    wildcard_constraints:
        system=choice(tuple(EXPORTS) or ("pm-none",)),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        code=job_code("export"),
        profile=profile_code("writer"),
        world=world_dir,
        run=run_dir,
        detection=lambda wc: cell_parts(EXPORTS[wc.system][0])[1],
        repair=lambda wc: cell_parts(EXPORTS[wc.system][0])[0],
        arm=lambda wc: EXPORTS[wc.system][1],
        out=lambda wc, output: str(Path(output[0]).parent),
        llm=ROLE["writer"],
        models=STUDY["models"],
    shell:
        "memshift export --world-dir {params.world:q} --run-dir {params.run:q}"
        " --detection {params.detection:q} --repair {params.repair:q} --arm {params.arm:q}"
        " --llm {params.llm:q} --models-file {params.models:q} --out {params.out:q} 2> {log:q}"


rule import_pm:
    input:
        [str(layout.bundle_dir(RUN, "{system}") / name) for name in BUNDLE_FILES],
        each_branch(branch_file(layout.probes)),
        each_branch(branch_file(layout.events)),
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
        invalidations=each_branch(system_table("{system}", layout.INVALIDATIONS)),
        reads=each_branch(system_table("{system}", layout.READER_CALLS)),
        writes=each_branch(system_table("{system}", layout.DETECTION_CALLS)),
    log:
        str(L.run_log("import_pm", "w{world}-{system}")),
    benchmark:
        str(L.run_benchmark("import_pm", "w{world}-{system}"))
    wildcard_constraints:
        system=choice(tuple(EXPORTS) or ("pm-none",)),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES),
        llm_api=1,
    params:
        code=job_code("import_run", "writer", "reader"),
        profile=profile_code("writer", "reader"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=ROLE["writer"],
        reader=ROLE["reader"],
        models=STUDY["models"],
        cache=str(L.llm_cache),
        # the imported memory answers the probes its cell answers, so they pair one to one
        every=lambda wc: (
            ["--every-item-time"]
            if answers_every((portable_parts(wc.system) or ("",))[0])
            else []
        ),
    shell:
        "memshift import-run --world-dir {params.world:q} --run-dir {params.run:q}"
        " {params.branches:q} --system {wildcards.system:q} {params.every:q}"
        " --llm {params.llm:q}"
        " --reader-llm {params.reader:q} --models-file {params.models:q}"
        " --cache-dir {params.cache:q} 2> {log:q}"
