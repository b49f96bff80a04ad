rule prefork:
    input:
        world_file(layout.world_description),
        str(layout.events(WORLD, "none")),
    output:
        str(layout.prefork(RUN)),
        str(layout.prefork_calls(RUN)),
    log:
        str(L.run_log("prefork", "w{world}")),
    benchmark:
        str(L.run_benchmark("prefork", "w{world}"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
        llm_api=1,
    params:
        code=job_code("prefork", "writer"),
        profile=profile_code("writer"),
        world=world_dir,
        run=run_dir,
        llm=ROLE["writer"],
        models=STUDY["models"],
        cache=str(L.llm_cache),
        sample=SAMPLE_ARG,
    shell:
        "memshift prefork --world-dir {params.world:q} --run-dir {params.run:q}"
        " --llm {params.llm:q} --models-file {params.models:q} --cache-dir {params.cache:q}"
        " {params.sample:q} 2> {log:q}"


# every detection of a world in one job: they read the same records, which one process tokenizes
# and indexes once
rule ingest:
    input:
        each_branch(branch_file(layout.events)),
        str(layout.prefork(RUN)),
        # the oracle key is a control built from gold
        each_branch(branch_file(layout.gold))
        if "oracle" in SYSTEMS["detections"]
        else [],
    output:
        detections=directory(str(layout.detections_dir(RUN))),
        calls=str(layout.job_calls(RUN, layout.INGEST_JOB)),
    log:
        str(L.run_log("ingest", "w{world}")),
    benchmark:
        str(L.run_benchmark("ingest", "w{world}"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=60 * len(BRANCHES) * len(SYSTEMS["detections"]),
        llm_api=1,
    params:
        code=INGEST_CODE,
        profile=profile_code(*INGEST_ROLES),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        detections=flags("--detection", SYSTEMS["detections"]),
        llm=ROLE["writer"],
        auditor=(
            ["--auditor-llm", ROLE["auditor"]]
            if "audit" in SYSTEMS["detections"]
            else []
        ),
        models=STUDY["models"],
        cache=str(L.llm_cache),
        sample=SAMPLE_ARG,
    shell:
        "memshift ingest --world-dir {params.world:q} --run-dir {params.run:q}"
        " {params.branches:q} {params.detections:q} --llm {params.llm:q}"
        " {params.auditor:q} --models-file {params.models:q} --cache-dir {params.cache:q}"
        " --calls-log {output.calls:q} {params.sample:q} 2> {log:q}"


# every HoldMem cell of a world in one job (they share the job's code; a cell's model calls are
# cached, so a rerun of all of them for one asks nothing again)
rule audit_repair:
    input:
        each_branch(branch_file(layout.events)),
        detections("{world}"),
    output:
        stores=directory(str(layout.stores_dir(RUN))),
        calls=str(layout.job_calls(RUN, layout.REPAIR_JOB)),
    log:
        str(L.run_log("audit_repair", "w{world}")),
    benchmark:
        str(L.run_benchmark("audit_repair", "w{world}"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=15 * len(BRANCHES) * len(SYSTEMS["cells"]),
        llm_api=1,
    params:
        code=job_code("audit_repair", "program"),
        profile=profile_code("program"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        cells=CELL_ARGS,
        llm=ROLE["program"],
        models=STUDY["models"],
        cache=str(L.llm_cache),
        sample=SAMPLE_ARG,
    shell:
        "memshift audit-repair --world-dir {params.world:q} --run-dir {params.run:q}"
        " {params.branches:q} {params.cells:q} --llm {params.llm:q}"
        " --models-file {params.models:q} --cache-dir {params.cache:q}"
        " --calls-log {output.calls:q} {params.sample:q} 2> {log:q}"
