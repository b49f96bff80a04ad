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
        spec=lambda wildcards: PreforkJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            access=access("writer"),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job prefork {params.spec:q} 2> {log:q}"


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
        spec=lambda wildcards: IngestJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            detections=tuple(SYSTEMS["detections"]),
            access=access(*INGEST_ROLES),
            calls=job_log(wildcards.world, layout.INGEST_JOB),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job ingest {params.spec:q} 2> {log:q}"


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
        spec=lambda wildcards: AuditRepairJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            cells=tuple(SYSTEMS["cells"]),
            access=access("program"),
            calls=job_log(wildcards.world, layout.REPAIR_JOB),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job audit_repair {params.spec:q} 2> {log:q}"
