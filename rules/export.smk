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
        spec=lambda wildcards: ExportJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            detection=cell_parts(EXPORTS[wildcards.system][0])[1],
            repair=cell_parts(EXPORTS[wildcards.system][0])[0],
            arm=EXPORTS[wildcards.system][1],
            access=access("writer"),
            out=layout.bundle_dir(L.run_world(wildcards.world), wildcards.system),
        ).to_json(),
    shell:
        "memshift job export {params.spec:q} 2> {log:q}"


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
        # the imported memory answers the probes its cell answers, so they pair one to one
        spec=lambda wildcards: ImportRunJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            system=wildcards.system,
            every_item_time=answers_every(
                (portable_parts(wildcards.system) or ("",))[0]
            ),
            access=access("writer", "reader"),
        ).to_json(),
    shell:
        "memshift job import_run {params.spec:q} 2> {log:q}"
